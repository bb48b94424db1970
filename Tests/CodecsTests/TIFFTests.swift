import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// TIFF through libtiff, on files made at test time from the fixtures by libtiff's tools
/// (raw2tiff, tiffcp, tiff2bw, tiffmedian, tiffset): pixels as the reference (tiff2rgba)
/// gives them, orientation, metadata, limits, damage and encoding.
@Suite struct TIFFTests {
  /// The fixture's decoded pixels.
  static func pixels(_ fixture: String) throws -> Image {
    try ImageCodec.decode(try TestSupport.fixture(fixture)).image
  }

  /// `image` premultiplied by its alpha, rounded as libtiff's RGBA interface rounds
  /// ((a × c + 127) / 255), to compare with tiff2rgba's output.
  static func premultiplied(_ image: Image) -> [UInt8] {
    var out = image.bytes
    for i in stride(from: 0, to: out.count, by: 4) {
      let a = Int(out[i + 3])
      for c in i..<(i + 3) { out[c] = UInt8((a * Int(out[c]) + 127) / 255) }
    }
    return out
  }

  /// photoedit's decode is tiff2rgba's pixels exactly (the tolerance is 0: both are libtiff's
  /// RGBA interface): 8 and 16 bits, RGB, CMYK and grey, uncompressed, PackBits, LZW, Deflate
  /// and JPEG (YCbCr and RGB), strips and tiles. tiffcp's JPEG needs strips of a multiple of 16
  /// rows (raw2tiff's are not: tiffcp refuses to write them), hence `-r 16`.
  @Test(arguments: [
    (FormatTools.RawLayout.rgb8, ["-c", "none"]), (.rgb8, ["-c", "packbits"]), (.rgb8, ["-c", "lzw"]),
    (.rgb8, ["-c", "zip", "-t", "-w", "64", "-l", "64"]), (.rgb8, ["-c", "jpeg:90", "-r", "16"]),
    (.rgb8, ["-c", "jpeg:r:90", "-t"]), (.rgb16, ["-c", "lzw"]), (.rgb16, ["-c", "zip", "-t"]),
    (.cmyk8, ["-c", "lzw"]), (.grey8, ["-c", "zip"]),
  ])
  func decodesAsTiff2rgbaDoes(layout: FormatTools.RawLayout, options: [String]) throws {
    let folder = try TemporaryFolder()
    let source = try Self.pixels("faces/hopper.jpg")
    let path = try FormatTools.tiff(source, layout, tiffcp: options, in: folder, as: "x.tif")
    let bytes = try #require(folder.read("x.tif"))
    let decoded = try ImageCodec.decode(bytes)
    let reference = try FormatTools.tiff2rgbaPixels(path)
    #expect(decoded.format == .tiff && decoded.orientation == 1)
    #expect(decoded.image.width == reference.width && decoded.image.height == reference.height)
    #expect(decoded.image.bytes == reference.rgba)
    #expect(decoded.details.storedLossless == !options.contains { $0.hasPrefix("jpeg") })
    // The lossless ones hold the fixture's colours: 16 bits and CMYK too.
    if !options.contains(where: { $0.hasPrefix("jpeg") }) && layout != .grey8 {
      #expect(decoded.image == source)
    }
    let info = try ImageCodec.readInfo(bytes)
    #expect(info.format == .tiff && info.width == source.width && info.height == source.height)
  }

