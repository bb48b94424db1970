import Testing

@testable import PhotoCore

@Suite struct CropTests {
  /// A 7×5 image whose pixel (x, y) has red x and green y.
  static let grid: Image = {
    var image = Image(width: 7, height: 5)
    for y in 0..<5 { for x in 0..<7 { image[x, y] = RGBA(UInt8(x), UInt8(y), 0) } }
    return image
  }()

  @Test func rectangleKeepsExactPixels() throws {
    let out = try apply("crop", ["x": px(2), "y": px(1), "width": px(3), "height": px(4)], to: Self.grid)
    #expect((out.width, out.height) == (3, 4))
    for y in 0..<4 { for x in 0..<3 { #expect(out[x, y] == RGBA(UInt8(x + 2), UInt8(y + 1), 0)) } }
    // The whole image is the identity, byte for byte.
    #expect(
      try apply("crop", ["x": px(0), "y": px(0), "width": pc(100), "height": pc(100)], to: Self.grid)
        == Self.grid)
    // A 1×1 crop and a crop of a 1×1 image.
    #expect(
      try apply("crop", ["x": px(6), "y": px(4), "width": px(1), "height": px(1)], to: Self.grid).bytes == [
        6, 4, 0, 255,
      ])
    let one = Image(width: 1, height: 1, fill: RGBA(5, 6, 7))
    #expect(try apply("crop", ["x": px(0), "y": px(0), "width": px(1), "height": px(1)], to: one) == one)
    #expect(try apply("crop", ["shape": .choice("circle")], to: one) == one)
  }

