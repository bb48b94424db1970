import Foundation
import PhotoCore
@_exported import TestSupport
import Testing

@testable import Codecs

/// Names of the fixtures in a folder with an extension, sorted.
func fixtureNames(in folder: String, suffix: String) -> [String] {
  let names =
    (try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent(folder).path))
    ?? []
  return names.filter { $0.hasSuffix(suffix) }.sorted()
}

/// Mean absolute difference per RGB sample (alpha ignored), in 8-bit units.
func meanDifference(_ a: Image, _ b: Image) -> Double {
  precondition(a.width == b.width && a.height == b.height, "sizes differ")
  var total = 0
  for i in stride(from: 0, to: a.bytes.count, by: 4) {
    for c in 0..<3 { total += abs(Int(a.bytes[i + c]) - Int(b.bytes[i + c])) }
  }
  return Double(total) / Double(a.width * a.height * 3)
}

/// Expects two images of one size within a mean difference; on failure writes both as PNG under
/// .build/test-failures/ for a look.
func expectSimilar(
  _ actual: Image, _ expected: Image, meanError: Double, name: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(actual.width == expected.width && actual.height == expected.height, sourceLocation: sourceLocation)
  guard actual.width == expected.width && actual.height == expected.height else { return }
  let difference = meanDifference(actual, expected)
  #expect(difference <= meanError, "\(name): mean difference \(difference)", sourceLocation: sourceLocation)
  if difference > meanError {
    let folder = fixtures.deletingLastPathComponent().appendingPathComponent(".build/test-failures")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (image, suffix) in [(actual, "actual"), (expected, "expected")] {
      if let png = try? ImageCodec.encode(image, as: .png) {
        _ = FileManager.default.createFile(
          atPath: folder.appendingPathComponent("\(name).\(suffix).png").path, contents: Data(png))
      }
    }
  }
}

/// A binary PPM (P6, maxval 255) as an opaque image.
func decodePPM(_ bytes: [UInt8]) -> Image? {
  var fields: [Int] = []
  var i = 2
  guard bytes.count > 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "6") else { return nil }
  while fields.count < 3 && i < bytes.count {
    if bytes[i] == UInt8(ascii: "#") {
      while i < bytes.count && bytes[i] != 10 { i += 1 }
    } else if (48...57).contains(bytes[i]) {
      var n = 0
      while i < bytes.count, (48...57).contains(bytes[i]) {
        n = n * 10 + Int(bytes[i] - 48)
        i += 1
      }
      fields.append(n)
      continue
    }
    i += 1
  }
  i += 1  // the single whitespace byte after maxval
  let (w, h) = (fields[0], fields[1])
  guard fields[2] == 255, bytes.count >= i + w * h * 3 else { return nil }
  var rgba = [UInt8](repeating: 255, count: w * h * 4)
  for p in 0..<(w * h) {
    for c in 0..<3 { rgba[p * 4 + c] = bytes[i + p * 3 + c] }
  }
  return Image(width: w, height: h, bytes: rgba)
}

extension Array where Element == UInt8 {
  /// True when `needle` occurs anywhere.
  func contains(bytes needle: [UInt8]) -> Bool {
    guard needle.count <= count else { return false }
    return (0...(count - needle.count)).contains { i in
      self[i] == needle[0] && Array(self[i..<(i + needle.count)]) == needle
    }
  }
}

extension ImageInfo {
  /// The format, size and orientation only (the decoder buffers left at their defaults), to
  /// compare with `ImageInfo(format:width:height:orientation:)`.
  var sizeAndOrientation: ImageInfo {
    ImageInfo(format: format, width: width, height: height, orientation: orientation)
  }
}
