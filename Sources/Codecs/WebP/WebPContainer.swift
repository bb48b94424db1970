/// A WebP file's RIFF structure, read and written in Swift: the `VP8X` header, the image's
/// chunks (`ALPH`, `VP8 `, `VP8L`) and the metadata chunks (`ICCP`, `EXIF`, `XMP `). libwebp
/// decodes and encodes the image; the metadata never passes through it.
///
/// Every size is checked against the bytes before it is used; a chunk that runs past the end
/// of the file is `.truncated`.
struct WebPContainer {
  /// One chunk: its four-character code and where its data lies in the file.
  struct Chunk {
    var fourCC: String
    var data: Range<Int>
  }

  /// Every chunk, in file order.
  var chunks: [Chunk] = []
  /// The bytes after the RIFF's end (its declared size), where some tools leave data.
  var trailing: Range<Int>
  /// The first `EXIF` chunk's TIFF structure ("Exif\0\0" before it, which some writers add,
  /// removed), the first `ICCP` and `XMP ` chunks.
  var exif: [UInt8]?, icc: [UInt8]?, xmp: [UInt8]?
  /// The EXIF orientation (1...8), else 1.
  var orientation = 1
  /// An `ANIM` or `ANMF` chunk, or the VP8X animation flag: an animation.
  var animated = false

  static let riff = "RIFF".asciiBytes, webp = "WEBP".asciiBytes
  /// The VP8X flags (WebP container specification).
  static let iccFlag: UInt8 = 0x20, alphaFlag: UInt8 = 0x10, exifFlag: UInt8 = 0x08, xmpFlag: UInt8 = 0x04,
    animationFlag: UInt8 = 0x02

  /// Walks the chunks of `bytes` (which start with "RIFF....WEBP").
  ///
  /// - Throws: `.truncated(.webp)` when the RIFF or a chunk runs past the end, `.corruptData`
  ///   for a RIFF size too small to hold its chunks.
  init(_ bytes: [UInt8]) throws(CodecError) {
    guard bytes.count >= 12, bytes.hasBytes(Self.riff, at: 0), bytes.hasBytes(Self.webp, at: 8) else {
      throw .truncated(.webp)
    }
    let riffSize = bytes.uint32LE(at: 4)
    guard riffSize >= 4 else { throw .corruptData(.webp, "RIFF size \(riffSize) holds no chunk") }
    // The RIFF size counts from byte 8; odd sizes are padded.
    let end = 8 + riffSize
    guard end <= bytes.count else { throw .truncated(.webp) }
    trailing = end..<bytes.count
    var i = 12
    while i < end {
      guard i + 8 <= end else { throw .corruptData(.webp, "a chunk header is cut by the RIFF's end") }
      let fourCC = String(decoding: bytes[i..<(i + 4)], as: UTF8.self)
      let size = bytes.uint32LE(at: i + 4)
      guard size <= end - i - 8 else {
        throw .corruptData(.webp, "chunk '\(fourCC)' runs past the RIFF's end")
      }
      let data = (i + 8)..<(i + 8 + size)
      chunks.append(Chunk(fourCC: fourCC, data: data))
      i = data.upperBound + (size & 1)
      switch fourCC {
      case "EXIF" where exif == nil:
        var tiff = Array(bytes[data])
        if tiff.starts(with: "Exif\0\0".asciiBytes) { tiff.removeFirst(6) }
        exif = tiff
        orientation = EXIF.orientation(in: tiff) ?? 1
      case "ICCP" where icc == nil: icc = Array(bytes[data])
      case "XMP " where xmp == nil: xmp = Array(bytes[data])
      case "ANIM", "ANMF": animated = true
      case "VP8X" where size >= 1: animated = animated || bytes[data.lowerBound] & Self.animationFlag != 0
      default: break
      }
    }
  }

  /// The metadata the file gives its renders (through the allow-list, as a JPEG's).
  var metadata: ImageMetadata {
    var metadata = ImageMetadata()
    metadata.exif = exif
    metadata.icc = icc
    metadata.xmp = xmp
    return metadata.rendered(keepingMakerNote: true)
  }

  /// A WebP file of the image chunks of `encoded` (libwebp's simple-format output) with
  /// `metadata`'s ICC profile, EXIF and XMP: the extended format (a `VP8X` header), or the
  /// encoder's own bytes when there is no metadata. Photoshop resources and comments have no
  /// place in WebP and are not written.
  static func assemble(
    _ encoded: [UInt8], width: Int, height: Int, hasAlpha: Bool, metadata: ImageMetadata
  ) throws(CodecError) -> [UInt8] {
    let exif = metadata.exif.flatMap { $0.isEmpty ? nil : $0 }
    let icc = metadata.icc.flatMap { $0.isEmpty ? nil : $0 }
    let xmp = metadata.xmp.flatMap { $0.isEmpty ? nil : $0 }
    if exif == nil && icc == nil && xmp == nil { return encoded }
    let parsed = try WebPContainer(encoded)
    let image = parsed.chunks.filter { ["ALPH", "VP8 ", "VP8L"].contains($0.fourCC) }
    var flags: UInt8 = hasAlpha ? alphaFlag : 0
    if icc != nil { flags |= iccFlag }
    if exif != nil { flags |= exifFlag }
    if xmp != nil { flags |= xmpFlag }
    var header: [UInt8] = [flags, 0, 0, 0]
    header.appendUInt24LE(width - 1)
    header.appendUInt24LE(height - 1)
    var body = webp
    appendChunk("VP8X", header, to: &body)
    if let icc { appendChunk("ICCP", icc, to: &body) }
    for chunk in image { appendChunk(chunk.fourCC, Array(encoded[chunk.data]), to: &body) }
    if let exif { appendChunk("EXIF", exif, to: &body) }
    if let xmp { appendChunk("XMP ", xmp, to: &body) }
    guard body.count <= 0xFFFF_FFF0 else { throw .encodingFailed(.webp, "the file would pass 4 GiB") }
    var out = riff
    out.appendUInt32LE(body.count)
    return out + body
  }

  static func appendChunk(_ fourCC: String, _ data: [UInt8], to out: inout [UInt8]) {
    out += fourCC.asciiBytes
    out.appendUInt32LE(data.count)
    out += data
    if data.count & 1 == 1 { out.append(0) }
  }
}

extension Array where Element == UInt8 {
  @inline(__always) func uint32LE(at i: Int) -> Int {
    Int(self[i]) | Int(self[i + 1]) << 8 | Int(self[i + 2]) << 16 | Int(self[i + 3]) << 24
  }
  mutating func appendUInt24LE(_ value: Int) {
    append(UInt8(truncatingIfNeeded: value))
    append(UInt8(truncatingIfNeeded: value >> 8))
    append(UInt8(truncatingIfNeeded: value >> 16))
  }
  mutating func appendUInt32LE(_ value: Int) {
    appendUInt24LE(value)
    append(UInt8(truncatingIfNeeded: value >> 24))
  }
}
