import Testing

@testable import PhotoCore

@Suite struct VignetteTests {
  /// The documented formula, in Double.
  static func reference(_ image: Image, intensity: Double, radius: Double) -> Image {
    let (w, h) = (Double(image.width), Double(image.height))
    let reach = radius * (w * w + h * h).squareRoot() / 2
    var out = image
    for y in 0..<image.height {
      for x in 0..<image.width {
        let dx = Double(x) - (w - 1) / 2
        let dy = Double(y) - (h - 1) / 2
        let u = min((dx * dx + dy * dy).squareRoot() / reach, 1)
        let f = 1 - intensity * (3 * u * u - 2 * u * u * u)
        let p = image[x, y]
        out[x, y] = RGBA(
          roundHalfUp(Double(p.r) * f), roundHalfUp(Double(p.g) * f), roundHalfUp(Double(p.b) * f), p.a)
      }
    }
    return out
  }

  @Test(arguments: [(1.0, 1.0), (0.5, 0.7), (0.3, 2.0), (1.0, 0.2)])
  func matchesReference(intensity: Double, radius: Double) {
    let image = noiseImage(width: 81, height: 52, seed: 4, opaque: false)
    var fast = image
    fast.applyVignette(intensity: intensity, radius: radius)
    #expect(maxDifference(fast, Self.reference(image, intensity: intensity, radius: radius)) <= 1)
  }

  @Test func centreUnchangedMonotoneAndSymmetric() {
    let grey = Image(width: 101, height: 61, fill: RGBA(200, 200, 200))
    var v = grey
    v.applyVignette(intensity: 1, radius: 1)
    #expect(v[50, 30] == RGBA(200, 200, 200))
    // Brightness never increases outward, along a row, a column and the diagonal.
    for x in 51..<101 { #expect(v[x, 30].r <= v[x - 1, 30].r) }
    for y in 31..<61 { #expect(v[50, y].r <= v[50, y - 1].r) }
    for k in 1..<30 { #expect(v[50 + k, 30 + k].r <= v[49 + k, 29 + k].r) }
    #expect(v[100, 60].r < 200)
    // Mirror symmetry about both centre lines.
    #expect(v.flipped(horizontally: true) == v)
    #expect(v.flipped(horizontally: false) == v)
  }

  /// A tall image with an odd height splits over several workers, each handling mirrored row
  /// pairs, and the middle row and column; it still matches the formula.
  @Test(arguments: [(1.0, 1.0), (0.6, 0.5)])
  func manyRowsMatchReference(intensity: Double, radius: Double) {
    let image = noiseImage(width: 67, height: 301, seed: 12, opaque: false)
    var fast = image
    fast.applyVignette(intensity: intensity, radius: radius)
    #expect(maxDifference(fast, Self.reference(image, intensity: intensity, radius: radius)) <= 1)
    #expect(stride(from: 3, to: image.bytes.count, by: 4).allSatisfy { fast.bytes[$0] == image.bytes[$0] })
  }

  @Test func intensityZeroAndOnePixel() throws {
    let image = noiseImage(width: 40, height: 30)
    #expect(try apply("vignette", ["intensity": .number(0)], to: image).bytes == image.bytes)
    let one = Image(width: 1, height: 1, fill: RGBA(90, 80, 70))
    #expect(try apply("vignette", to: one) == one)
  }
}
