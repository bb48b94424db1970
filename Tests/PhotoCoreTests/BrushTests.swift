import Testing

@testable import PhotoCore

@Suite struct BrushTests {
  /// Slow and obvious: every pixel's distance to every segment, then "over" in Double.
  static func reference(_ image: Image, _ points: [(Double, Double)], pen: Pen) -> Image {
    var out = image
    let segments =
      points.count == 1 ? [(points[0], points[0])] : (1..<points.count).map { (points[$0 - 1], points[$0]) }
    for y in 0..<image.height {
      for x in 0..<image.width {
        var d = Double.infinity
        for (a, b) in segments {
          let ex = b.0 - a.0
          let ey = b.1 - a.1
          let l2 = ex * ex + ey * ey
          let t = l2 > 0 ? min(max(((Double(x) - a.0) * ex + (Double(y) - a.1) * ey) / l2, 0), 1) : 0
          let dx = Double(x) - (a.0 + t * ex)
          let dy = Double(y) - (a.1 + t * ey)
          d = min(d, (dx * dx + dy * dy).squareRoot())
        }
        let r = pen.size / 2
        let c = min(max((r + 0.5 - d) / (r * (1 - pen.hardness) + 1), 0), 1)
        if c <= 0 { continue }
        let p = image[x, y]
        let ta = Double(pen.color.a) / 255 * c
        let ba = Double(p.a) / 255
        let oa = ta + ba * (1 - ta)
        func ch(_ t: UInt8, _ b: UInt8) -> UInt8 {
          roundHalfUp((Double(t) * ta + Double(b) * ba * (1 - ta)) / oa)
        }
        out[x, y] = RGBA(
          ch(pen.color.r, p.r), ch(pen.color.g, p.g), ch(pen.color.b, p.b), roundHalfUp(oa * 255))
      }
    }
    return out
  }

  static let pens = [
    Pen(color: RGBA(255, 0, 0), size: 1, hardness: 0.9),
    Pen(color: RGBA(255, 255, 0, 128), size: 20, hardness: 0.5),
    Pen(color: RGBA(0, 0, 255), size: 7.5, hardness: 1),
    Pen(color: RGBA(10, 200, 30, 200), size: 12, hardness: 0),
  ]

  @Test(arguments: pens) func matchesReference(pen: Pen) {
    let image = noiseImage(width: 70, height: 50, seed: 31, opaque: false)
    let points: [(Double, Double)] = [(5, 5), (60, 12), (30, 45), (31, 44), (-5, 30)]
    var fast = image
    fast.drawStroke(points.map { (x: $0.0, y: $0.1) }, pen: pen)
    #expect(maxDifference(fast, Self.reference(image, points, pen: pen)) <= 1)
  }

