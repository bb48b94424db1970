import Codecs
import Foundation
import PhotoCore
@_exported import TestSupport

/// Debian's opencv-data cascade (`make test` installs the package); not copied into Fixtures.
let defaultCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

struct TestSetupError: Error, CustomStringConvertible {
  let description: String
}

/// The default frontal face cascade, parsed once.
let defaultCascade: Result<HaarCascade, any Error> = Result {
  guard let data = FileManager.default.contents(atPath: defaultCascadePath) else {
    throw TestSetupError(description: "\(defaultCascadePath) is missing: apt-get install opencv-data")
  }
  return try HaarCascade(xml: [UInt8](data))
}

/// Decodes a fixture photo upright, as `cv2.imread` (EXIF applied) does.
func decodedFixture(_ path: String) throws -> Image {
  try ImageCodec.decode(fixture(path)).image
}

/// Intersection over union of two boxes (pixels).
func iou(_ a: FaceBox, _ b: FaceBox) -> Double {
  let w = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
  let h = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
  guard w > 0, h > 0 else { return 0 }
  let inter = Double(w * h)
  return inter / (Double(a.width * a.height + b.width * b.height) - inter)
}

/// The size of a maximum one-to-one matching between `expected` and `found` in which paired boxes
/// overlap with IoU ≥ `threshold` (Kuhn's augmenting paths).
func oneToOneMatches(_ expected: [FaceBox], _ found: [FaceBox], threshold: Double = 0.7) -> Int {
  let edges = expected.map { e in found.indices.filter { iou(e, found[$0]) >= threshold } }
  var owner = [Int?](repeating: nil, count: found.count)
  func augment(_ i: Int, _ seen: inout [Bool]) -> Bool {
    for j in edges[i] where !seen[j] {
      seen[j] = true
      if owner[j] == nil || augment(owner[j]!, &seen) {
        owner[j] = i
        return true
      }
    }
    return false
  }
  var count = 0
  for i in expected.indices {
    var seen = [Bool](repeating: false, count: found.count)
    if augment(i, &seen) { count += 1 }
  }
  return count
}
