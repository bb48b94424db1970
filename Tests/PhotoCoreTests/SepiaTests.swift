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