  @Test func dotAndHardEdge() {
    let image = Image(width: 21, height: 21, fill: RGBA(255, 255, 255))
    var out = image
    out.drawStroke([(x: 10, y: 10)], pen: Pen(color: RGBA(0, 0, 0), size: 10, hardness: 1))
    #expect(out[10, 10] == RGBA(0, 0, 0))
    #expect(out[14, 10] == RGBA(0, 0, 0))  // distance 4 ≤ r - 0.5
    #expect(out[15, 10] == RGBA(128, 128, 128))  // distance 5 = r: half covered
    #expect(out[16, 10] == RGBA(255, 255, 255))  // distance 6 ≥ r + 0.5: untouched
    #expect(
      maxDifference(
        out, Self.reference(image, [(10, 10)], pen: Pen(color: RGBA(0, 0, 0), size: 10, hardness: 1))) <= 1)
  }

  @Test func softerPensFeatherFurtherInward() {
    let hard = Pen(color: RGBA(0, 0, 0), size: 20, hardness: 1)
    let soft = Pen(color: RGBA(0, 0, 0), size: 20, hardness: 0.2)
    #expect(hard.coverage(distance: 8) == 1)
    #expect(soft.coverage(distance: 8) < 1)
    #expect(soft.coverage(distance: 10.5) == 0 && hard.coverage(distance: 10.5) == 0)
    for d in stride(from: 0.0, through: 11, by: 0.25) {
      #expect(soft.coverage(distance: d) >= soft.coverage(distance: d + 0.25))
    }
  }

  @Test func presetsAndInlinePoints() throws {
    let image = Image(width: 60, height: 40, fill: RGBA(255, 255, 255))
    let op = try step("brush", ["pen": .choice("blue"), "points": pts((10, 20), (50, 20))], for: image)
    // The preset is stored explicitly; the size as a fraction of the shorter side (50 / 40).
    guard case .object(let stored) = op.stored, let parameters = stored["parameters"]?.object else {
      Issue.record("no stored parameters")
      return
    }
    #expect(parameters["color"] == .string("#0000FFFF"))
    #expect(parameters["size"] == .number(1.25))
    #expect(parameters["hardness"] == .number(0.8))
    #expect(
      parameters["points"]
        == .array([.array([.number(10.0 / 60), .number(0.5)]), .array([.number(50.0 / 60), .number(0.5)])]))
    var out = image
    try op.render(on: &out)
    var expected = image
    expected.drawStroke(
      [(x: 10, y: 20), (x: 50, y: 20)], pen: Pen(color: RGBA(0, 0, 255), size: 50, hardness: 0.8))
    #expect(out == expected)
    #expect(out[30, 20] == RGBA(0, 0, 255))
  }

  @Test func customPenNeedsAColour() throws {
    #expect(throws: FilterError.missingParameter(filter: "brush", keys: ["color"])) {
      try Filters.request("brush", values: ["pen": .choice("custom"), "points": pts((1, 1))])
    }
    // Either one does.
    #expect(throws: FilterError.missingParameter(filter: "brush", keys: ["points", "strokes"])) {
      try Filters.request("brush", values: ["pen": .choice("red")])
    }
    let image = Image(width: 9, height: 9, fill: RGBA(0, 0, 0))
    let out = try apply(
      "brush",
      [
        "pen": .choice("custom"), "color": .color(RGBA(hex: "#FF000080")!), "size": px(3),
        "hardness": .number(1), "points": .points([Point(x: .pixels(4), y: .pixels(4))]),
      ], to: image)
    #expect(out[4, 4] == RGBA(128, 0, 0))
  }

  /// Strokes (from a strokes file) are embedded in the stored step, so the recipe needs no file.
  @Test func strokesAreEmbedded() throws {
    let file = #"{"strokes": [{"points": [[10, 10], [30, 10]]}, [[5, 30], ["50%", "75%"]]]}"#
    let strokes = try StrokesFile.parse(Array(file.utf8))
    let image = Image(width: 40, height: 40, fill: RGBA(255, 255, 255))
    let op = try step("brush", ["pen": .choice("black"), "strokes": .strokes(strokes)], for: image)
    guard case .object(let stored) = op.stored, let parameters = stored["parameters"]?.object else {
      Issue.record("no stored parameters")
      return
    }
    #expect(
      parameters["strokes"]
        == .array([
          .array([.array([.number(0.25), .number(0.25)]), .array([.number(0.75), .number(0.25)])]),
          .array([.array([.number(0.125), .number(0.75)]), .array([.number(0.5), .number(0.75)])]),
        ]))
    var out = image
    try op.render(on: &out)
    var expected = image
    let pen = Pen(color: RGBA(0, 0, 0), size: 10, hardness: 0.7)
    expected.drawStroke([(x: 10, y: 10), (x: 30, y: 10)], pen: pen)
    expected.drawStroke([(x: 5, y: 30), (x: 20, y: 30)], pen: pen)
    #expect(out == expected)
  }

  @Test func badStrokesFiles() {
    func reason(_ text: String) -> String? {
      do {
        _ = try StrokesFile.parse(Array(text.utf8))
        return nil
      } catch { return error.description }
    }
    #expect(reason("[]") == "the file holds no strokes")
    #expect(reason("[[[1, 2, 3]]]") == "stroke 0: a point is not [x, y]")
    #expect(reason("[[[1 2]]]") == "invalid JSON at byte 5: expected ',' or ']'")
    // A point outside the image is the request's to refuse, naming the stroke and the point.
    let negative = try? StrokesFile.parse(Array("[[[1, 2]], [[3, 4], [-1, 2]]]".utf8))
    let outside = FilterError.strokeOutsideImage(
      filter: "brush", key: "strokes", file: nil, stroke: 1, point: 1,
      value: Point(x: .pixels(-1), y: .pixels(2)), image: nil)
    #expect(throws: outside) {
      try Filters.request("brush", values: ["strokes": .strokes(negative ?? [])])
    }
  }
}

