import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// Every bad input gets a clear error (never a crash, never padded pixels).
@Suite struct BadInputTests {
  static let badFiles: [(String, CodecError)] = [
    ("broken_data_stream.png", .corruptData(.png, "bad CRC in the IDAT chunk")),
    ("invalid-crc32.png", .corruptData(.png, "bad CRC in the IHDR chunk")),
    ("invalid-noend.png", .truncated(.png)),
    ("invalid-trunc.png", .truncated(.png)),
    ("invalid-zlib.png", .corruptData(.png, "IDAT: incorrect data check")),
    ("truncated_image.png", .truncated(.png)),
    ("truncated_jpeg.jpg", .truncated(.jpeg)),
    ("skimage-truncated.jpg", .truncated(.jpeg)),
    ("testorig12.jpg", .unsupported("12-bit JPEG (only 8-bit samples are supported)")),
  ]

  @Test func everyBadFixtureIsListed() {
    #expect(Set(fixtureNames(in: "bad", suffix: "g")) == Set(Self.badFiles.map(\.0)))
  }

  @Test(arguments: badFiles)
  func badFixtureGetsItsError(name: String, expected: CodecError) throws {
    let bytes = try fixture("bad/\(name)")
    #expect(throws: expected) { try ImageCodec.decode(bytes) }
    #expect(!expected.description.contains("\n"))
  }

  @Test func emptyFile() {
    #expect(throws: CodecError.empty) { try ImageCodec.decode([]) }
    #expect(throws: CodecError.empty) { try ImageCodec.readInfo([]) }
  }

  @Test func textNamedJPG() {
    let text = Array("This is not a photo, just some text.\n".utf8)
    #expect(throws: CodecError.notAnImage) { try ImageCodec.decode(text) }
    #expect(CodecError.notAnImage.description == "not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image")
  }

  @Test func headerClaiming65500SquaredIsRefusedBeforeAllocation() throws {
    var bytes = try fixture("jpeg/testorig.jpg")
    let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
    // SOF0: FF C0, length (2), precision (1), height (2), width (2).
    bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])
    let expected = CodecError.tooLarge(width: 65500, height: 65500, limit: 250_000_000)
    #expect(throws: expected) { try ImageCodec.decode(bytes) }
    #expect(
      expected.description
        == "image too large: 65500x65500 is 4290250000 pixels, more than the limit of 250000000")
    // The header itself is fine to read.
    #expect(try ImageCodec.readInfo(bytes).width == 65500)
    var options = DecodeOptions()
    options.maxPixels = 1000
    #expect(throws: CodecError.tooLarge(width: 227, height: 149, limit: 1000)) {
      try ImageCodec.decode(try fixture("jpeg/testorig.jpg"), options: options)
    }
    #expect(throws: CodecError.tooLarge(width: 512, height: 512, limit: 1000)) {
      try ImageCodec.decode(try fixture("faces/astronaut.png"), options: options)
    }
  }

  @Test(arguments: [0.3, 0.5, 0.9])
  func jpegCutInTheMiddleOfItsScan(fraction: Double) throws {
    let bytes = try fixture("jpeg/testorig.jpg")
    let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
    #expect(throws: CodecError.truncated(.jpeg)) { try ImageCodec.decode(cut) }
  }

  @Test func progressiveJPEGCutBetweenScans() throws {
    let bytes = try fixture("jpeg/icc_profile_big.jpg")
    let cut = Array(bytes.prefix(bytes.count - 200))
    #expect(throws: CodecError.truncated(.jpeg)) { try ImageCodec.decode(cut) }
  }

  @Test func corruptEntropyDataIsAnError() throws {
    // Overwrite part of the scan with a run of marker-like bytes: libjpeg only warns.
    var bytes = try fixture("jpeg/testorig.jpg")
    let middle = bytes.count / 2
    for i in middle..<(middle + 64) { bytes[i] = i % 2 == 0 ? 0xFF : 0xD3 }
    #expect(throws: CodecError.self) { try ImageCodec.decode(bytes) }
    // libjpeg only warns here (TJERR_WARNING); the message names what it saw.
    #expect(throws: CodecError.corruptData(.jpeg, "Unsupported JPEG process: SOF type 0xc8")) {
      try ImageCodec.decode(bytes)
    }
    // A harmless warning first (stray bytes before DQT) does not hide the damage after it.
    bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: 20)
    #expect(throws: CodecError.corruptData(.jpeg, "Unsupported JPEG process: SOF type 0xc8")) {
      try ImageCodec.decode(bytes)
    }
  }

  @Test func pngCutInHalf() throws {
    let bytes = try fixture("faces/astronaut.png")
    let half = Array(bytes.prefix(bytes.count / 2))
    #expect(throws: CodecError.truncated(.png)) { try ImageCodec.decode(half) }
    // libpng alone would read a file cut just before IEND; the chunk walk refuses it.
    let noEnd = Array(bytes.dropLast(12))
    #expect(throws: CodecError.truncated(.png)) { try ImageCodec.decode(noEnd) }
  }

  @Test func libpngWarningsAreNotErrors() throws {
    // A bad sRGB rendering intent and an iCCP holding no real profile: libpng only warns (and
    // ignores them); the pixels decode as without them, and the chunks are still carried.
    let original = try fixture("png/basn2c08.png")
    var chunks: [UInt8] = []
    PNGCodec.appendChunk("sRGB", [9], to: &chunks)
    let junkProfile = try #require(PNGCodec.iccpData(for: Array("not an ICC profile".utf8)))
    PNGCodec.appendChunk("iCCP", junkProfile, to: &chunks)
    var bytes = original
    bytes.insert(contentsOf: chunks, at: 33)  // after the signature and IHDR
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.image == (try ImageCodec.decode(original)).image)
    #expect(decoded.metadata.pngChunks.map(\.type) == ["sRGB", "iCCP", "gAMA"])  // file order
  }

  @Test func everyPrefixOfASmallFileFailsCleanly() throws {
    for path in ["jpeg/testorig.jpg", "png/basn3p08-trns.png"] {
      let bytes = try fixture(path)
      for length in stride(from: 0, to: bytes.count, by: 97) {
        #expect(throws: CodecError.self) { try ImageCodec.decode(Array(bytes.prefix(length))) }
      }
    }
  }

  @Test func flippedBytesNeverCrash() throws {
    // A fixed pseudo-random walk of single-byte changes; any outcome but a crash is fine.
    for path in ["jpeg/testorig.jpg", "jpeg/video-001.q50.420.progressive.jpeg", "png/basn6a16.png"] {
      let original = try fixture(path)
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      for _ in 0..<150 {
        var bytes = original
        for _ in 0..<4 {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          bytes[Int(state >> 33) % bytes.count] = UInt8(truncatingIfNeeded: state >> 17)
        }
        _ = try? ImageCodec.decode(bytes)
        _ = try? ImageCodec.readInfo(bytes)
      }
    }
  }

  @Test func messagesAreOneLineWithoutAFileName() {
    let errors: [CodecError] = [
      .empty, .notAnImage, .unreadableFormat("GIF"), .truncated(.jpeg), .truncated(.png),
      .corruptData(.png, "bad CRC in the IDAT chunk"),
      .unsupported("lossless JPEG"), .tooLarge(width: 2, height: 3, limit: 1), .encodingFailed(.jpeg, "x"),
    ]
    for error in errors {
      #expect(!error.description.isEmpty && !error.description.contains("\n"))
    }
    #expect(CodecError.truncated(.jpeg).description == "truncated JPEG (the file ends early)")
  }
}
