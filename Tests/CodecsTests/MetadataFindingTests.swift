import Testing

@testable import Codecs

/// What `photoedit audit` reads in a file's own bytes: every kind of hidden picture and
/// identifying field the render allow-lists and `--strip-identifying` drop, by name; and
/// nothing at all in a render made with `--strip-identifying`.
@Suite struct MetadataFindingTests {
  static func names(_ found: [MetadataFinding], _ kind: MetadataFinding.Kind) -> Set<String> {
    Set(found.filter { $0.kind == kind }.map { "\($0.container) \($0.name)" })
  }

  @Test func everyHiddenPictureOfAJPEGIsFound() throws {
    let found = ImageCodec.metadataFindings(in: try EmbeddedImagesFixture.jpeg())
    let images = Self.names(found, .embeddedImage)
    for expected in [
      "JPEG JFIF thumbnail", "JPEG JFXX thumbnail", "EXIF thumbnail (IFD1)", "EXIF MakerNote preview",
      "XMP xmp:Thumbnails", "XMP GImage:Data", "JPEG extended XMP", "JPEG MPF (pictures after the image)",
      "JPEG FlashPix", "Photoshop thumbnail (resource 0x040C)", "IPTC preview (2:202)",
      "JPEG data after the end of the image",
    ] {
      #expect(images.contains(expected), "\(expected) in \(images)")
    }
    #expect(Self.names(found, .metadata).contains("EXIF GPSLatitudeRef"))
  }

  @Test func everyHiddenPictureOfAPNGIsFound() throws {
    let found = ImageCodec.metadataFindings(in: try EmbeddedImagesFixture.png())
    let images = Self.names(found, .embeddedImage)
    for expected in ["EXIF thumbnail (IFD1)", "XMP xmp:Thumbnails", "PNG tEXt 'Comment'"] {
      #expect(images.contains(expected), "\(expected) in \(images)")
    }
  }

  /// A render carries no picture but its own, whatever metadata it keeps: audit finds no
  /// embedded image in it (its identifying metadata, kept, is still named).
  @Test func aRenderHasNoEmbeddedImage() throws {
    for bytes in [try EmbeddedImagesFixture.jpeg(), try EmbeddedImagesFixture.png()] {
      let decoded = try ImageCodec.decode(bytes)
      for format in ImageFormat.allCases {
        let render = try ImageCodec.encode(
          decoded.image, as: format, options: EncodeOptions(metadata: decoded.metadata))
        let found = ImageCodec.metadataFindings(in: render)
        #expect(Self.names(found, .embeddedImage).isEmpty, "\(format): \(found)")
        #expect(!Self.names(found, .metadata).isEmpty, "\(format)")
      }
    }
  }

  @Test func identifyingFieldsAreNamedAndAStrippedRenderHasNone() throws {
    let jpeg = try IdentifyingFixture.jpeg()
    let found = ImageCodec.metadataFindings(in: jpeg)
    let tags = Self.names(found, .metadata)
    for expected in [
      "EXIF Artist", "EXIF CameraSerialNumber", "EXIF BodySerialNumber", "EXIF CameraOwnerName",
      "EXIF GPSLatitude",
      "EXIF MakerNote", "EXIF OffsetTimeOriginal", "XMP dc:creator", "XMP photoshop:City",
      "XMP xmpMM:History",
      "IPTC By-line (2:80)", "IPTC City (2:90)", "JPEG comment",
    ] {
      #expect(tags.contains(expected), "\(expected) in \(tags)")
    }
    // Make, model, dates and the ICC profile are no finding.
    let plain = tags.intersection(
      [
        "EXIF Make", "EXIF Model", "EXIF DateTime", "EXIF DateTimeOriginal", "EXIF LensMake",
        "EXIF LensModel",
      ])
    #expect(plain.isEmpty, "\(plain)")

    let decoded = try ImageCodec.decode(jpeg)
    var options = EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped)
    options.quality = 90
    let stripped = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
    #expect(ImageCodec.metadataFindings(in: stripped) == [])
  }

  /// Hostile bytes: every cut of the fixtures, and bytes flipped all through them (lengths,
  /// offsets, counts, signatures), are read without a crash or a hang; a cut JPEG still names
  /// what its whole segments hold.
  @Test func cutAndDamagedFilesAreReadSafely() throws {
    let files = [
      try EmbeddedImagesFixture.jpeg(), try EmbeddedImagesFixture.png(), try IdentifyingFixture.jpeg(),
      try IdentifyingFixture.png(),
    ]
    for bytes in files {
      for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
        _ = ImageCodec.metadataFindings(in: Array(bytes[..<cut]))
      }
      var random = SplitMix(seed: UInt64(bytes.count))
      for _ in 0..<200 {
        var damaged = bytes
        for _ in 0..<8 {
          damaged[Int(random.next() % UInt64(min(damaged.count, 4096)))] = UInt8(
            truncatingIfNeeded: random.next())
        }
        _ = ImageCodec.metadataFindings(in: damaged)
      }
    }
    let jpeg = try EmbeddedImagesFixture.jpeg()
    let cut = Array(jpeg[..<(jpeg.count / 2)])
    #expect(Self.names(ImageCodec.metadataFindings(in: cut), .embeddedImage).contains("JPEG JFXX thumbnail"))
  }
}
