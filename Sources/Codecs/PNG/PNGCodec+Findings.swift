/// What a PNG's chunks reveal (`photoedit audit`): EXIF (`eXIf`) and XMP read for their own
/// findings, text chunks (free text, where some tools put EXIF with its thumbnail as hex or
/// base64), any other chunk holding an image, and what follows `IEND`.
extension PNGCodec {
  /// Text keywords that say nothing identifying: the software and the dates (dates are kept by
  /// `--strip-identifying` too).
  static let plainTextKeywords: Set<String> = [
    "Software", "Creation Time", "date:create", "date:modify", "date:timestamp",
  ]

  /// The findings of a PNG's chunks, in file order. CRCs are not checked (the decode does); a
  /// chunk that runs past the end stops the walk. Compressed text is inflated within
  /// `maxInflatedBytes` in all.
  ///
  /// - Complexity: O(size) plus the inflate budget.
  static func findings(in bytes: [UInt8]) -> [MetadataFinding] {
    var out: [MetadataFinding] = []
    var budget = maxInflatedBytes
    func inflated(_ data: ArraySlice<UInt8>) -> [UInt8]? {
      guard budget > 0 else { return nil }
      let text = inflate(Array(data), maxSize: budget)
      budget -= text?.count ?? budget
      return text
    }
    var i = signature.count
    while i + 8 <= bytes.count {
      let length = bytes.uint32BE(at: i)
      let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
      guard length <= 0x7FFF_FFFF, i + 12 + length <= bytes.count else { break }
      let data = bytes[(i + 8)..<(i + 8 + length)]
      i += 12 + length
      switch type {
      case "IEND":
        if EmbeddedImage.isPresent(in: bytes[i...]) {
          out.append(.image("PNG", "data after the end of the image"))
        }
        return out
      case "IDAT", "IHDR", "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP": continue
      case "eXIf": out += EXIF.findings(in: Array(data))
      case "tEXt", "zTXt", "iTXt":
        guard let (keyword, text) = Self.text(of: type, data, inflating: inflated) else {
          out.append(.tag("PNG", "\(type) chunk (unreadable)"))
          continue
        }
        if keyword == "XML:com.adobe.xmp" {
          out += XMP.findings(in: text)
        } else if EmbeddedImage.isPresent(inText: text) {
          out.append(.image("PNG", "\(type) '\(keyword)'"))
        } else if !plainTextKeywords.contains(keyword), text[...].saysSomething {
          out.append(.tag("PNG", "\(type) '\(keyword)'"))
        }
      default:
        if EmbeddedImage.isPresent(in: data) { out.append(.image("PNG", "\(type) chunk")) }
      }
    }
    return out
  }

  /// A text chunk's keyword (Latin-1 letters, at most 79) and its text, inflated when
  /// compressed; nil when it cannot be read.
  static func text(
    of type: String, _ data: ArraySlice<UInt8>, inflating: (ArraySlice<UInt8>) -> [UInt8]?
  ) -> (String, [UInt8])? {
    guard let nul = data.prefix(80).firstIndex(of: 0), nul > data.startIndex else { return nil }
    let keyword = String(decoding: data[..<nul].map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    var rest = data[(nul + 1)...]
    switch type {
    case "tEXt": return (keyword, Array(rest))
    case "zTXt":
      guard rest.first == 0 else { return nil }
      return inflating(rest.dropFirst()).map { (keyword, $0) }
    default:
      // iTXt: compression flag, method, language tag, 0, translated keyword, 0, text.
      guard rest.count >= 2 else { return nil }
      let compressed = rest[rest.startIndex] == 1
      rest = rest.dropFirst(2)
      guard let languageEnd = rest.firstIndex(of: 0),
        let translatedEnd = rest[(languageEnd + 1)...].firstIndex(of: 0)
      else { return nil }
      let text = rest[(translatedEnd + 1)...]
      return compressed ? inflating(text).map { (keyword, $0) } : (keyword, Array(text))
    }
  }
}
