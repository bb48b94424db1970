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
    let out = try apply("crop:x=2,y=1,width=3,height=4", to: Self.grid)
    #expect((out.width, out.height) == (3, 4))
    for y in 0..<4 { for x in 0..<3 { #expect(out[x, y] == RGBA(UInt8(x + 2), UInt8(y + 1), 0)) } }
    // The whole image is the identity, byte for byte.
    #expect(try apply("crop:x=0,y=0,width=100%,height=100%", to: Self.grid) == Self.grid)
    // A 1×1 crop and a crop of a 1×1 image.
    #expect(try apply("crop:x=6,y=4,width=1,height=1", to: Self.grid).bytes == [6, 4, 0, 255])
    let one = Image(width: 1, height: 1, fill: RGBA(5, 6, 7))
    #expect(try apply("crop:x=0,y=0,width=1,height=1", to: one) == one)
    #expect(try apply("crop:shape=circle", to: one) == one)
  }

  /// A rectangle that leaves the image is refused, naming the rectangle and the image size.
  @Test func rectangleOutsideTheImageIsAnError() throws {
    #expect(
      throws: FilterError.regionOutsideImage(
        filter: "crop", region: "rectangle x=5,y=0,width=3,height=2", width: 7, height: 5)
    ) { try apply("crop:x=5,y=0,width=3,height=2", to: Self.grid) }
    #expect(
      throws: FilterError.regionOutsideImage(
        filter: "crop", region: "rectangle x=0,y=50%,width=1,height=60%", width: 7, height: 5)
    ) { try apply("crop:x=0,y=50%,width=1,height=60%", to: Self.grid) }
    // Touching the border is fine.
    #expect(try apply("crop:x=5,y=3,width=2,height=2", to: Self.grid).width == 2)
    // A stored rectangle that leaves the image (a hand-edited sidecar) is refused too.
    var image = Self.grid
    let stored = Operation(
      filter: "crop", version: 1,
      parameters: [
        "shape": .string("rect"), "x": .number(0.5), "y": .number(0), "width": .number(0.9),
        "height": .number(1),
      ])
    let error = #expect(throws: FilterError.self) {
      try Filters.render(stored, on: &image, context: FilterContext(cascade: { throw CascadeError("none") }))
    }
    guard case .regionOutsideImage = error else {
      Issue.record("expected regionOutsideImage, got \(String(describing: error))")
      return
    }
    #expect(image == Self.grid)
    #expect(
      throws: FilterError.outOfRange(
        filter: "crop", key: "width", value: "0", range: "> 0 px, or 0%...100% of the width")
    ) {
      try Filters.parse("crop:x=0,y=0,width=0,height=2", readFile: noFiles)
    }
  }

  @Test func aspectIsCentredAndMovedInside() throws {
    let image = noiseImage(width: 400, height: 300, seed: 21)
    let wide = try apply("crop:aspect=16:9", to: image)
    #expect((wide.width, wide.height) == (400, 225))
    #expect(wide == image.cropped(x: 0, y: 38, width: 400, height: 225))  // round(150 - 112.5)
    // Centred near the corner: the window moves inside and keeps its size.
    let corner = try apply("crop:aspect=1:1,center=5:5,scale=0.5", to: image)
    #expect(corner == image.cropped(x: 0, y: 0, width: 150, height: 150))
    let around = try apply("crop:aspect=1:2,center=200:150,scale=0.5", to: image)
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
    let out = try apply("crop:shape=circle", to: image)
    #expect((out.width, out.height) == (80, 80))
    #expect(out == Self.referenceMask(image.cropped(x: 20, y: 0, width: 80, height: 80)))
    #expect(out[0, 0].a == 0 && out[79, 79].a == 0)
    #expect(out[40, 40] == image[60, 40])
    // Edge: pixel (0, 39)'s centre (0.5, 39.5) is 39.503 from (40, 40): coverage 40.5 - 39.503.
    #expect(out[0, 39].a == 254)
    #expect(out[1, 39].a == 255)
    #expect(out[1, 20].a == 0)  // centre (1.5, 20.5): distance ≈ 45.0 > 40.5
    let scaled = try apply("crop:shape=circle,scale=0.5,center=100:10", to: image)
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
    func op(_ word: String) throws -> Operation {
      try Filters.parse(word, readFile: noFiles).resolve(for: image, context: noCascade)
    }
    #expect(Filters.background(for: []) == RGBA(255, 255, 255))
    #expect(Filters.background(for: [try op("sepia")]) == RGBA(255, 255, 255))
    let ops = [
      try op("crop:shape=circle,background=#102030"), try op("crop:shape=circle,background=#A0B0C0D0"),
      try op("crop:x=0,y=0,width=5,height=5"),
    ]
    #expect(Filters.background(for: ops) == RGBA(0xA0, 0xB0, 0xC0, 0xD0))
    #expect(Filters.background(for: Array(ops.prefix(1))) == RGBA(0x10, 0x20, 0x30))
  }
}
