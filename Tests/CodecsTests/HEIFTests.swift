import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// HEIC and AVIF through libheif, on files made at test time from the fixtures by heif-enc
/// (Debian's `libheif-examples`): pixels as the reference decoder (heif-convert) gives them,
/// orientation (HEIF's transforms, not EXIF), metadata, limits, damage and encoding.
@Suite struct HEIFTests {
  /// heif-enc's file of a fixture, written to a temporary folder too (for heif-convert).
  static func made(
    _ fixture: String, avif: Bool = false, _ options: [String] = [], in folder: TemporaryFolder,
    as name: String
  ) throws -> [UInt8] {
    let bytes = try FormatTools.heif(fromFixture: fixture, avif: avif, options)
    folder.write(name, bytes)
    return bytes
  }

  /// heif-convert's pixels of a file in `folder`, read from its PNG (heif-convert copies the
  /// EXIF, whose orientation photoedit's PNG reader applies: it is taken back).
  static func reference(_ name: String, in folder: TemporaryFolder) throws -> Image {
    try FormatTools.heifConvert(folder.path(name), to: folder.path(name + ".png"))
    return try ImageCodec.decode(try #require(folder.read(name + ".png"))).asStored
  }

  /// photoedit's decode is heif-convert's pixels exactly (the tolerance is 0: both are libheif's
  /// decoder and colour conversion): HEIC and AVIF, opaque and with alpha, an odd width (x265
  /// codes 668 columns, `clap` crops to 667).
  @Test(arguments: [
    ("faces/hopper.jpg", false, ["-q", "80"]), ("faces/hopper.jpg", true, ["-q", "80"]),
    ("png/basn6a08.png", false, []), ("png/basn6a08.png", true, []),
    ("groundtruth/pyfeat-multi-face-o6.jpg", false, ["-q", "40"]),
  ])
  func decodesAsHeifConvertDoes(fixture: String, avif: Bool, options: [String]) throws {
    let folder = try TemporaryFolder()
    let name = avif ? "x.avif" : "x.heic"
    let bytes = try Self.made(fixture, avif: avif, options, in: folder, as: name)
    let decoded = try ImageCodec.decode(bytes)
    let reference = try Self.reference(name, in: folder)
    #expect(decoded.format == (avif ? .avif : .heic))
    #expect(decoded.image.width == reference.width && decoded.image.height == reference.height)
    #expect(decoded.image == reference)
    #expect(decoded.image.isOpaque == !fixture.contains("6a08"))
    #expect(!decoded.details.storedLossless && decoded.orientation == 1)
    let info = try ImageCodec.readInfo(bytes)
    #expect(info.format == decoded.format && info.width == reference.width && info.height == reference.height)
  }

  /// A 10-bit HEIC (heif-enc from a 16-bit PNG) is read as 8 bits a sample: libheif's
  /// conversion, within 1 of heif-convert's 16-bit PNG scaled to 8 bits by photoedit's PNG
  /// reader (two roundings of the same value).
  @Test func tenBitsAreReadAsEight() throws {
    let folder = try TemporaryFolder()
    let bytes = try Self.made("png/basn2c16.png", ["-b", "10", "-q", "90"], in: folder, as: "ten.heic")
    let bits = try HEIFLibrary.withPrimary(bytes, format: .heic, maxSide: 1 << 15) { _, primary in
      primary.lumaBits
    }
    #expect(bits == 10)
    let decoded = try ImageCodec.decode(bytes).image
    let reference = try Self.reference("ten.heic", in: folder)
    #expect(decoded.width == reference.width && decoded.height == reference.height)
    let worst = zip(decoded.bytes, reference.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(worst <= 1)
  }

  /// HEIF's transforms rule, not an EXIF orientation: heif-enc copies a JPEG's EXIF
  /// orientation 6 and writes no `irot`, so the file is read as stored (as heif-convert does);
  /// with an `irot` of 90° anticlockwise added, it is read turned that way (EXIF's 8), not by
  /// EXIF's 6, nor by both.
  @Test func theTransformsRuleNotEXIF() throws {
    let folder = try TemporaryFolder()
    let stored = try Self.made(
      "groundtruth/pyfeat-multi-face-o6.jpg", ["-q", "40"], in: folder, as: "stored.heic")
    let plain = try ImageCodec.decode(stored)
    #expect(plain.image.width == 667 && plain.image.height == 1000)
    #expect(plain.image == (try Self.reference("stored.heic", in: folder)))
    let exif = try #require(
      try HEIFLibrary.withPrimary(stored, format: .heic, maxSide: 1 << 15) { _, primary in primary.exif })
    #expect(EXIF.orientation(in: exif) == 6)

    let turned = try HEIFBoxes.addingRotation(stored, angle: 1)
    folder.write("turned.heic", turned)
    let decoded = try ImageCodec.decode(turned)
    #expect(decoded.image.width == 1000 && decoded.image.height == 667)
    #expect(decoded.image == plain.image.uprighted(exifOrientation: 8))
    #expect(decoded.image != plain.image.uprighted(exifOrientation: 6))
    #expect(decoded.image == (try Self.reference("turned.heic", in: folder)))
    let info = try ImageCodec.readInfo(turned)
    #expect(info.width == 1000 && info.height == 667 && info.orientation == 1)
    // Renders say orientation 1: the pixels are upright.
    #expect(decoded.metadata.exif.flatMap(EXIF.orientation) == 1)
    // The `irot` associated before `ispe`, as Canon's cameras write it: libheif 1.15's header
    // size misses the turn (its decode does not); photoedit's does not.
    let canon = try HEIFBoxes.addingRotation(stored, angle: 1, first: true)
    #expect(try ImageCodec.decode(canon).image == decoded.image)
    let canonInfo = try ImageCodec.readInfo(canon)
    #expect(canonInfo.width == 1000 && canonInfo.height == 667)
  }

  /// heif-enc keeps a JPEG's EXIF (with its thumbnail) and XMP (with its thumbnail), and adds a
  /// HEIF thumbnail (`-t`): audit finds all three pictures, the decode keeps the metadata
  /// through the allow-list, and a render carries it without any picture.
  @Test(arguments: [false, true])
  func metadataIsReadAndRendersCarryNoPicture(avif: Bool) throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try EmbeddedImagesFixture.jpeg(orientation: 1))
    let bytes = try FormatTools.heif(fromFile: folder.path("in.jpg"), avif: avif, ["-q", "60", "-t", "32"])
    let format: ImageFormat = avif ? .avif : .heic
    let found = ImageCodec.metadataFindings(in: bytes)
    let pictures = Set(found.filter { $0.kind == .embeddedImage }.map { "\($0.container) \($0.name)" })
    #expect(pictures.contains("\(format.displayName) thumbnail (thmb)"), "\(pictures)")
    #expect(pictures.contains("EXIF thumbnail (IFD1)"), "\(pictures)")
    #expect(pictures.contains("XMP xmp:Thumbnails"), "\(pictures)")
    let decoded = try ImageCodec.decode(bytes)
    let jpeg = try ImageCodec.decode(try #require(folder.read("in.jpg")))
    #expect(decoded.metadata.exif != nil && decoded.metadata.exif == jpeg.metadata.exif)
    #expect(decoded.metadata.icc != nil && decoded.metadata.icc == jpeg.metadata.icc)
    #expect(try #require(decoded.metadata.xmp).containsText("Picnic by the lake"))
    let render = try ImageCodec.encode(
      decoded.image, as: format, options: EncodeOptions(metadata: decoded.metadata, hidesFaces: true))
    let renderFound = ImageCodec.metadataFindings(in: render)
    #expect(renderFound.filter { $0.kind == .embeddedImage }.isEmpty, "\(renderFound)")
    #expect(!render.containsText(EmbeddedImagesFixture.makerNoteText))
    let again = try ImageCodec.decode(render)
    #expect(again.format == format)
    #expect(again.metadata.icc == decoded.metadata.icc)
    #expect(again.metadata.exif.map { EXIF.orientation(in: $0) } == 1)
    #expect(again.metadata.xmp.map { $0.containsText("Picnic by the lake") } == true)
    folder.write("render", render)
    let described = String(decoding: try FormatTools.run("heif-info", [folder.path("render")]), as: UTF8.self)
    #expect(!described.contains("thumbnail"), "\(described)")
    #expect(described.contains("Exif") && described.contains("XMP"), "\(described)")
  }

