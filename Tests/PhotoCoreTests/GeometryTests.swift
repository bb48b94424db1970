import Testing

@testable import PhotoCore

/// Every filter's geometry declaration against the whole-frame render: any rectangle of a step's
/// output, rendered from exactly the input rectangle its kernels ask for, has the pixels the
/// whole image rendered in one go has there. And what each kernel says of itself holds: its
/// output size, that a pointwise step needs its output rectangle only, that a local step leaves
/// every pixel outside its footprint as it was and reaches no further than it says, that a
/// transform only moves pixels.
@Suite struct GeometryTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var filter: String
    var parameters: [String: JSONValue] = [:]
    var derived: [String: JSONValue] = [:]
    var testDescription: String { name }

    func step() throws -> Step {
      try Filters.step(filter: filter, version: 1, parameters: parameters, derived: derived)
    }
  }

  static func n(_ v: Double) -> JSONValue { .number(v) }
  static func point(_ x: Double, _ y: Double) -> JSONValue { .array([n(x), n(y)]) }
  static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> JSONValue {
    .object(["x": n(x), "y": n(y), "width": n(w), "height": n(h)])
  }
  /// Overlapping faces, one across the top-left corner, one across the right edge.
  static let faces: [String: JSONValue] = [
    "faces": .array([
      face(0.3, 0.3, 0.25, 0.3), face(0.4, 0.35, 0.3, 0.3), face(-0.05, -0.05, 0.2, 0.2),
      face(0.85, 0.6, 0.3, 0.3),
    ])
  ]

  static let cases: [Case] = [
    Case(name: "sepia", filter: "sepia", parameters: ["intensity": n(0.8)]),
    Case(name: "vignette", filter: "vignette", parameters: ["intensity": n(0.7), "radius": n(0.6)]),
    Case(
      name: "pixelate rect", filter: "pixelate",
      parameters: ["x": n(0.1), "y": n(0.15), "width": n(0.5), "height": n(0.6), "block": n(0.09)]),
    Case(
      name: "pixelate rect across the borders", filter: "pixelate",
      parameters: ["x": n(0), "y": n(0.5), "width": n(1), "height": n(0.5), "block": n(0.13)]),
    Case(
      name: "pixelate circle", filter: "pixelate",
      parameters: [
        "shape": .string("circle"), "center": point(0.8, 0.2), "radius": n(0.45), "block": n(0.07),
      ]),
    Case(
      name: "crop rect", filter: "crop",
      parameters: ["x": n(0.1), "y": n(0.2), "width": n(0.7), "height": n(0.5)]),
    Case(
      name: "crop aspect", filter: "crop",
      parameters: ["aspect": .array([n(16), n(9)]), "center": point(0.3, 0.7)]),
    Case(
      name: "crop circle", filter: "crop",
      parameters: ["shape": .string("circle"), "center": point(0.6, 0.4), "scale": n(0.7)]),
    Case(
      name: "brush", filter: "brush",
      parameters: [
        "pen": .string("highlight"), "color": .string("#FFFF0080"), "size": n(0.08), "hardness": n(0.5),
        "strokes": .array([.array([point(0.1, 0.1), point(0.9, 0.3)]), .array([point(0.5, 0.9)])]),
        "points": .array([point(0.2, 0.8), point(0.3, 0.2), point(0.95, 0.95)]),
      ]),
    Case(name: "rotate 90", filter: "rotate", parameters: ["angle": .string("90")]),
    Case(name: "rotate 180", filter: "rotate", parameters: ["angle": .string("180")]),
    Case(name: "rotate 270", filter: "rotate", parameters: ["angle": .string("270")]),
    Case(name: "flip horizontal", filter: "flip", parameters: ["direction": .string("horizontal")]),
    Case(name: "flip vertical", filter: "flip", parameters: ["direction": .string("vertical")]),
    Case(name: "faceblur pixelate", filter: "faceblur", parameters: ["blocks": n(4)], derived: faces),
    Case(
      name: "faceblur blur", filter: "faceblur", parameters: ["style": .string("blur"), "blocks": n(8)],
      derived: faces),
    Case(
      name: "faceblur solid", filter: "faceblur", parameters: ["style": .string("solid"), "scale": n(1.3)],
      derived: faces),
  ]

  /// The input: noise with translucent pixels, odd sizes.
  static let image = noiseImage(width: 97, height: 83, seed: 77, opaque: false)

  /// Output rectangles to render on their own: bands of several heights, single pixels, corners,
  /// odd rectangles.
  static func rects(in size: ImageSize) -> [PixelRect] {
    var rects: [PixelRect] = []
    for height in [1, 5, 16, 37] {
      var y = 0
      while y < size.height {
        rects.append(PixelRect(x: 0, y: y, width: size.width, height: min(height, size.height - y)))
        y += height
      }
    }
    var rng = SplitMix(seed: 9)
    for _ in 0..<40 {
      let x = Int.random(in: 0..<size.width, using: &rng)
      let y = Int.random(in: 0..<size.height, using: &rng)
      let w = Int.random(in: 1...(size.width - x), using: &rng)
      let h = Int.random(in: 1...(size.height - y), using: &rng)
      rects.append(PixelRect(x: x, y: y, width: w, height: h))
    }
    rects.append(PixelRect(x: 0, y: 0, width: 1, height: 1))
    rects.append(PixelRect(x: size.width - 1, y: size.height - 1, width: 1, height: 1))
    rects.append(PixelRect(size))
    return rects
  }

  /// Renders `rect` of the kernels' output from a buffer that holds exactly the input rectangle
  /// the kernels ask for (everything else of the buffer poisoned), as the planner does.
  static func render(_ kernels: [any StepKernel], _ image: Image, _ rect: PixelRect) throws -> PixelBuffer {
    var rects = [rect]
    for kernel in kernels.reversed() { rects.append(kernel.inputRect(for: rects.last!)) }
    rects.reverse()
    var tile = PixelBuffer(rect: rects[0])
    var source = image
    source.withPixels { tile.copy(rects[0], from: $0) }
    for (i, kernel) in kernels.enumerated() {
      #expect(PixelRect(kernel.inputSize).contains(rects[i]), "inside the input")
      if kernel.rendersInPlace {
        #expect(rects[i].contains(rects[i + 1]), "an in-place kernel's input holds its output")
      }
    }
    tile = try Planner.chain(kernels, on: tile, rects: rects)
    return tile
  }

  @Test(arguments: cases)
  func anyRectangleRendersAsTheWholeImage(_ c: Case) throws {
    let step = try c.step()
    let size = ImageSize(Self.image.width, Self.image.height)
    let kernels = try step.kernels(input: size)
    var whole = Self.image
    try whole.render(kernels)
    // The whole-frame render is the step's own render.
    var rendered = Self.image
    try step.render(on: &rendered)
    #expect(rendered == whole)
    let outputSize = kernels.last?.outputSize ?? size
    #expect(outputSize == ImageSize(whole.width, whole.height))
    var mismatches = 0
    for rect in Self.rects(in: outputSize) {
      let tile = try Self.render(kernels, Self.image, rect)
      for y in rect.rows {
        for x in rect.columns {
          let p = tile.pixel(x: x, y: y)
          if RGBA(p[0], p[1], p[2], p[3]) != whole[x, y] { mismatches += 1 }
        }
      }
    }
    #expect(mismatches == 0)
  }

  @Test(arguments: cases)
  func capabilitiesHold(_ c: Case) throws {
    let size = ImageSize(Self.image.width, Self.image.height)
    let kernels = try c.step().kernels(input: size)
    var input = Self.image
    for kernel in kernels {
      var output = input
      try output.render([kernel])
      switch kernel.capability {
      case .pointwise:
        for rect in Self.rects(in: kernel.outputSize) { #expect(kernel.inputRect(for: rect) == rect) }
      case .local(let reach, let footprint):
        // Every pixel outside the footprint keeps its bytes.
        for y in 0..<size.height {
          for x in 0..<size.width where !footprint.contains(where: { $0.contains(x: x, y: y) }) {
            #expect(output[x, y] == input[x, y])
          }
        }
        for rect in Self.rects(in: kernel.outputSize) {
          let need = kernel.inputRect(for: rect)
          #expect(need.contains(rect))
          #expect(rect.grown(dx: reach, dy: reach).intersection(PixelRect(size)).contains(need))
        }
      case .transform(let t):
        #expect(t.outputSize == kernel.outputSize)
        for y in 0..<t.outputSize.height {
          for x in 0..<t.outputSize.width {
            let s = t.source(x: x, y: y)
            #expect(output[x, y] == input[s.x, s.y])
          }
        }
      case .whole:
        Issue.record("no built-in filter needs the whole image")
      }
      input = output
    }
  }

  /// Transforms compose: a chain of turns, mirrors and crops is the one transform `then` makes.
  @Test func transformsCompose() throws {
    let size = ImageSize(Self.image.width, Self.image.height)
    var chain: [PixelTransform] = []
    var s = size
    for make in [
      { PixelTransform.rotation(quarterTurns: 1, of: $0) },
      { PixelTransform.flip(horizontally: false, of: $0) },
      { PixelTransform.crop(PixelRect(x: 3, y: 7, width: $0.width - 10, height: $0.height - 20), of: $0) },
      { PixelTransform.rotation(quarterTurns: 3, of: $0) },
      { PixelTransform.flip(horizontally: true, of: $0) },
    ] as [(ImageSize) -> PixelTransform] {
      let t = make(s)
      chain.append(t)
      s = t.outputSize
    }
    var stepwise = Self.image
    for t in chain { stepwise = stepwise.transformed(t) }
    let composed = chain.dropFirst().reduce(chain[0]) { $0.then($1) }
    #expect(Self.image.transformed(composed) == stepwise)
    for orientation in 1...8 {
      let t = PixelTransform.upright(exifOrientation: orientation, of: size)
      #expect(t.orientation == orientation)
    }
  }
}
