import PhotoCore
import Testing

@testable import Codecs

/// `ImageMetadata.removingIdentifying()` and the encoders with `.stripped`, byte for byte on the
/// identifying fixture (Tests/TestSupport/IdentifyingFixture.swift).
@Suite struct IdentifyingMetadataTests {
  @Test(arguments: [true, false])
  func exifKeepsOnlyTheListedTags(littleEndian: Bool) throws {
    let input = IdentifyingFixture.exifTIFF(littleEndian: littleEndian)
    let stripped = try #require(EXIF.withoutIdentifying(input))
    #expect(stripped == IdentifyingFixture.strippedEXIF(littleEndian: littleEndian))
    for secret in IdentifyingFixture.secrets { #expect(!stripped.containsText(secret), "\(secret)") }
    #expect(!stripped.containsText("THUMBNAIL"))
    // The input had them all.
    #expect(
      input.containsText("012345678901") && input.containsText("THUMBNAIL") && input.containsText("48.8566"))
  }

  @Test func strippingTwiceGivesTheSameBytes() throws {
    let once = try #require(EXIF.withoutIdentifying(IdentifyingFixture.exifTIFF(littleEndian: true)))
    #expect(EXIF.withoutIdentifying(once) == once)
    #expect(EXIF.rendered(once, keepingMakerNote: true) == once)
    let metadata = try Self.metadata().removingIdentifying()
    #expect(metadata.removingIdentifying() == metadata)
  }

  /// A fixed-length string with no room for its NUL (the Interoperability index `R98.`, 4 bytes
  /// where `R98` and a NUL belong) is dropped rather than given a NUL it has no room for: the
  /// result strips to itself again (a fuzzer's finding: it was kept 5 bytes long the first time
  /// and dropped the second).
  @Test(arguments: [true, false])
  func aFixedStringWithoutItsNULIsDropped(littleEndian: Bool) throws {
    let input = writeTIFF(
      littleEndian: littleEndian, ifd0: [TIFFTag(0x010f, .ascii("Canon"))],
      exif: [TIFFTag(0x9000, .raw(type: 7, Array("0232".utf8)))],
      interop: [
        TIFFTag(0x0001, .raw(type: 2, Array("R98.".utf8))),
        TIFFTag(0x0002, .raw(type: 7, Array("0100".utf8))),
      ])
    let once = try #require(EXIF.withoutIdentifying(input))
    #expect(EXIF.withoutIdentifying(once) == once)
    #expect(!once.indices.dropLast(3).contains { Array(once[$0..<($0 + 4)]) == Array("R98.".utf8) })
    #expect(once.indices.dropLast(3).contains { Array(once[$0..<($0 + 4)]) == Array("0100".utf8) })
  }

  @Test(arguments: [3, 6, 8])
  func orientationBecomesOne(orientation: Int) throws {
    let input = IdentifyingFixture.exifTIFF(littleEndian: true, orientation: orientation)
    #expect(EXIF.orientation(in: input) == orientation)
    let stripped = try #require(EXIF.withoutIdentifying(input))
    #expect(EXIF.orientation(in: stripped) == 1)
    #expect(stripped == IdentifyingFixture.strippedEXIF(littleEndian: true))
  }

  @Test func unreadableOrEmptyEXIFIsDropped() {
    #expect(EXIF.withoutIdentifying([]) == nil)
    #expect(EXIF.withoutIdentifying(Array("II*\0\u{FF}\0\0\0".utf8)) == nil)
    // Nothing on the list: a GPS IFD alone.
    let gpsOnly = writeTIFF(
      littleEndian: true, ifd0: [TIFFTag(0x013B, .ascii("Alice"))], gps: [TIFFTag(1, .ascii("N"))])
    #expect(EXIF.withoutIdentifying(gpsOnly) == nil)
  }