  /// Stripped, a render of a photo full of identifying metadata (GPS, serials, names) keeps none
  /// of it: no secret's text in its bytes, and audit finds nothing.
  @Test(arguments: [false, true])
  func strippedRendersKeepNothingIdentifying(avif: Bool) throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try IdentifyingFixture.jpeg())
    let bytes = try FormatTools.heif(fromFile: folder.path("in.jpg"), avif: avif, ["-q", "60"])
    #expect(ImageCodec.metadataFindings(in: bytes).contains { $0.name.hasPrefix("GPS") })
    let decoded = try ImageCodec.decode(bytes)
    let render = try ImageCodec.encode(
      decoded.image, as: avif ? .avif : .heic,
      options: EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped))
    for secret in IdentifyingFixture.secrets { #expect(!render.containsText(secret), "\(secret)") }
    #expect(ImageCodec.metadataFindings(in: render).isEmpty)
    #expect(try ImageCodec.decode(render).metadata.icc == decoded.metadata.icc)
  }

  /// Encoding is lossy (`lossless` is not offered), odd sizes and alpha kept; at quality 90
  /// the pixels come back close; a quality outside 1...100 is refused.
  @Test(arguments: [ImageFormat.heic, .avif])
  func encodes(format: ImageFormat) throws {
    #expect(!format.capabilities.losslessOption)
    for image in [
      noiseImage(width: 37, height: 23), noiseImage(width: 19, height: 31, seed: 2, opaque: false),
    ] {
      let back = try ImageCodec.decode(try ImageCodec.encode(image, as: format))
      #expect(back.format == format)
      #expect(back.image.width == image.width && back.image.height == image.height)
      #expect(back.image.isOpaque == image.isOpaque)
    }
    let photo = try ImageCodec.decode(try fixture("faces/hopper.jpg")).image
    let lossy = try ImageCodec.decode(
      try ImageCodec.encode(photo, as: format, options: EncodeOptions(quality: 90)))
    expectSimilar(lossy.image, photo, meanError: 3, name: "hopper at quality 90")
    #expect(throws: CodecError.encodingFailed(format, "quality 0 is not in 1...100")) {
      try ImageCodec.encode(photo, as: format, options: EncodeOptions(quality: 0))
    }
  }

  /// The limits are checked from the header (`ispe`) before libheif decodes: a file that
  /// claims 20000x20000 is refused by the pixel limit and by the memory budget; one that claims
  /// more than 32768 a side by libheif's own limit, set by photoedit.
  @Test func limitsAreCheckedFromTheHeader() throws {
    let small = try FormatTools.heif(fromFixture: "faces/hopper.jpg", ["-q", "30"])
    let huge = try HEIFBoxes.claimingSize(small, width: 20000, height: 20000)
    var options = DecodeOptions()
    options.maxPixels = 1_000_000
    #expect(throws: CodecError.tooLarge(width: 20000, height: 20000, limit: 1_000_000)) {
      try ImageCodec.decode(huge, options: options)
    }
    // The frame, libheif's planes (4 samples a pixel, twice) and its RGBA image.
    let info = try ImageCodec.readInfo(huge)
    let estimate = ImageCodec.decodeMemoryEstimate(info)
    #expect(estimate >= 20000 * 20000 * 16)
    var budget = DecodeOptions()
    budget.maxPixels = 500_000_000
    budget.maxMemoryBytes = 1 << 30
    #expect(throws: CodecError.memoryBudgetExceeded(estimate: estimate, budget: 1 << 30)) {
      try ImageCodec.decode(huge, options: budget)
    }
    let wider = try HEIFBoxes.claimingSize(small, width: 40000, height: 10)
    #expect {
      try ImageCodec.decode(wider)
    } throws: { error in
      guard case .corruptData(.heic, let detail) = error as? CodecError else { return false }
      return detail.contains("libheif refused it")
    }
  }

  /// The coded pictures are held to the header before the decoder allocates them: a file
  /// whose `ispe` says 64x64 while its parameter sets (HEVC's SPS, AV1's sequence header) say
  /// 512x512 is refused by photoedit's guard in front of libde265 and dav1d, not decoded at
  /// 512x512 and compared afterwards. The same file claiming its true size decodes.
  @Test(arguments: [false, true])
  func codedPicturesLargerThanTheHeaderAreRefused(avif: Bool) throws {
    let format: ImageFormat = avif ? .avif : .heic
    let bytes = try FormatTools.heif(fromFixture: "faces/astronaut.png", avif: avif, ["-q", "30"])
    #expect(try ImageCodec.decode(bytes).image.width == 512)
    let lying = try HEIFBoxes.claimingSize(bytes, width: 64, height: 64)
    #expect(try ImageCodec.readInfo(lying).width == 64)
    #expect {
      try ImageCodec.decode(lying)
    } throws: { error in
      guard case .corruptData(format, let detail) = error as? CodecError else { return false }
      return detail.contains(String(describing: HEIFDecodeGuard.refusal))
    }
    // Claiming 400x400 (160,000 pixels, 640 KB of planes allowed) passes the guard: the 512x512
    // 4:2:0 picture needs 393 KB; the size check after the decode refuses it.
    let smaller = try HEIFBoxes.claimingSize(bytes, width: 400, height: 400)
    #expect {
      try ImageCodec.decode(smaller)
    } throws: { error in
      guard case .corruptData(format, let detail) = error as? CodecError else { return false }
      return detail.contains("the decoded image is 512x512, its header says 400x400")
    }
  }

  /// FuzzHEIF's find: a 1.7 KB HEIC whose `ispe` says 128x128 and whose overlay canvas is
  /// 20303x20303 (libheif allocated 2.8 GB for it before photoedit compared the sizes). Its
  /// canvas is read from the boxes and refused before libheif decodes anything.
  @Test func aDerivedImageLargerThanTheHeaderIsRefused() throws {
    let bytes = try testInput("fuzz/FuzzHEIF/overlay-larger-than-header.heic")
    #expect(
      HEIFItems.derivedCanvases(bytes) == [
        .init(type: "iovl", width: 20303, height: 20303), .init(type: "grid", width: 16, height: 16),
      ])
    #expect(
      throws: CodecError.corruptData(.heic, "its iovl image is 20303x20303, larger than its header's 128x128")
    ) {
      try ImageCodec.decode(bytes)
    }
  }

  /// A real grid image (pillow-heif's 16x16 `grid` of HEVC tiles): its canvas is read from the
  /// boxes and equals its header, its tiles pass the guard, and the pixels are heif-convert's.
  @Test func aGridImageDecodesAsHeifConvertDoes() throws {
    let folder = try TemporaryFolder()
    let bytes = try fixture("heif/grid-xmp_latin1.heic")
    folder.write("grid.heic", bytes)
    #expect(HEIFItems.derivedCanvases(bytes) == [.init(type: "grid", width: 16, height: 16)])
    #expect(try ImageCodec.decode(bytes).image == (try Self.reference("grid.heic", in: folder)))
  }

  /// A grid's canvas is read from `idat` or the file (construction methods 1 and 0), with
  /// 16- and 32-bit sizes; data that cannot be found gives nil, not a guess.
  @Test func gridCanvasesAreReadFromTheBoxes() throws {
    func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
      let size = body.count + 8
      return [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)]
        + Array(type.utf8) + body
    }
    let infe = box("infe", [2, 0, 0, 0, 0, 7, 0, 0] + Array("grid".utf8) + [0])
    let iinf = box("iinf", [0, 0, 0, 0, 0, 1] + infe)
    let grid32: [UInt8] = [0, 1, 1, 2, 0, 0, 0x9c, 0x40, 0, 0, 0x75, 0x30]  // 40000 x 30000
    // iloc version 1: 4-byte offsets and lengths, no base, item 7 in idat at 0.
    let iloc = box("iloc", [1, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 7, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 12])
    let meta = box("meta", [0, 0, 0, 0] + iinf + iloc + box("idat", grid32))
    #expect(
      HEIFItems.derivedCanvases(box("ftyp", Array("heic".utf8)) + meta) == [
        .init(type: "grid", width: 40000, height: 30000)
      ])
    // Method 0: the 16-bit grid data lies in the file, after the meta box.
    let grid16: [UInt8] = [0, 0, 1, 2, 0x0f, 0xc0, 0x0b, 0xd0]  // 4032 x 3024
    let head = box("ftyp", Array("heic".utf8))
    let ilocFile = { (offset: Int) in
      box(
        "iloc",
        [1, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 7, 0, 0, 0, 0, 0, 1]
          + [
            UInt8(offset >> 24), UInt8(offset >> 16 & 255), UInt8(offset >> 8 & 255), UInt8(offset & 255), 0,
            0, 0, 8,
          ])
    }
    let metaLength = box("meta", [0, 0, 0, 0] + iinf + ilocFile(0)).count
    let file =
      head + box("meta", [0, 0, 0, 0] + iinf + ilocFile(head.count + metaLength + 8)) + box("mdat", grid16)
    #expect(HEIFItems.derivedCanvases(file) == [.init(type: "grid", width: 4032, height: 3024)])
    #expect(HEIFItems.derivedCanvases(Array(file.dropLast(4))) == nil, "the data is cut")
    #expect(HEIFItems.derivedCanvases(head + box("meta", [0, 0, 0, 0] + iinf)) == nil, "no iloc")
  }

  /// A cut file, damaged coded data and an image sequence are refused with what is wrong.
  @Test(arguments: [false, true])
  func damageIsRefused(avif: Bool) throws {
    let format: ImageFormat = avif ? .avif : .heic
    let bytes = try FormatTools.heif(fromFixture: "faces/hopper.jpg", avif: avif, ["-q", "50"])
    #expect(throws: CodecError.truncated(format)) {
      try ImageCodec.decode(Array(bytes.prefix(bytes.count / 2)))
    }
    #expect(throws: CodecError.self) { try ImageCodec.decode(Array(bytes.prefix(40))) }
    var damaged = bytes
    for i in stride(from: bytes.count - 300, to: bytes.count, by: 7) { damaged[i] ^= 0x5A }
    do {
      let decoded = try ImageCodec.decode(damaged)
      // Damage the decoder conceals still gives an image of the header's size.
      #expect(decoded.image.width == 128 && decoded.image.height == 128)
    } catch {
      #expect(error.description.hasPrefix("corrupt \(format.displayName): "), "\(error)")
    }
    var sequence = bytes
    sequence.replaceSubrange(8..<12, with: Array((avif ? "avis" : "msf1").utf8))
    let name = avif ? "AVIF image sequence" : "HEIF image sequence"
    #expect(throws: CodecError.unreadableFormat(name)) { try ImageCodec.decode(sequence) }
  }
}

extension DecodedImage {
  /// The pixels as stored, before the EXIF orientation the decode applied.
  var asStored: Image {
    let inverse = [6: 8, 8: 6][orientation] ?? orientation
    return image.uprighted(exifOrientation: inverse)
  }
}
