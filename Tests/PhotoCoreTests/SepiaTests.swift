import Testing

@testable import PhotoCore

@Suite struct SepiaTests {
  /// The issue's formula, in Double, one pixel at a time.
  static func reference(_ image: Image, intensity t: Double) -> Image {
    var out = image
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image[x, y]
        let (r, g, b) = (Double(p.r), Double(p.g), Double(p.b))
        let s = [
          min(255, 0.393 * r + 0.769 * g + 0.189 * b),
          min(255, 0.349 * r + 0.686 * g + 0.168 * b),
          min(255, 0.272 * r + 0.534 * g + 0.131 * b),
        ]
        out[x, y] = RGBA(
          roundHalfUp((1 - t) * r + t * s[0]), roundHalfUp((1 - t) * g + t * s[1]),
          roundHalfUp((1 - t) * b + t * s[2]), p.a)
      }
    }
    return out
  }

  @Test(arguments: [0.25, 0.5, 0.8, 1.0]) func matchesReference(intensity: Double) {
    let image = noiseImage(width: 97, height: 61, seed: 3, opaque: false)
    let fast = image.sepiaToned(intensity: intensity)
    #expect(maxDifference(fast, Self.reference(image, intensity: intensity)) <= 1)
    // Alpha is untouched.
    for i in stride(from: 3, to: image.bytes.count, by: 4) where fast.bytes[i] != image.bytes[i] {
      Issue.record("alpha changed at byte \(i)")
      break
    }
  }

  @Test func fullSepiaOfWhiteAndBlack() {
    var image = Image(width: 2, height: 1, fill: RGBA(255, 255, 255))
    image[1, 0] = RGBA(0, 0, 0)
    image.applySepia(intensity: 1)
    // White: rows sum to 1.351, 1.203, 0.937 → 255, 255, round(238.935) = 239.
    #expect(image[0, 0] == RGBA(255, 255, 239))
    #expect(image[1, 0] == RGBA(0, 0, 0))
  }

  @Test func intensityZeroIsIdentical() throws {
    let image = noiseImage(width: 33, height: 17)
    #expect(image.sepiaToned(intensity: 0).bytes == image.bytes)
    #expect(try apply("sepia", ["intensity": .number(0)], to: image).bytes == image.bytes)
  }

  @Test func onePixel() {
    let image = Image(width: 1, height: 1, fill: RGBA(10, 200, 30, 7))
    #expect(image.sepiaToned(intensity: 1) == Self.reference(image, intensity: 1))
  }

  /// Every colour on a 4-level grid of the RGB cube (including 0 and 255), at several intensities,
  /// is within one level of the formula and keeps its alpha.
  @Test(arguments: [0.01, 0.3, 0.8, 1.0]) func colourCubeWithinOneLevel(intensity: Double) {
    let levels = Array(stride(from: 0, through: 255, by: 4)) + [255]
    var image = Image(width: levels.count * levels.count, height: levels.count)
    for (y, b) in levels.enumerated() {
      for (i, r) in levels.enumerated() {
        for (j, g) in levels.enumerated() {
          image[i * levels.count + j, y] = RGBA(UInt8(r), UInt8(g), UInt8(b), UInt8((i * 7 + j) & 255))
        }
      }
    }
    let fast = image.sepiaToned(intensity: intensity)
    #expect(maxDifference(fast, Self.reference(image, intensity: intensity)) <= 1)
    #expect(stride(from: 3, to: image.bytes.count, by: 4).allSatisfy { fast.bytes[$0] == image.bytes[$0] })
  }

  /// The filter runs the same kernel: a large image splits over workers and gives the same bytes.
  @Test func filterMatchesKernelOnManyRows() throws {
    let image = noiseImage(width: 64, height: 300, seed: 9)
    #expect(try apply("sepia", ["intensity": .number(0.8)], to: image) == image.sepiaToned(intensity: 0.8))
    #expect(maxDifference(image.sepiaToned(intensity: 0.8), Self.reference(image, intensity: 0.8)) <= 1)
  }
}

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
