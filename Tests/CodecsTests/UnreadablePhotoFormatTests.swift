import Testing

@testable import Codecs

/// The signatures of the photo formats photoedit does not read, and what is not one of them.
@Suite struct UnreadablePhotoFormatTests {
  static func ftyp(_ brands: [String]) -> [UInt8] {
    let size = 8 + 4 * (brands.count + 1)
    var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(brands[0].utf8) + [0, 0, 0, 0]
    for brand in brands.dropFirst() { bytes += Array(brand.utf8) }
    return bytes
  }

  static func bmp(headerSize: UInt8) -> [UInt8] {
    Array("BM".utf8) + [0x46, 0, 0, 0] + [0, 0, 0, 0] + [14 + headerSize, 0, 0, 0] + [headerSize, 0, 0, 0]
  }

  @Test func signatures() {
    let cases: [([UInt8], String)] = [
      (Array("GIF87a".utf8) + [1, 0, 1, 0], "GIF"),
      (Array("GIF89a".utf8) + [1, 0, 1, 0], "GIF"),
      ([0xFF, 0x0A, 0xFA], "JPEG XL"),
      ([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A], "JPEG XL"),
      ([0, 0, 0, 0x0C] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A], "JPEG 2000"),
      (Self.bmp(headerSize: 40), "BMP"),
      (Self.bmp(headerSize: 124), "BMP"),
      (Self.ftyp(["avis", "avif", "mif1", "miaf"]), "AVIF image sequence"),
      (Self.ftyp(["msf1", "mif1", "heic"]), "HEIF image sequence"),
      (Self.ftyp(["hevc", "mif1"]), "HEIF image sequence"),
      (Self.ftyp(["crx ", "crx "]), "CR3"),
    ]
    for (bytes, name) in cases {
      #expect(UnreadablePhotoFormat.name(ofSignature: bytes) == name, "\(bytes)")
      // As the decoder says when such a file is named like a JPEG.
      #expect(throws: CodecError.unreadableFormat(name)) { try ImageCodec.format(of: bytes) }
    }
  }

  /// Text, videos, the formats photoedit reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF), and anything
  /// too short are none of these.
  @Test func notASignature() {
    let cases: [[UInt8]] = [
      [], [0x47], Array("GIF8".utf8), Array("BMW service notes, 2024\n".utf8),
      Array("BM".utf8) + [0x46, 0, 0, 0] + [1, 0, 0, 0] + [54, 0, 0, 0] + [40, 0, 0, 0],
      Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8),
      Self.ftyp(["isom", "isom", "iso2", "mp41"]), Self.ftyp(["qt  "]),
      [0xFF, 0xD8, 0xFF, 0xE0], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
      Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8),
      [0, 0, 0, 0x0C] + Array("ftyp".utf8),
      Self.ftyp(["heic", "mif1", "heic"]), Self.ftyp(["mif1", "mif1", "heic"]), Self.ftyp(["heix"]),
      Self.ftyp(["avif", "mif1", "miaf"]), Self.ftyp(["mif1", "avif", "mif1", "miaf"]),
      [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0],
      [0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16],
    ]
    for bytes in cases { #expect(UnreadablePhotoFormat.name(ofSignature: bytes) == nil, "\(bytes)") }
  }

  /// The formats photoedit reads are known by their signatures, whatever the file's name: a
  /// WebP's bytes under a `.jpg` name are a WebP; a RIFF cut before its form type is a cut WebP.
  @Test func readFormatsBySignature() throws {
    let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)
    #expect(try ImageCodec.format(of: webp) == .webp)
    #expect(UnreadablePhotoFormat.name(of: "x.gif", firstBytes: webp) == nil)
    #expect(throws: CodecError.truncated(.webp)) {
      try ImageCodec.format(of: Array("RIFF\u{24}\0\0\0WE".utf8))
    }
    #expect(throws: CodecError.notAnImage) { try ImageCodec.format(of: Array("RI".utf8)) }
    #expect(ImageFormat(pathExtension: "a/B.WEBP") == .webp)
    #expect(ImageFormat(pathExtension: "b.gif") == nil)
    #expect(ImageFormat(rawValue: "webp") == .webp && ImageFormat(rawValue: "gif") == nil)
    // HEIC and AVIF by their ftyp brands; a generic `mif1` by its compatible brands.
    #expect(try ImageCodec.format(of: Self.ftyp(["mif1", "mif1", "heic"])) == .heic)
    #expect(try ImageCodec.format(of: Self.ftyp(["heix"])) == .heic)
    #expect(try ImageCodec.format(of: Self.ftyp(["mif1", "avif", "miaf"])) == .avif)
    #expect(throws: CodecError.truncated(.heic)) {
      try ImageCodec.format(of: [0, 0, 0, 0x18] + Array("ftyp".utf8))
    }
    #expect(
      ImageFormat(pathExtension: "a/IMG_1.HIF") == .heic && ImageFormat(pathExtension: "x.avif") == .avif)
    // TIFF and BigTIFF, in either byte order; a header cut before its first offset is a cut TIFF.
    #expect(try ImageCodec.format(of: [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]) == .tiff)
    #expect(
      try ImageCodec.format(of: [0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]) == .tiff)
    #expect(throws: CodecError.truncated(.tiff)) { try ImageCodec.format(of: [0x49, 0x49, 0x2A, 0x00, 8]) }
    #expect(ImageFormat(pathExtension: "scan.TIF") == .tiff && ImageFormat(pathExtension: "x.tiff") == .tiff)
  }

  /// A camera raw is known by its extension (most are TIFF inside); other extensions name their
  /// format only when the bytes show no signature, and never a JPEG's or a PNG's bytes.
  @Test func namesAndBytes() {
    let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
    #expect(UnreadablePhotoFormat.name(of: "a/IMG_1.CR2", firstBytes: tiff) == "CR2")
    #expect(UnreadablePhotoFormat.name(of: "x.nef", firstBytes: []) == "NEF")
    // A TIFF is read (whatever its name), but never a camera raw's: DNG by extension too.
    #expect(UnreadablePhotoFormat.name(of: "scan", firstBytes: tiff) == nil)
    #expect(UnreadablePhotoFormat.name(of: "x.gif", firstBytes: tiff) == nil)
    #expect(UnreadablePhotoFormat.name(of: "x.tif", firstBytes: []) == nil)
    #expect(UnreadablePhotoFormat.name(of: "IMG_2.DNG", firstBytes: tiff) == "DNG")
    #expect(UnreadablePhotoFormat.name(of: "x.gif", firstBytes: []) == "GIF")
    #expect(UnreadablePhotoFormat.name(of: "x.gif", firstBytes: [0xFF, 0xD8, 0xFF, 0xE1]) == nil)
    #expect(UnreadablePhotoFormat.name(of: "notes.txt", firstBytes: Array("hello".utf8)) == nil)
    #expect(UnreadablePhotoFormat.name(of: "a.gif/notes", firstBytes: []) == nil)
    #expect(
      CodecError.unreadableFormat("GIF").description
        == "GIF is not supported (photoedit reads JPEG, PNG, HEIC, AVIF, WebP and TIFF)")
  }
}
