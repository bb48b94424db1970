import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// WebP through libwebp, on files made at test time from the fixtures by cwebp (Debian's `webp`
/// package): pixels as the reference decoder (dwebp) gives them, orientation, metadata,
/// limits, damage and encoding.
@Suite struct WebPTests {
  /// cwebp's file of a fixture, written to a temporary folder too (for dwebp).
  static func made(_ fixture: String, _ options: [String], in folder: TemporaryFolder, as name: String) throws
    -> [UInt8]
  {
    let bytes = try FormatTools.webp(fromFixture: fixture, options)
    folder.write(name, bytes)
    return bytes
  }

  /// photoedit's decode is dwebp's pixels exactly (the tolerance is 0: both are libwebp's
  /// decoder with its default, fancy upsampling), lossy, lossless and with alpha.
  @Test(arguments: [
    ("faces/astronaut.png", ["-q", "80"]), ("faces/astronaut.png", ["-lossless"]),
    ("png/basn6a08.png", ["-q", "75"]), ("png/basn6a08.png", ["-lossless"]),
    ("faces/hopper.jpg", []),
  ])
  func decodesAsDwebpDoes(fixture: String, options: [String]) throws {
    let folder = try TemporaryFolder()
    let bytes = try Self.made(fixture, options, in: folder, as: "x.webp")
    let decoded = try ImageCodec.decode(bytes)
    let reference = try FormatTools.dwebpPixels(folder.path("x.webp"))
    #expect(decoded.format == .webp)
    #expect(decoded.image.width == reference.width && decoded.image.height == reference.height)
    #expect(decoded.image.bytes == reference.rgba)
    #expect(decoded.details.storedLossless == options.contains("-lossless"))
    let info = try ImageCodec.readInfo(bytes)
    #expect(info.format == .webp && info.width == reference.width && info.height == reference.height)
  }

