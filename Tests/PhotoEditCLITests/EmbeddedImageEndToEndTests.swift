import Codecs
import Foundation
import Testing

/// Issue 33 through the command line: photos that hide pictures of themselves in every place a
/// file can (Tests/TestSupport/EmbeddedImagesFixture.swift) are rendered by faceblur, by each
/// route, and by sepia; no render carries a picture but its own pixels, and a faceblur render
/// no MakerNote, while ICC, orientation 1 and the ordinary EXIF tags survive.
@Suite struct EmbeddedImageEndToEndTests {
  static func read(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  static func route(_ photo: String) throws -> String? {
    let json = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json")))
    return ((json as? [String: Any])?["render"] as? [String: Any])?["route"] as? String
  }

  /// No second SOI, no PNG inside, neither the hidden picture's bytes nor its base64, none of
  /// the segments that carry pictures.
  static func expectNoHiddenPicture(_ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let picture = try EmbeddedImagesFixture.picture()
    var secondSOI = false
    for i in 1..<(output.count - 2) where output[i] == 0xFF && output[i + 1] == 0xD8 && output[i + 2] == 0xFF
    {
      secondSOI = true
    }
    #expect(!secondSOI, "a second SOI", sourceLocation: sourceLocation)
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let pngs = (1..<max(1, output.count - 8)).filter { Array(output[$0..<($0 + 8)]) == png }
    #expect(pngs.isEmpty, "a PNG inside", sourceLocation: sourceLocation)
    let chunk = Array(picture[100..<164])
    let found = (0..<(output.count - chunk.count)).contains {
      output[$0] == chunk[0] && Array(output[$0..<($0 + 64)]) == chunk
    }
    #expect(!found, "the picture's bytes", sourceLocation: sourceLocation)
    #expect(
      !output.containsText(String(Data(picture.prefix(300)).base64EncodedString().prefix(40))),
      sourceLocation: sourceLocation)
    #expect(!output.containsText("/9j/"), sourceLocation: sourceLocation)
    for text in [
      "MPF\0", "FPXR", "JFXX", "http://ns.adobe.com/xmp/extension/", "GImage", "xmpGImg", "Thumbnails",
    ] {
      #expect(!output.containsText(text), "\(text) in the render", sourceLocation: sourceLocation)
    }
  }

  /// The EXIF of a render (JPEG APP1 or PNG eXIf), listed.
  static func exif(_ output: [UInt8]) throws -> TIFFListing {
    let tiff =
      output.starts(with: [0xFF, 0xD8])
      ? markerSegments(output).first { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif\0\0".utf8)) }
        .map { Array($0.payload.dropFirst(6)) }
      : pngChunks(output).first { $0.type == "eXIf" }?.data
    return try #require(tiff.flatMap(TIFFListing.init))
  }

  /// Make, model, date, exposure, orientation 1, the ICC profile, the XMP's title.
  static func expectOrdinaryMetadata(_ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let listing = try exif(output)
    #expect(listing.ifd0[0x010F]?.value == Array("Canon\0".utf8), sourceLocation: sourceLocation)
    #expect(
      listing.ifd0[0x0110]?.value == Array("Canon EOS 5D Mark IV\0".utf8), sourceLocation: sourceLocation)
    #expect(
      listing.exif[0x9003]?.value == Array("2024:06:01 12:34:56\0".utf8), sourceLocation: sourceLocation)
    #expect(listing.exif[0x829A] != nil, sourceLocation: sourceLocation)
    #expect(listing.nextAfterIFD0 == 0, sourceLocation: sourceLocation)
    #expect(try ImageCodec.readInfo(output).orientation == 1, sourceLocation: sourceLocation)
    let decoded = try ImageCodec.decode(output)
    let icc = try IdentifyingFixture.icc()
    if output.starts(with: [0xFF, 0xD8]) {
      #expect(decoded.metadata.icc == icc, sourceLocation: sourceLocation)
    } else {
      #expect(decoded.metadata.icc?.count == 3144, sourceLocation: sourceLocation)
    }
    #expect(output.containsText("Picnic by the lake"), sourceLocation: sourceLocation)
    #expect(output.containsText("<tiff:Orientation>1</tiff:Orientation>"), sourceLocation: sourceLocation)
  }

  @Test(arguments: [[], ["--quality", "85"]])
  func faceblurLeavesNoPictureOfTheOriginal(options: [String]) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try EmbeddedImagesFixture.jpeg(orientation: 1))
    let r = runCLI(["apply", "--filter", "faceblur"] + options + [photo])
    #expect(r.status == 0, "\(r.err)")
    #expect(try Self.route(photo) == (options.isEmpty ? "lossless" : "reencode"))
    let output = try Self.read(photo)
    try Self.expectNoHiddenPicture(output)
    try Self.expectOrdinaryMetadata(output)
    #expect(try Self.exif(output).exif[0x927C] == nil)
    #expect(!output.containsText(EmbeddedImagesFixture.makerNoteText))
    // The JFIF segment the splice copies has no thumbnail (its width and height are 0).
    let jfif = try #require(markerSegments(output).first { $0.marker == 0xE0 })
    #expect(jfif.payload.count == 14 && jfif.payload.suffix(2) == [0, 0])
  }

  @Test func faceblurOfATurnedPhotoLeavesNoPictureOfTheOriginal() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try EmbeddedImagesFixture.jpeg(orientation: 6, makerNotePicture: false))
    let r = runCLI(["apply", "--filter", "faceblur", photo])
    #expect(r.status == 0, "\(r.err)")
    let output = try Self.read(photo)
    try Self.expectNoHiddenPicture(output)
    try Self.expectOrdinaryMetadata(output)
    #expect(!output.containsText(EmbeddedImagesFixture.makerNoteText))
  }

  @Test(arguments: ["iTXt", "zTXt"])
  func faceblurOfAPNGLeavesNoPictureOfTheOriginal(xmpIn chunk: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = folder.path("photo.png")
    folder.write("photo.png", try EmbeddedImagesFixture.png(xmpIn: chunk))
    let r = runCLI(["apply", "--filter", "faceblur", photo])
    #expect(r.status == 0, "\(r.err)")
    let output = try Self.read(photo)
    try Self.expectNoHiddenPicture(output)
    try Self.expectOrdinaryMetadata(output)
    #expect(try Self.exif(output).exif[0x927C] == nil)
    #expect(!output.containsText(EmbeddedImagesFixture.makerNoteText))
  }

  /// A render that hides no face keeps the MakerNote, and still no picture.
  @Test func sepiaKeepsTheMakerNoteButNoPicture() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try EmbeddedImagesFixture.jpeg(makerNotePicture: false))
    let r = runCLI(["apply", "--filter", "sepia", photo])
    #expect(r.status == 0, "\(r.err)")
    let output = try Self.read(photo)
    try Self.expectNoHiddenPicture(output)
    try Self.expectOrdinaryMetadata(output)
    let makerNote = try #require(try Self.exif(output).exif[0x927C])
    #expect(makerNote.value == Array(EmbeddedImagesFixture.makerNoteText.utf8) + [0, 0])
    // Then faceblur on top: the MakerNote goes.
    #expect(runCLI(["apply", "--filter", "faceblur", photo]).status == 0)
    let blurred = try Self.read(photo)
    try Self.expectNoHiddenPicture(blurred)
    #expect(try Self.exif(blurred).exif[0x927C] == nil)
  }
}