extension Pen: CustomTestStringConvertible {
  public var testDescription: String { "\(color.hex) size \(size) hardness \(hardness)" }
}

/// Finding: a pen below about 1/8192 px (its size rounds to zero) trapped in the stroke's
/// precondition, from the command line, a sidecar or a recipe. Every such pen is now a range
/// error: at the request (image-independent), when a stored step is read, and when a stored
/// fraction is too few pixels of the image it meets.
@Suite struct TinyPenTests {
  static let kind = ParameterKind.length(
    .shortSide, fractions: BrushFilter.minimumSizeFraction...10, positive: true, minimumPixels: Pen.minimumSize)
  static let line = pts((2, 2), (6, 6))

  @Test(arguments: [0, 1e-30, 5e-324, 1e-320, 1e-4, 0.009, -1, 1e-9])
  func tinyPixelSizesAreOutOfRange(size: Double) {
    #expect(
      throws: FilterError.outOfRange(filter: "brush", key: "size", value: px(size), allowed: Self.kind, image: nil)
    ) {
      try Filters.request("brush", values: ["size": px(size), "points": Self.line])
    }
  }

  @Test(arguments: [0, 1e-12, 1e-10, 9.9e-7])
  func tinyFractionsAreOutOfRange(fraction: Double) {
    let value = ParameterValue.length(.fraction(fraction))
    #expect(
      throws: FilterError.outOfRange(filter: "brush", key: "size", value: value, allowed: Self.kind, image: nil)
    ) {
      try Filters.request("brush", values: ["size": value, "points": Self.line])
    }
  }

  @Test func aStoredTinyFractionIsRefusedWhenRead() {
    #expect(
      throws: FilterError.outOfRange(
        filter: "brush", key: "size", value: .length(.fraction(1e-12)), allowed: Self.kind, image: nil)
    ) {
      try Filters.step(
        filter: "brush", version: 1,
        parameters: [
          "size": .number(1e-12), "points": .array([.array([.number(0.1), .number(0.1)])]),
          "color": .string("#000000FF"), "hardness": .number(0.7),
        ], derived: [:])
    }
  }

  /// A fraction within the stored range that is less than 0.01 px of this image is refused when
  /// the step is made for it, and when a stored step renders on it; the same fraction on an image
  /// large enough draws.
  @Test func aFractionTooSmallForTheImageIsRefusedNamingTheImage() throws {
    let small = Image(width: 128, height: 128, fill: RGBA(255, 255, 255))
    let tiny = ParameterValue.length(.fraction(1e-5))  // 0.00128 px of 128
    #expect(
      throws: FilterError.outOfRange(
        filter: "brush", key: "size", value: tiny, allowed: Self.kind, image: ImageSize(128, 128))
    ) {
      _ = try apply("brush", ["size": tiny, "points": pts((2, 2), (6, 6))], to: small)
    }
    let large = Image(width: 1000, height: 1000, fill: RGBA(255, 255, 255))  // 0.01 px
    let made = try step("brush", ["size": tiny, "points": .points([Point(fractionX: 0.1, y: 0.1)])], for: large)
    var out = large
    try made.render(on: &out)
    // The stored step rendered on the smaller image is refused, never drawn.
    var onSmall = small
    #expect(
      throws: FilterError.outOfRange(
        filter: "brush", key: "size", value: tiny, allowed: Self.kind, image: ImageSize(128, 128))
    ) {
      try made.render(on: &onSmall)
    }
    #expect(onSmall == small)
  }

  @Test func theSmallestPenDraws() throws {
    let image = Image(width: 16, height: 16, fill: RGBA(255, 255, 255))
    let out = try apply("brush", ["size": px(Pen.minimumSize), "points": pts((8, 8))], to: image)
    // A dot of 0.01 px covers the centre pixel by about half.
    #expect(out[8, 8].r < 200 && out[8, 8].r > 100)
  }
}
