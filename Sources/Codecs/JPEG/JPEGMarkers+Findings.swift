/// What a JPEG's segments reveal (`photoedit audit`): every segment before the first scan is
/// read, not only those a render carries, and the bytes after the end-of-image marker.
extension JPEGMarkers {
  static let extendedXMPSignature = "http://ns.adobe.com/xmp/extension/\0".asciiBytes
  static let mpfSignature = "MPF\0".asciiBytes
  static let flashPixSignature = "FPXR".asciiBytes
  static let jfifSignature = "JFIF\0".asciiBytes
  static let jfxxSignature = "JFXX\0".asciiBytes

  /// The findings of a JPEG's segments, in file order; Photoshop's APP13 segments are read as
  /// one block. A segment that runs past the end stops the walk.
  ///
  /// - Complexity: O(size).
  static func findings(in bytes: [UInt8]) -> [MetadataFinding] {
    var out: [MetadataFinding] = []
    var photoshop: [UInt8]? = nil
    var i = 2
    walk: while true {
      while i < bytes.count, bytes[i] != 0xFF { i += 1 }
      while i < bytes.count, bytes[i] == 0xFF { i += 1 }
      guard i < bytes.count else { break }
      let marker = bytes[i]
      i += 1
      if marker == 0x00 || marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
      guard marker != 0xD9, i + 2 <= bytes.count else { break }
      let length = bytes.uint16BE(at: i)
      guard length >= 2, i + length <= bytes.count else { break }
      let body = bytes[(i + 2)..<(i + length)]
      func signed(_ signature: [UInt8]) -> Bool { body.starts(with: signature) }
      switch marker {
      case 0xDA:
        if let end = walkScans(bytes, from: i - 2).end, EmbeddedImage.isPresent(in: bytes[end...]) {
          out.append(.image("JPEG", "data after the end of the image"))
        }
        break walk
      case 0xE0 where signed(jfifSignature):
        if body.count >= 14, body[body.startIndex + 12] > 0, body[body.startIndex + 13] > 0 {
          out.append(.image("JPEG", "JFIF thumbnail"))
        }
      case 0xE0 where signed(jfxxSignature): out.append(.image("JPEG", "JFXX thumbnail"))
      case 0xE1 where signed(exifSignature):
        out += EXIF.findings(in: Array(body.dropFirst(exifSignature.count)))
      case 0xE1 where signed(xmpSignature): out += XMP.findings(in: Array(body.dropFirst(xmpSignature.count)))
      case 0xE1 where signed(extendedXMPSignature):
        out.append(
          EmbeddedImage.isPresent(inText: body)
            ? .image("JPEG", "extended XMP") : .tag("JPEG", "extended XMP"))
      case 0xE2 where signed(mpfSignature): out.append(.image("JPEG", "MPF (pictures after the image)"))
      case 0xE2 where signed(flashPixSignature): out.append(.image("JPEG", "FlashPix"))
      case 0xED where signed(photoshopSignature):
        // Appended in place: concatenating copies would cost O(n²) over many segments.
        if photoshop == nil { photoshop = [] }
        photoshop!.append(contentsOf: body.dropFirst(photoshopSignature.count))
      case 0xFE:
        if EmbeddedImage.isPresent(inText: body) {
          out.append(.image("JPEG", "comment"))
        } else if body.saysSomething {
          out.append(.tag("JPEG", "comment"))
        }
      case 0xE0...0xEF where !signed(iccSignature):
        if EmbeddedImage.isPresent(in: body) { out.append(.image("JPEG", "APP\(marker - 0xE0) segment")) }
      default: break
      }
      i += length
    }
    if let photoshop { out += PhotoshopResources.findings(in: photoshop) }
    return out
  }
}