  /// A GPS IFD named as the Interoperability IFD keeps nothing: the tag numbers are shared, the
  /// types and counts are not.
  @Test func gpsPointedAtAsInteroperabilityKeepsNothing() throws {
    let gps: [TIFFTag] = [
      TIFFTag(0x0001, .ascii("N")), TIFFTag(0x0002, .rationals([(48, 1), (51, 1), (2436, 100)])),
    ]
    let input = writeTIFF(
      littleEndian: true, ifd0: [TIFFTag(0x010F, .ascii("Canon"))],
      exif: [TIFFTag(0x829A, .rationals([(1, 125)]))], interop: gps)
    let stripped = try #require(EXIF.withoutIdentifying(input))
    #expect(
      stripped
        == writeTIFF(
          littleEndian: true, ifd0: [TIFFTag(0x010F, .ascii("Canon"))],
          exif: [TIFFTag(0x829A, .rationals([(1, 125)]))]))
  }

  /// Entries of a damaged file that all point at one large value would multiply it: such an
  /// EXIF is dropped rather than grown.
  @Test func sharedValuesDoNotMultiply() {
    var input = writeTIFF(
      littleEndian: true,
      ifd0: [TIFFTag(0x010F, .ascii(String(repeating: "x", count: 4000)))]
        + (0..<8).map {
          TIFFTag(0x0131 + $0 % 2, .ascii("y"))
        })
    // Point Model, Software and DateTime at Make's 4001 bytes.
    let makeValue = [UInt8](input[18..<22])
    for (tag, k) in [(0x0110, 1), (0x0131, 2), (0x0132, 3)] {
      let e = 10 + k * 12
      input.replaceSubrange(
        e..<(e + 12), with: [UInt8(tag & 0xFF), UInt8(tag >> 8), 2, 0, 0xA1, 0x0F, 0, 0] + makeValue)
    }
    #expect(EXIF.withoutIdentifying(input) == nil)
  }

  @Test func photoshopKeepsResolutionAndDatedIPTCOnly() {
    let stripped = PhotoshopResources.withoutIdentifying(IdentifyingFixture.photoshop)
    #expect(stripped == IdentifyingFixture.strippedPhotoshop)
    for secret in IdentifyingFixture.secrets { #expect(!stripped.containsText(secret), "\(secret)") }
    #expect(PhotoshopResources.withoutIdentifying(stripped) == stripped)
    // IPTC with nothing but its version and character set is dropped, and so is the block.
    let versionOnly = [0x1C, 2, 0, 0, 2, 0, 4] as [UInt8]
    #expect(IPTC.withoutIdentifying(versionOnly) == [])
    let block = Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, 7] + versionOnly + [0]
    #expect(PhotoshopResources.withoutIdentifying(block) == [])
    // An extended dataset (record 8's object data) is skipped, what follows it is read.
    let extended: [UInt8] = [0x1C, 8, 10, 0x80, 2, 0, 3, 1, 2, 3] + [0x1C, 2, 55, 0, 2, 0x32, 0x30]
    #expect(IPTC.withoutIdentifying(extended) == [0x1C, 2, 55, 0, 2, 0x32, 0x30])
  }

  static func metadata() throws -> ImageMetadata {
    var m = ImageMetadata()
    m.exif = IdentifyingFixture.exifTIFF(littleEndian: true)
    m.icc = try IdentifyingFixture.icc()
    m.xmp = IdentifyingFixture.xmp
    m.photoshop = IdentifyingFixture.photoshop
    m.comments = [IdentifyingFixture.comment]
    return m
  }

  @Test func metadataLosesXMPAndCommentsAndKeepsTheProfile() throws {
    let stripped = try Self.metadata().removingIdentifying()
    #expect(stripped.exif == IdentifyingFixture.strippedEXIF(littleEndian: true))
    #expect(stripped.icc == (try IdentifyingFixture.icc()))
    #expect(stripped.xmp == nil)
    #expect(stripped.photoshop == IdentifyingFixture.strippedPhotoshop)
    #expect(stripped.comments.isEmpty)
  }

  /// The JPEG decoded from the fixture, encoded whole and in bands with `.stripped`: the same
  /// metadata segments, exactly the expected ones.
  @Test func bothJPEGRoutesWriteTheSameStrippedSegments() throws {
    let input = try IdentifyingFixture.jpeg()
    let decoded = try ImageCodec.decode(input)
    var options = EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped)
    options.subsampling = .s420
    let whole = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
    let streamed = try #require(try JPEGBandRouteTests.render(input, options: options)).jpeg
    #expect(whole == streamed)
    let expected: [(UInt8, [UInt8])] = [
      (0xE1, Array("Exif\0\0".utf8) + IdentifyingFixture.strippedEXIF(littleEndian: true)),
      (0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + (try IdentifyingFixture.icc())),
      (0xED, Array("Photoshop 3.0\0".utf8) + IdentifyingFixture.strippedPhotoshop),
    ]
    let written = markerSegments(whole).filter { $0.marker >= 0xE1 && $0.marker <= 0xFE }
    #expect(written.map(\.marker) == expected.map(\.0))
    #expect(written.map(\.payload) == expected.map(\.1))
    for secret in IdentifyingFixture.secrets { #expect(!whole.containsText(secret), "\(secret)") }

    // Kept (the default): everything but the thumbnail, and the GPS with it.
    options.metadataPolicy = .kept
    let kept = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
    #expect(
      kept.containsText("012345678901") && kept.containsText("photoshop:City")
        && kept.containsText("Elm Street"))
    #expect(!kept.containsText("THUMBNAIL"))
  }

  @Test func pngGetsTheStrippedEXIFAndAProfileOfItsOwnName() throws {
    let input = try IdentifyingFixture.png()
    let decoded = try ImageCodec.decode(input)
    let inputChunks = pngChunks(input)
    #expect(
      inputChunks.contains { $0.type == "iCCP" && $0.data.starts(with: Array("Alice's monitor\0".utf8)) })
    let options = EncodeOptions(metadata: decoded.metadata, metadataPolicy: .stripped)
    let png = try ImageCodec.encode(decoded.image, as: .png, options: options)
    let chunks = pngChunks(png)
    let types = chunks.map(\.type).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
    #expect(types == ["IHDR", "iCCP", "eXIf", "IDAT", "IEND"])
    #expect(chunks.first { $0.type == "eXIf" }?.data == IdentifyingFixture.strippedEXIF(littleEndian: false))
    #expect(chunks.first { $0.type == "iCCP" }?.data.starts(with: Array("ICC profile\0".utf8)) == true)
    #expect(try ImageCodec.decode(png).metadata.icc == decoded.metadata.icc)
    #expect(decoded.metadata.icc != nil)
    for secret in IdentifyingFixture.secrets { #expect(!png.containsText(secret), "\(secret)") }
  }
}