  /// An EXIF orientation (cwebp copies the JPEG's EXIF) is applied when the WebP is read: the
  /// pixels are dwebp's, turned upright, and the sides are swapped from the header on.
  @Test(arguments: [3, 6, 8])
  func orientationIsApplied(orientation: Int) throws {
    let folder = try TemporaryFolder()
    let bytes = try Self.made(
      "faces/hopper_orientation_\(orientation).jpg", ["-metadata", "exif"], in: folder, as: "o.webp")
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.orientation == orientation)
    let stored = try FormatTools.dwebpPixels(folder.path("o.webp"))
    let expected = Image(width: stored.width, height: stored.height, bytes: stored.rgba)
      .uprighted(exifOrientation: orientation)
    #expect(decoded.image == expected)
    #expect(decoded.metadata.exif.flatMap(EXIF.orientation) == 1)
    #expect(try ImageCodec.readInfo(bytes).orientation == orientation)
  }

  /// cwebp keeps a JPEG's EXIF (with its thumbnail), XMP (with its thumbnail) and ICC profile:
  /// audit finds the pictures in the WebP, the decode keeps the metadata through the
  /// allow-list, and a WebP render carries it without any picture.
  @Test func metadataIsReadAndRendersCarryNoPicture() throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try EmbeddedImagesFixture.jpeg(orientation: 1))
    let bytes = try FormatTools.webp(fromFile: folder.path("in.jpg"), ["-metadata", "all"])
    let found = ImageCodec.metadataFindings(in: bytes)
    let pictures = Set(found.filter { $0.kind == .embeddedImage }.map { "\($0.container) \($0.name)" })
    #expect(pictures.contains("EXIF thumbnail (IFD1)"), "\(pictures)")
    #expect(pictures.contains("XMP xmp:Thumbnails"), "\(pictures)")
    let decoded = try ImageCodec.decode(bytes)
    let exif = try #require(decoded.metadata.exif)
    #expect(EXIF.orientation(in: exif) == 1)
    let jpeg = try ImageCodec.decode(try #require(folder.read("in.jpg")))
    #expect(decoded.metadata.icc != nil && decoded.metadata.icc == jpeg.metadata.icc)
    #expect(decoded.metadata.exif == jpeg.metadata.exif)
    #expect(try #require(decoded.metadata.xmp).containsText("Picnic by the lake"))
    let render = try ImageCodec.encode(
      decoded.image, as: .webp, options: EncodeOptions(metadata: decoded.metadata, hidesFaces: true))
    let renderFound = ImageCodec.metadataFindings(in: render)
    #expect(renderFound.filter { $0.kind == .embeddedImage }.isEmpty, "\(renderFound)")
    #expect(!render.containsText(EmbeddedImagesFixture.makerNoteText))
    let again = try ImageCodec.decode(render)
    #expect(again.metadata.icc == decoded.metadata.icc)
    #expect(again.metadata.xmp.map { $0.containsText("Picnic by the lake") } == true)
    folder.write("render.webp", render)
    #expect(try FormatTools.run("webpinfo", ["-quiet", folder.path("render.webp")]).isEmpty)
  }

  /// Stripped, a WebP render of a photo full of identifying metadata (GPS, serials, names)
  /// keeps none of it: no secret's text in its bytes, and audit finds nothing.
  @Test func strippedRendersKeepNothingIdentifying() throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try IdentifyingFixture.jpeg())
    let bytes = try FormatTools.webp(fromFile: folder.path("in.jpg"), ["-metadata", "all"])
    #expect(ImageCodec.metadataFindings(in: bytes).contains { $0.name.hasPrefix("GPS") })
    let decoded = try ImageCodec.decode(bytes)
    let render = try ImageCodec.encode(
      decoded.image, as: .webp, options: EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped))
    for secret in IdentifyingFixture.secrets { #expect(!render.containsText(secret), "\(secret)") }
    #expect(ImageCodec.metadataFindings(in: render).isEmpty)
    #expect(try ImageCodec.decode(render).metadata.icc == decoded.metadata.icc)
  }

  /// Lossless encoding gives the pixels back exactly (opaque or not); lossy at a quality gives
  /// them back close; WebP's 16383-pixel side is refused with a message, not a crash.
  @Test func encodes() throws {
    for image in [
      noiseImage(width: 37, height: 23), noiseImage(width: 19, height: 31, seed: 2, opaque: false),
    ] {
      var options = EncodeOptions()
      options.lossless = true
      let lossless = try ImageCodec.encode(image, as: .webp, options: options)
      #expect(try ImageCodec.decode(lossless).image == image)
      #expect(lossless.hasBytes(Array("VP8L".utf8), at: 12))
    }
    let photo = try ImageCodec.decode(try fixture("faces/astronaut.png")).image
    let lossy = try ImageCodec.decode(
      try ImageCodec.encode(photo, as: .webp, options: EncodeOptions(quality: 90)))
    expectSimilar(lossy.image, photo, meanError: 3, name: "astronaut at quality 90")
    #expect(!lossy.details.storedLossless)
    #expect(throws: CodecError.encodingFailed(.webp, "16384x1 is larger than WebP's 16383 pixels a side")) {
      try ImageCodec.encode(Image(width: 16384, height: 1), as: .webp)
    }
  }

  /// The limits are checked from the header before libwebp allocates: a 16383x16383 WebP of
  /// 59 bytes is refused by the pixel limit and the memory budget.
  @Test func limitsAreCheckedFromTheHeader() throws {
    // A lossless (VP8L) header: the signature 0x2F, then width - 1 and height - 1 in 14 bits
    // each, the alpha bit and a 3-bit version; then bytes that are no image.
    let bits = UInt32(16382) | UInt32(16382) << 14
    let vp8l: [UInt8] =
      [0x2F] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) } + [UInt8](repeating: 0, count: 27)
    let bytes =
      Array("RIFF".utf8) + [UInt8(12 + vp8l.count), 0, 0, 0] + Array("WEBPVP8L".utf8)
      + [UInt8(vp8l.count), 0, 0, 0] + vp8l
    var options = DecodeOptions()
    options.maxPixels = 1_000_000
    #expect(throws: CodecError.tooLarge(width: 16383, height: 16383, limit: 1_000_000)) {
      try ImageCodec.decode(bytes, options: options)
    }
    // The frame and VP8L's whole-image buffer (4 bytes a pixel each), and the rows.
    let info = try ImageCodec.readInfo(bytes)
    let estimate = ImageCodec.decodeMemoryEstimate(info)
    #expect(estimate >= 16383 * 16383 * 8)
    var budget = DecodeOptions()
    budget.maxPixels = 300_000_000
    budget.maxMemoryBytes = 1 << 30
    #expect(throws: CodecError.memoryBudgetExceeded(estimate: estimate, budget: 1 << 30)) {
      try ImageCodec.decode(bytes, options: budget)
    }
  }

  /// A cut file, damaged data, a RIFF that lies about its size and an animation are refused
  /// with what is wrong.
  @Test func damageIsRefused() throws {
    let bytes = try FormatTools.webp(fromFixture: "faces/hopper.jpg")
    #expect(throws: CodecError.truncated(.webp)) {
      try ImageCodec.decode(Array(bytes.prefix(bytes.count / 2)))
    }
    #expect(throws: CodecError.truncated(.webp)) { try ImageCodec.decode(Array(bytes.prefix(14))) }
    // The VP8 key frame's start code (9D 01 2A, after the 3-byte frame tag) damaged.
    #expect(bytes.hasBytes(Array("VP8 ".utf8), at: 12) && bytes.hasBytes([0x9D, 0x01, 0x2A], at: 23))
    var damaged = bytes
    damaged[23] = 0
    #expect(
      throws: CodecError.corruptData(
        .webp, "libwebp found the bitstream damaged reading the header (status 3)")
    ) {
      try ImageCodec.decode(damaged)
    }
    var lying = bytes
    lying[4] = 2  // a RIFF size too small for its first chunk
    (lying[5], lying[6], lying[7]) = (0, 0, 0)
    #expect(throws: CodecError.corruptData(.webp, "RIFF size 2 holds no chunk")) {
      try ImageCodec.decode(lying)
    }

    let folder = try TemporaryFolder()
    try FormatTools.run(
      "img2webp",
      [
        fixturePath("png/basn2c08.png"), fixturePath("png/basn0g08.png"), "-o",
        folder.path("a.webp"),
      ])
    let animation = try #require(folder.read("a.webp"))
    #expect(throws: CodecError.unsupported("animated WebP (photoedit reads still images)")) {
      try ImageCodec.decode(animation)
    }
  }
}