  /// A greyscale TIFF (tiff2bw) and a palette one (tiffmedian) are read as tiff2rgba reads them.
  @Test func greyAndPaletteAsTiff2rgba() throws {
    let folder = try TemporaryFolder()
    let rgb = try FormatTools.tiff(try Self.pixels("faces/astronaut.png"), in: folder, as: "rgb.tif")
    try FormatTools.run("tiff2bw", [rgb, folder.path("grey.tif")])
    try FormatTools.run("tiffmedian", ["-c", "lzw", rgb, folder.path("palette.tif")])
    for name in ["grey.tif", "palette.tif"] {
      let decoded = try ImageCodec.decode(try #require(folder.read(name)))
      let reference = try FormatTools.tiff2rgbaPixels(folder.path(name))
      #expect(decoded.image.bytes == reference.rgba, "\(name)")
    }
  }

  /// An image with alpha (unassociated, as photoedit writes it; recompressed by tiffcp) comes
  /// back with its colours straight: tiff2rgba's premultiplied pixels are ours premultiplied,
  /// and fully opaque pixels are exact.
  @Test func alphaIsStraight() throws {
    let folder = try TemporaryFolder()
    let image = try Self.pixels("png/basn6a08.png")
    folder.write("a.tif", try ImageCodec.encode(image, as: .tiff))
    try FormatTools.run("tiffcp", ["-c", "lzw", folder.path("a.tif"), folder.path("b.tif")])
    let decoded = try ImageCodec.decode(try #require(folder.read("b.tif"))).image
    let reference = try FormatTools.tiff2rgbaPixels(folder.path("b.tif"))
    #expect(Self.premultiplied(decoded) == reference.rgba)
    for i in stride(from: 0, to: image.bytes.count, by: 4) where image.bytes[i + 3] == 255 {
      #expect(decoded.bytes[i..<(i + 4)] == image.bytes[i..<(i + 4)])
    }
    // Straight colours within rounding where alpha is partial: at most 255 / (2a) apart.
    for i in stride(from: 0, to: image.bytes.count, by: 4) where image.bytes[i + 3] >= 32 {
      for c in 0..<3 { #expect(abs(Int(decoded.bytes[i + c]) - Int(image.bytes[i + c])) <= 4) }
    }
  }

  /// The Orientation tag (set by tiffset) is applied once: the pixels are tiff2rgba's of the
  /// same file without it, turned upright, the sides swapped from the header on, and the
  /// metadata says 1.
  @Test(arguments: [3, 6, 8])
  func orientationIsApplied(orientation: Int) throws {
    let folder = try TemporaryFolder()
    let path = try FormatTools.tiff(
      try Self.pixels("faces/hopper.jpg"), tiffcp: ["-c", "lzw"], in: folder, as: "o.tif")
    let stored = try FormatTools.tiff2rgbaPixels(path)
    try FormatTools.run("tiffset", ["-s", "274", "\(orientation)", path])
    let bytes = try #require(folder.read("o.tif"))
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.orientation == orientation)
    let expected = Image(width: stored.width, height: stored.height, bytes: stored.rgba)
      .uprighted(exifOrientation: orientation)
    #expect(decoded.image == expected)
    #expect(decoded.metadata.exif.flatMap(EXIF.orientation) == 1)
    let info = try ImageCodec.readInfo(bytes)
    #expect(info.orientation == orientation && info.width == expected.width && info.height == expected.height)
  }

  /// The identifying TIFF: its pixels are read (the chained reduced-resolution image is not a
  /// page); audit finds the GPS, the names, the XMP thumbnail and the chained image; the decode
  /// keeps ICC, XMP (without its thumbnail) and the EXIF through the allow-list, without the
  /// TIFF's structural tags; stripped, nothing identifying is left, in a JPEG or a TIFF render.
  @Test(arguments: [true, false])
  func metadataIsReadAndStripped(littleEndian: Bool) throws {
    let bytes = try IdentifyingTIFF.bytes(littleEndian: littleEndian)
    let found = ImageCodec.metadataFindings(in: bytes)
    let names = Set(found.map(\.name))
    #expect(
      names.isSuperset(of: [
        "GPSLatitude", "Artist", "BodySerialNumber", "xmp:Thumbnails", "thumbnail (IFD1)",
      ]), "\(names)")
    #expect(!names.contains("picture (StripOffsets)"))

    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.image.width == 16 && decoded.image.height == 12)
    #expect(decoded.image[1, 0] == RGBA(21, 28, 35, 255))
    #expect(decoded.metadata.icc == (try IdentifyingFixture.icc()))
    let xmp = try #require(decoded.metadata.xmp)
    #expect(xmp.containsText("Picnic by the lake") && !xmp.containsText("Thumbnails"))
    let exif = try #require(decoded.metadata.exif)
    #expect(exif.containsText("Alice Example") && exif.containsText("Canon"))
    let gps = try #require(EXIF.Reader(exif))
    let offset = try #require(gps.ifd0)
    let ifd0 = try #require(gps.entries(at: offset))
    #expect(ifd0.contains { $0.tag == 0x8825 })
    #expect(!ifd0.contains { [0x0100, 0x0103, 0x0111, 0x0117, 0x02BC, 0x8773].contains($0.tag) })

    for format in [ImageFormat.jpeg, .tiff] {
      let stripped = try ImageCodec.encode(
        decoded.image, as: format,
        options: EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped))
      for secret in IdentifyingFixture.secrets {
        #expect(!stripped.containsText(secret), "\(format) \(secret)")
      }
      #expect(ImageCodec.metadataFindings(in: stripped).isEmpty, "\(format)")
      #expect(try ImageCodec.decode(stripped).metadata.icc == decoded.metadata.icc)
    }
    // Kept by default: a JPEG or TIFF render carries the EXIF, GPS included, and never a
    // picture. A TIFF render holds it in its own directories, in the EXIF's byte order: read
    // back, it is the same EXIF (without a MakerNote), and libtiff reads the file.
    for format in [ImageFormat.jpeg, .tiff] {
      let kept = try ImageCodec.encode(
        decoded.image, as: format, options: EncodeOptions(metadata: decoded.metadata))
      let keptFound = ImageCodec.metadataFindings(in: kept)
      #expect(keptFound.contains { $0.name == "GPSLatitude" }, "\(format)")
      #expect(keptFound.filter { $0.kind == .embeddedImage }.isEmpty, "\(format) \(keptFound)")
      let again = try ImageCodec.decode(kept)
      #expect(again.metadata.exif == EXIF.rendered(exif, keepingMakerNote: false), "\(format)")
      guard format == .tiff else { continue }
      #expect(again.image == decoded.image)
      #expect(kept.starts(with: littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]))
      let folder = try TemporaryFolder()
      folder.write("kept.tif", kept)
      let info = String(decoding: try FormatTools.run("tiffinfo", [folder.path("kept.tif")]), as: UTF8.self)
      #expect(
        info.contains("Artist: Alice Example") && info.contains("Compression Scheme: AdobeDeflate"), "\(info)"
      )
    }
  }

  /// Encoding: 8-bit RGB or RGBA, Deflate with the predictor, read back exactly (by photoedit
  /// and by tiff2rgba), with the ICC profile and XMP; tiffinfo reads it without complaint.
  @Test func encodes() throws {
    let folder = try TemporaryFolder()
    let opaque = noiseImage(width: 37, height: 23)
    let transparent = noiseImage(width: 19, height: 31, seed: 2, opaque: false)
    var metadata = ImageMetadata()
    metadata.icc = try IdentifyingFixture.icc()
    metadata.xmp = Array(
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:format>image/tiff</dc:format></rdf:Description></rdf:RDF></x:xmpmeta>"
        .utf8)
    for (name, image) in [("o.tif", opaque), ("t.tif", transparent)] {
      let bytes = try ImageCodec.encode(image, as: .tiff, options: EncodeOptions(metadata: metadata))
      folder.write(name, bytes)
      let again = try ImageCodec.decode(bytes)
      // libtiff's RGBA interface premultiplies: a partly transparent pixel comes back within
      // rounding, so the premultiplied pixels are compared.
      #expect(Self.premultiplied(again.image) == Self.premultiplied(image))
      if image.isOpaque { #expect(again.image == image) }
      #expect(again.metadata.icc == metadata.icc)
      #expect(again.metadata.xmp.map { $0.containsText("image/tiff") } == true)
      let info = String(decoding: try FormatTools.run("tiffinfo", [folder.path(name)]), as: UTF8.self)
      #expect(info.contains("Compression Scheme: AdobeDeflate") && info.contains("Bits/Sample: 8"), "\(info)")
      #expect(info.contains("Samples/Pixel: \(image.isOpaque ? 3 : 4)"), "\(info)")
      let reference = try FormatTools.tiff2rgbaPixels(folder.path(name))
      #expect(reference.rgba == Self.premultiplied(image))
    }
  }

  /// The limits are checked from the header before anything is allocated: a 100000x100000
  /// TIFF of a few hundred bytes is refused by the pixel limit and by the memory budget.
  @Test func limitsAreCheckedFromTheHeader() throws {
    let bytes = writeTIFF(
      littleEndian: true,
      ifd0: [
        TIFFTag(0x0100, .longs([100_000])), TIFFTag(0x0101, .longs([100_000])),
        TIFFTag(0x0102, .shorts([8, 8, 8])), TIFFTag(0x0103, .shorts([8])), TIFFTag(0x0106, .shorts([2])),
        TIFFTag(0x0111, .longs([8])), TIFFTag(0x0115, .shorts([3])), TIFFTag(0x0116, .longs([100_000])),
        TIFFTag(0x0117, .longs([100])),
      ])
    #expect(
      throws: CodecError.tooLarge(width: 100_000, height: 100_000, limit: DecodeOptions.defaultMaxPixels)
    ) {
      try ImageCodec.decode(bytes)
    }
    var options = DecodeOptions()
    options.maxPixels = .max
    let estimate = ImageCodec.decodeMemoryEstimate(try ImageCodec.readInfo(bytes))
    #expect(estimate >= 100_000 * 100_000 * 4)
    #expect(throws: CodecError.memoryBudgetExceeded(estimate: estimate, budget: options.maxMemoryBytes)) {
      try ImageCodec.decode(bytes, options: options)
    }
  }

  /// Damage is refused with what is wrong, never a crash: a cut file, strips past the end, no
  /// strips, a header pointing nowhere, a zero size, two pages.
  @Test func damageIsRefused() throws {
    let folder = try TemporaryFolder()
    let path = try FormatTools.tiff(
      try Self.pixels("faces/hopper.jpg"), tiffcp: ["-c", "lzw"], in: folder, as: "h.tif")
    let bytes = try #require(folder.read("h.tif"))
    func refusal(_ bytes: [UInt8]) -> CodecError? {
      do {
        _ = try ImageCodec.decode(bytes)
        return nil
      } catch { return error }
    }
    #expect(refusal(Array(bytes.prefix(5))) == .truncated(.tiff))
    // tiffcp writes the directory last: a cut file has none left.
    for cut in [bytes.count / 2, bytes.count - 20] {
      guard case .corruptData(.tiff, let why) = refusal(Array(bytes.prefix(cut))) else {
        Issue.record("cut at \(cut): \(String(describing: refusal(Array(bytes.prefix(cut)))))")
        continue
      }
      #expect(why.hasPrefix("libtiff: "), "\(why)")
    }
    // IFD0 at an offset past the end.
    var nowhere = bytes
    (nowhere[4], nowhere[5], nowhere[6], nowhere[7]) = (0xF0, 0xFF, 0xFF, 0x0F)
    #expect(refusal(nowhere).map { if case .corruptData(.tiff, _) = $0 { true } else { false } } == true)

    let strip: [TIFFTag] = [
      TIFFTag(0x0100, .longs([4])), TIFFTag(0x0101, .longs([4])), TIFFTag(0x0102, .shorts([8])),
      TIFFTag(0x0103, .shorts([1])), TIFFTag(0x0106, .shorts([1])), TIFFTag(0x0115, .shorts([1])),
      TIFFTag(0x0116, .longs([4])),
    ]
    // No strips at all; strips pointing past the end; a zero width.
    let noStrips = writeTIFF(littleEndian: true, ifd0: strip)
    let pastEnd = writeTIFF(
      littleEndian: true, ifd0: strip + [TIFFTag(0x0111, .longs([1 << 20])), TIFFTag(0x0117, .longs([16]))])
    let zero = writeTIFF(
      littleEndian: true,
      ifd0: strip.filter { $0.tag != 0x0100 } + [
        TIFFTag(0x0100, .longs([0])), TIFFTag(0x0111, .longs([8])), TIFFTag(0x0117, .longs([16])),
      ])
    for (name, file) in [("no strips", noStrips), ("past the end", pastEnd), ("zero width", zero)] {
      let error = refusal(file)
      #expect(
        error.map { if case .corruptData(.tiff, _) = $0 { true } else { false } } == true,
        "\(name): \(String(describing: error))")
    }

    // Two pages (tiffcp joins two files): refused, never cut to the first.
    let second = try FormatTools.tiff(try Self.pixels("faces/astronaut.png"), in: folder, as: "a.tif")
    try FormatTools.run("tiffcp", [path, second, folder.path("two.tif")])
    let two = try #require(folder.read("two.tif"))
    #expect(throws: CodecError.unsupported("multi-page TIFF")) { try ImageCodec.decode(two) }
    #expect(throws: CodecError.unsupported("multi-page TIFF")) { try ImageCodec.readInfo(two) }

    // A DNG (its version tag) named anything is a camera raw.
    let dng = writeTIFF(
      littleEndian: true,
      ifd0: strip + [
        TIFFTag(0x0111, .longs([8])), TIFFTag(0x0117, .longs([16])),
        TIFFTag(0xC612, .raw(type: 1, [1, 4, 0, 0])),
      ])
    #expect(throws: CodecError.unreadableFormat("DNG")) { try ImageCodec.decode(dng) }
  }
}