  /// A rectangle that leaves the image is refused, naming the rectangle and the image size.
  @Test func rectangleOutsideTheImageIsAnError() throws {
    #expect(
      throws: FilterError.regionOutsideImage(
        filter: "crop", region: Box(x: .pixels(5), y: .pixels(0), width: .pixels(3), height: .pixels(2)),
        image: ImageSize(7, 5))
    ) { try apply("crop", ["x": px(5), "y": px(0), "width": px(3), "height": px(2)], to: Self.grid) }
    #expect(
      throws: FilterError.regionOutsideImage(
        filter: "crop",
        region: Box(x: .pixels(0), y: .fraction(0.5), width: .pixels(1), height: .fraction(0.6)),
        image: ImageSize(7, 5))
    ) { try apply("crop", ["x": px(0), "y": pc(50), "width": px(1), "height": pc(60)], to: Self.grid) }
    // Touching the border is fine.
    #expect(
      try apply("crop", ["x": px(5), "y": px(3), "width": px(2), "height": px(2)], to: Self.grid).width == 2)
    // A stored rectangle that leaves the image (a hand-edited sidecar) is refused too.
    var image = Self.grid
    let stored = try Filters.step(
      filter: "crop", version: 1,
      parameters: [
        "shape": .string("rect"), "x": .number(0.5), "y": .number(0), "width": .number(0.9),
        "height": .number(1),
      ], derived: [:])
    let error = #expect(throws: FilterError.self) { try stored.render(on: &image) }
    guard case .regionOutsideImage = error else {
      Issue.record("expected regionOutsideImage, got \(String(describing: error))")
      return
    }
    #expect(image == Self.grid)
    #expect(
      throws: FilterError.outOfRange(
        filter: "crop", key: "width", value: px(0),
        allowed: .length(.horizontal, fractions: 0...1, positive: true, minimumPixels: 0),
        image: nil)
    ) {
      try Filters.request("crop", values: ["x": px(0), "y": px(0), "width": px(0), "height": px(2)])
    }
  }

  @Test func aspectIsCentredAndMovedInside() throws {
    let image = noiseImage(width: 400, height: 300, seed: 21)
    let wide = try apply("crop", ["aspect": .ratio(Ratio(16, 9))], to: image)
    #expect((wide.width, wide.height) == (400, 225))
    #expect(wide == image.cropped(x: 0, y: 38, width: 400, height: 225))  // round(150 - 112.5)
    // Centred near the corner: the window moves inside and keeps its size.
    let corner = try apply(
      "crop",
      [
        "aspect": .ratio(Ratio(1, 1)), "center": .point(Point(x: .pixels(5), y: .pixels(5))),
        "scale": .number(0.5),
      ], to: image)
    #expect(corner == image.cropped(x: 0, y: 0, width: 150, height: 150))
    let around = try apply(
      "crop",
      [
        "aspect": .ratio(Ratio(1, 2)), "center": .point(Point(x: .pixels(200), y: .pixels(150))),
        "scale": .number(0.5),
      ], to: image)
    #expect(around == image.cropped(x: 163, y: 75, width: 75, height: 150))
  }

  /// The slow alpha mask: coverage of each pixel centre by the inscribed circle.
  static func referenceMask(_ image: Image) -> Image {
    var out = image
    let r = Double(min(image.width, image.height)) / 2
    for y in 0..<image.height {
      for x in 0..<image.width {
        let dx = Double(x) + 0.5 - Double(image.width) / 2
        let dy = Double(y) + 0.5 - Double(image.height) / 2
        let c = min(max(r + 0.5 - (dx * dx + dy * dy).squareRoot(), 0), 1)
        out[x, y].a = roundHalfUp(Double(image[x, y].a) * c)
      }
    }
    return out
  }

  @Test func circleGivesASquareTransparentOutside() throws {
    let image = noiseImage(width: 120, height: 80, seed: 22)
    let out = try apply("crop", ["shape": .choice("circle")], to: image)
    #expect((out.width, out.height) == (80, 80))
    #expect(out == Self.referenceMask(image.cropped(x: 20, y: 0, width: 80, height: 80)))
    #expect(out[0, 0].a == 0 && out[79, 79].a == 0)
    #expect(out[40, 40] == image[60, 40])
    // Edge: pixel (0, 39)'s centre (0.5, 39.5) is 39.503 from (40, 40): coverage 40.5 - 39.503.
    #expect(out[0, 39].a == 254)
    #expect(out[1, 39].a == 255)
    #expect(out[1, 20].a == 0)  // centre (1.5, 20.5): distance ≈ 45.0 > 40.5
    let scaled = try apply(
      "crop",
      [
        "shape": .choice("circle"), "scale": .number(0.5),
        "center": .point(Point(x: .pixels(100), y: .pixels(10))),
      ], to: image)
    #expect((scaled.width, scaled.height) == (40, 40))
    #expect(scaled == Self.referenceMask(image.cropped(x: 80, y: 0, width: 40, height: 40)))
  }

  @Test(arguments: [(1, 1), (2, 2), (3, 3), (33, 33), (64, 64), (41, 20), (17, 50)])
  func circleMaskMatchesReference(width: Int, height: Int) {
    let image = noiseImage(width: width, height: height, seed: 23, opaque: false)
    var fast = image
    fast.maskToInscribedCircle()
    #expect(fast == Self.referenceMask(image))
  }

  @Test func flattenedOverBackground() {
    var image = Image(width: 3, height: 1, fill: RGBA(200, 100, 0, 255))
    image[1, 0] = RGBA(200, 100, 0, 0)
    image[2, 0] = RGBA(200, 100, 0, 128)
    let flat = image.flattened(over: RGBA(0, 0, 255))
    #expect(flat[0, 0] == RGBA(200, 100, 0))
    #expect(flat[1, 0] == RGBA(0, 0, 255))
    // 128/255 of (200, 100, 0) over (0, 0, 255): 100.4, 50.2, 127.0.
    #expect(flat[2, 0] == RGBA(100, 50, 127))
    let opaque = noiseImage(width: 5, height: 5)
    #expect(opaque.flattened(over: RGBA(1, 2, 3)) == opaque)
  }

  @Test func backgroundIsTheLastCircleCrops() throws {
    let image = noiseImage(width: 10, height: 10)
    #expect(Filters.transparencyFill(for: []) == nil)
    #expect(Filters.transparencyFill(for: [try step("sepia", for: image)]) == nil)
    #expect(
      Filters.transparencyFill(for: [try step("crop", ["shape": .choice("circle")], for: image)])
        == RGBA(255, 255, 255))
    let ops = [
      try step(
        "crop", ["shape": .choice("circle"), "background": .color(RGBA(hex: "#102030")!)], for: image),
      try step(
        "crop", ["shape": .choice("circle"), "background": .color(RGBA(hex: "#A0B0C0D0")!)], for: image),
      try step("crop", ["x": px(0), "y": px(0), "width": px(5), "height": px(5)], for: image),
    ]
    #expect(Filters.transparencyFill(for: ops) == RGBA(0xA0, 0xB0, 0xC0, 0xD0))
    #expect(Filters.transparencyFill(for: Array(ops.prefix(1))) == RGBA(0x10, 0x20, 0x30))
  }
}
