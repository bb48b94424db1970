import Testing

@testable import PhotoCore

@Suite struct PixelateTests {
  /// Slow and obvious: group the region's pixels by block, average, write back.
  static func reference(_ image: Image, _ region: PixelRegion, block: Int) -> Image {
    guard let b = region.bounds else { return image }
    var sums: [[Int]: [Int]] = [:]
    for y in 0..<image.height {
      for x in 0..<image.width where region.contains(x: x, y: y) {
        let key = [(x - b.x0) / block, (y - b.y0) / block]
        let p = image[x, y]
        let s = sums[key] ?? [0, 0, 0, 0, 0]
        sums[key] = [s[0] + Int(p.r), s[1] + Int(p.g), s[2] + Int(p.b), s[3] + Int(p.a), s[4] + 1]
      }
    }
    var out = image
    for y in 0..<image.height {
      for x in 0..<image.width where region.contains(x: x, y: y) {
        let s = sums[[(x - b.x0) / block, (y - b.y0) / block]]!
        let n = Double(s[4])
        func mean(_ v: Int) -> UInt8 { roundHalfUp(Double(v) / n) }
        out[x, y] = RGBA(mean(s[0]), mean(s[1]), mean(s[2]), mean(s[3]))
      }
    }
    return out
  }

  static let regions: [PixelRegion] = [
    .rectangle(x: 5, y: 7, width: 40, height: 23),
    .rectangle(x: -10, y: -3, width: 30, height: 200),  // crosses the left, top and bottom borders
    .rectangle(x: 60, y: 40, width: 100, height: 100),  // crosses the right and bottom borders
    .circle(centerX: 30, centerY: 25, radius: 17),
    .circle(centerX: 0, centerY: 0, radius: 21.5),  // crosses the top-left corner
    .circle(centerX: 70.25, centerY: 49.75, radius: 12.3),
    .circle(centerX: 35, centerY: 25, radius: 100),  // covers the whole image
  ]

  @Test(arguments: [1, 2, 7, 16], regions)
  func matchesReference(block: Int, region: PixelRegion) {
    let image = noiseImage(width: 80, height: 55, seed: 5, opaque: false)
    var fast = image
    fast.pixelate(region, blockSize: block)
    #expect(fast == Self.reference(image, region, block: block))
  }

  @Test func pixelsOutsideTheRegionAreUntouched() {
    let image = noiseImage(width: 64, height: 64, seed: 6)
    var out = image
    let region = PixelRegion.circle(centerX: 31, centerY: 29, radius: 14)
    out.pixelate(region, blockSize: 5)
    var changedInside = 0
    for y in 0..<64 {
      for x in 0..<64 {
        if region.contains(x: x, y: y) {
          if out[x, y] != image[x, y] { changedInside += 1 }
        } else {
          #expect(out[x, y] == image[x, y])
        }
      }
    }
    #expect(changedInside > 100)
  }

  /// The pixel exactly on the circle's edge is inside; the next one is not.
  @Test func circleEdge() {
    var image = Image(width: 40, height: 40, fill: RGBA(0, 0, 0))
    image[30, 20] = RGBA(255, 255, 255)  // on the edge of the circle (20, 20) r 10
    image[31, 20] = RGBA(255, 255, 255)  // just past it
    var out = image
    out.pixelate(.circle(centerX: 20, centerY: 20, radius: 10), blockSize: 64)
    #expect(out[31, 20] == RGBA(255, 255, 255))
    // One block: the white pixel on the edge was averaged in, and is itself averaged.
    #expect(out[30, 20] != RGBA(255, 255, 255))
    #expect(out[30, 20] == out[20, 20])
    #expect(out[20, 20].r == 1)  // 255 / 317 pixels, rounded
    #expect(out[20, 10] == out[20, 20] && out[20, 9] == RGBA(0, 0, 0))
  }

  @Test func blocksAreUniformAndAnchoredAtTheBoundingBox() {
    let image = noiseImage(width: 50, height: 50, seed: 8)
    var out = image
    out.pixelate(.rectangle(x: 3, y: 4, width: 20, height: 12), blockSize: 8)
    // Blocks start at (3, 4): pixels 3...10 share a block, 11 starts the next.
    #expect(out[3, 4] == out[10, 11])
    #expect(out[10, 4] != out[11, 4])
    #expect(out[22, 15] == out[19, 12])  // the last, clipped block: columns 19...22, rows 12...15
    #expect(out[23, 15] == image[23, 15])
  }

  @Test func onePixelImageAndEmptyRegions() {
    let one = Image(width: 1, height: 1, fill: RGBA(1, 2, 3, 4))
    var a = one
    a.pixelate(.circle(centerX: 0, centerY: 0, radius: 0), blockSize: 4)
    #expect(a == one)
    var b = one
    b.pixelate(.rectangle(x: 5, y: 5, width: 3, height: 3), blockSize: 2)
    #expect(b == one)
    let image = noiseImage(width: 10, height: 10)
    var c = image
    c.pixelate(.circle(centerX: -30, centerY: 5, radius: 4), blockSize: 3)
    #expect(c == image)
  }

  @Test func filterParsesAndNormalises() throws {
    let image = noiseImage(width: 200, height: 100, seed: 2)
    let op = try step(
      "pixelate", ["shape": .choice("circle"), "center": pt(100, 50), "radius": px(20), "block": px(5)],
      for: image)
    let p = try #require(op.typed(PixelateFilter.self)?.parameters)
    #expect(p.center == Point(fractionX: 0.5, y: 0.5))
    #expect(p.radius == .fraction(0.2))
    #expect(p.block == .fraction(0.05))
    var out = image
    try op.render(on: &out)
    var expected = image
    expected.pixelate(.circle(centerX: 100, centerY: 50, radius: 20), blockSize: 5)
    #expect(out == expected)
    // The same recipe on an image twice the size scales the region and the blocks.
    let big = noiseImage(width: 400, height: 200, seed: 3)
    var bigOut = big
    try op.render(on: &bigOut)
    var bigExpected = big
    bigExpected.pixelate(.circle(centerX: 200, centerY: 100, radius: 40), blockSize: 10)
    #expect(bigOut == bigExpected)
  }

  @Test func rectangleFilterInPercent() throws {
    let image = noiseImage(width: 100, height: 80, seed: 12)
    var expected = image
    expected.pixelate(.rectangle(x: 10, y: 20, width: 50, height: 40), blockSize: 4)
    #expect(
      try apply(
        "pixelate", ["x": pc(10), "y": pc(25), "width": pc(50), "height": pc(50), "block": px(4)], to: image)
        == expected)
  }
}
