import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// The expected RGBA of a PngSuite file, from its .sng text dump (Go's testdata format: grey
/// below 8 bits is already widened to 8; palette indices are packed at the file's bit depth).
func expectedImage(fromSNG text: String) -> Image? {
  var width = 0
  var height = 0
  var depth = 8
  var mode = ""
  var palette: [[UInt8]] = []
  var transparency: [UInt8] = []
  var rows: [[UInt8]] = []
  var section = ""
  for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
    let line = rawLine.trimmingCharacters(in: .whitespaces)
    if line.hasSuffix("{") || line.contains("{") {
      section = String(line.prefix(while: { $0 != " " && $0 != "{" }))
    }
    func number(after key: String) -> Int? {
      guard let r = line.range(of: key + ": ") else { return nil }
      return Int(line[r.upperBound...].prefix(while: \.isNumber))
    }
    switch section {
    case "IHDR":
      width = number(after: "width") ?? width
      height = number(after: "height") ?? height
      depth = number(after: "bitdepth") ?? depth
      if line.hasPrefix("using ") { mode = String(line.dropFirst(6).dropLast()) }
    case "PLTE" where line.hasPrefix("("):
      let inside = line.dropFirst().prefix(while: { $0 != ")" })
      palette.append(
        inside.split(separator: ",").compactMap { UInt8($0.trimmingCharacters(in: .whitespaces)) })
    case "tRNS":
      let body = line.replacingOccurrences(of: "tRNS", with: "").replacingOccurrences(of: "{", with: "")
        .replacingOccurrences(of: "}", with: "")
      transparency += body.split(separator: " ").compactMap { UInt8($0) }
    case "IMAGE" where !line.isEmpty && !line.hasPrefix("IMAGE") && !line.hasPrefix("pixels") && line != "}":
      let hex = Array(line.replacingOccurrences(of: " ", with: "").utf8)
      rows.append(
        stride(from: 0, to: hex.count - 1, by: 2).map {
          UInt8(String(decoding: hex[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
        })
    default: break
    }
    if line.hasSuffix("}") && !line.hasPrefix("(") { section = "" }
  }
  guard width > 0, rows.count == height else { return nil }
  var out: [UInt8] = []
  for row in rows {
    if mode == "color palette" {
      for x in 0..<width {
        let bit = x * depth
        let index = Int(row[bit / 8] >> UInt8(8 - depth - bit % 8)) & ((1 << depth) - 1)
        out += palette[index] + [index < transparency.count ? transparency[index] : 255]
      }
      continue
    }
    let channels = ["grayscale": 1, "grayscale alpha": 2, "color": 3, "color alpha": 4][mode]!
    let bytesPerSample = depth / 8
    func sample(_ x: Int, _ c: Int) -> UInt8 {
      let i = (x * channels + c) * bytesPerSample
      if bytesPerSample == 1 { return row[i] }
      let v = Double(Int(row[i]) << 8 | Int(row[i + 1]))
      return UInt8((v / 257).rounded())
    }
    for x in 0..<width {
      switch channels {
      case 1: out += [sample(x, 0), sample(x, 0), sample(x, 0), 255]
      case 2: out += [sample(x, 0), sample(x, 0), sample(x, 0), sample(x, 1)]
      case 3: out += [sample(x, 0), sample(x, 1), sample(x, 2), 255]
      default: out += [sample(x, 0), sample(x, 1), sample(x, 2), sample(x, 3)]
      }
    }
  }
  return Image(width: width, height: height, bytes: out)
}

@Suite struct PNGSuiteTests {
  static let basicFiles = fixtureNames(in: "png", suffix: ".sng").map { String($0.dropLast(4)) }

  @Test func theSuiteIsThere() {
    #expect(Self.basicFiles.count >= 20)
  }

  @Test(arguments: basicFiles)
  func decodesToTheValuesTheSNGDumpGives(name: String) throws {
    let text = String(decoding: try fixture("png/\(name).sng"), as: UTF8.self)
    let expected = try #require(expectedImage(fromSNG: text))
    let decoded = try ImageCodec.decode(try fixture("png/\(name).png"))
    #expect(decoded.format == .png)
    #expect(decoded.image.width == expected.width && decoded.image.height == expected.height)
    let mismatches = zip(decoded.image.bytes, expected.bytes).filter { $0 != $1 }.count
    #expect(mismatches == 0, "\(name): \(mismatches) bytes differ")
  }

  /// Interlaced (Adam7) files hold the same pixels as their basic twins; the 16-bit ones are the
  /// files libpng's simplified API reads wrongly.
  @Test(arguments: ["0g08", "0g16", "2c08", "2c16", "3p08", "4a08", "4a16", "6a08", "6a16"])
  func interlacedMatchesBasic(kind: String) throws {
    let interlaced = try ImageCodec.decode(try fixture("png/ibasn\(kind).png")).image
    let basic = try ImageCodec.decode(try fixture("png/basn\(kind).png")).image
    #expect(interlaced == basic)
  }

  @Test func sixteenBitSamplesAreRoundedNotTruncated() throws {
    // basn0g16's first row holds 0x8700 at x = 15: 34560 / 257 = 134.47 rounds to 134, where
    // keeping the high byte would give 0x87 = 135. 515 samples of this file differ that way.
    let image = try ImageCodec.decode(try fixture("png/basn0g16.png")).image
    #expect(image[15, 0] == RGBA(134, 134, 134, 255))
  }

  @Test func gammaIsNotApplied() throws {
    // basn0g08 has gAMA 1.0 and a ramp 0...255 along the rows; values must stay as stored.
    let decoded = try ImageCodec.decode(try fixture("png/basn0g08.png"))
    #expect(decoded.metadata.pngChunks.map(\.type) == ["gAMA"])
    #expect(decoded.image[0, 0].r == 0)
    #expect(decoded.image[1, 0].r == 1)
  }
}
