@testable import PhotoCore

/// A deterministic pseudo-random generator (SplitMix64), so test images are the same every run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// An image of random bytes; alpha random too unless `opaque`.
func noiseImage(width: Int, height: Int, seed: UInt64 = 1, opaque: Bool = true) -> Image {
  var rng = SplitMix(seed: seed)
  var bytes = [UInt8](repeating: 0, count: width * height * 4)
  for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
  if opaque { for i in stride(from: 3, to: bytes.count, by: 4) { bytes[i] = 255 } }
  return Image(width: width, height: height, bytes: bytes)
}

/// A context whose cascade cannot be loaded (for filters that never detect).
let noCascade = FilterContext(cascade: { throw CascadeError("no cascade in this test") })

/// The largest difference between two images' bytes.
func maxDifference(_ a: Image, _ b: Image) -> Int {
  precondition(a.width == b.width && a.height == b.height)
  var m = 0
  for i in a.bytes.indices { m = max(m, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
  return m
}

/// Reads no file; fails the test if called.
func noFiles(_ path: String) throws -> [UInt8] { throw CascadeError("unexpected read of \(path)") }

/// Parses, resolves against `image` and renders one filter word.
func apply(_ word: String, to image: Image, readFile: (String) throws -> [UInt8] = noFiles) throws -> Image {
  let op = try Filters.parse(word, readFile: readFile).resolve(for: image, context: noCascade)
  var out = image
  try Filters.render(op, on: &out, context: noCascade)
  return out
}

func roundHalfUp(_ v: Double) -> UInt8 { UInt8(min(max((v + 0.5).rounded(.down), 0), 255)) }
