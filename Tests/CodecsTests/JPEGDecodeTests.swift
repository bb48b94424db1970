import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// JPEG edge cases against reference decodes. Bounds are fitted to what was measured with
/// libjpeg-turbo 2.1.5 (in the comments), with a little room.
@Suite struct JPEGDecodeTests {
  func decode(_ path: String) throws -> DecodedImage { try ImageCodec.decode(try fixture(path)) }

  @Test func baselineMatchesTheIJGReference() throws {
    let reference = try #require(decodePPM(try fixture("jpeg/testorig.ppm")))
    let decoded = try decode("jpeg/testorig.jpg")
    #expect(decoded.subsampling == .s420)
    expectSimilar(decoded.image, reference, meanError: 0.4, name: "testorig")  // measured 0.19
  }

  @Test func arithmeticCodedMatchesTheIJGReference() throws {
    let reference = try #require(decodePPM(try fixture("jpeg/testorig.ppm")))
    expectSimilar(try decode("jpeg/testimgari.jpg").image, reference, meanError: 0.8, name: "testimgari")  // 0.47
  }

  /// (file, reference, bound): Go's decodes; the q50 files are lossier, so looser.
  static let goCases: [(String, String, Double)] = [
    ("video-001.jpeg", "video-001.png", 0.8),  // measured 0.42
    ("video-001.cmyk.jpeg", "video-001.cmyk.png", 0.5),  // 0.24: Adobe inverted CMYK
    ("video-005.gray.jpeg", "video-005.gray.png", 1.2),  // 0.80
    ("video-001.rgb.jpeg", "video-001.png", 8.5),  // 7.80: RGB stored with 4:2:0 (ImageMagick: 7.8)
    ("video-001.progressive.truncated.jpeg", "video-001.png", 12.5),  // 11.5: fewer scans
    ("video-001.q50.410.progressive.jpeg", "video-001.png", 8.0),  // 7.38
    ("video-001.q50.411.progressive.jpeg", "video-001.png", 7.5),  // 6.91
    ("video-001.q50.420.progressive.jpeg", "video-001.png", 7.0),  // 6.33
    ("video-001.q50.422.progressive.jpeg", "video-001.png", 6.5),  // 5.88
    ("video-001.q50.440.progressive.jpeg", "video-001.png", 6.5),  // 5.91
    ("video-001.q50.444.progressive.jpeg", "video-001.png", 6.0),  // 5.28
  ]

  @Test(arguments: goCases)
  func matchesGosDecode(file: String, reference: String, bound: Double) throws {
    let expected = try decode("jpeg/\(reference)").image
    let decoded = try decode("jpeg/\(file)")
    #expect(decoded.warnings.isEmpty)
    expectSimilar(decoded.image, expected, meanError: bound, name: file)
  }

  @Test func fourOneZeroTakesItsSizeFromOurOwnFrameParse() throws {
    // tjDecompressHeader3 refuses 4:1:0; the SOF says 150x103.
    let decoded = try decode("jpeg/video-001.q50.410.progressive.jpeg")
    #expect(decoded.image.width == 150 && decoded.image.height == 103)
    #expect(decoded.subsampling == nil)
    #expect(try ImageCodec.readInfo(try fixture("jpeg/video-001.q50.410.progressive.jpeg")).width == 150)
  }

  @Test(arguments: [
    ("video-001.q50.444.progressive.jpeg", ChromaSubsampling.s444),
    ("video-001.q50.422.progressive.jpeg", .s422), ("video-001.q50.420.progressive.jpeg", .s420),
  ])
  func reportsTheInputsSubsampling(file: String, expected: ChromaSubsampling) throws {
    #expect(try decode("jpeg/\(file)").subsampling == expected)
  }

  @Test func greyscaleDecodesToEqualChannels() throws {
    let image = try decode("jpeg/hopper_gray.jpg").image
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
      #expect(image.bytes[i] == image.bytes[i + 1] && image.bytes[i + 1] == image.bytes[i + 2])
      if image.bytes[i] != image.bytes[i + 2] { break }
    }
  }

  @Test func ycckFromPhotoshopMatchesImageMagicksColours() throws {
    // ImageMagick 7 (-colorspace sRGB) gives mean R, G, B = 30.47, 5.56, 7.04 for this file;
    // a wrong inversion would put the means near 225.
    let image = try decode("jpeg/pil_sample_cmyk.jpg").image
    var sums = [0.0, 0.0, 0.0]
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
      for c in 0..<3 { sums[c] += Double(image.bytes[i + c]) }
    }
    let means = sums.map { $0 / Double(image.width * image.height) }
    #expect(
      abs(means[0] - 30.47) < 1.5 && abs(means[1] - 5.56) < 1.5 && abs(means[2] - 7.04) < 1.5, "\(means)")
    #expect(image.isOpaque)
  }

  @Test func extraneousBytesBeforeAMarkerAreAWarningNotAnError() throws {
    // Camera files often have stray bytes between segments; libjpeg warns and the pixels are
    // fine. Put three after the JFIF APP0 segment (bytes 2..<20), before DQT.
    var bytes = try fixture("jpeg/testorig.jpg")
    #expect(bytes[20] == 0xFF && bytes[21] == 0xDB)
    bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: 20)
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.warnings.count == 1)
    #expect(decoded.warnings.first?.contains("extraneous bytes") == true)
    let clean = try decode("jpeg/testorig.jpg")
    #expect(decoded.image == clean.image)
  }
}
