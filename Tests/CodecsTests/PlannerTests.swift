import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// The planner end to end: a photo decoded a pass at a time, a chain of steps run band by band
/// and encoded band by band gives exactly the bytes of the whole-frame route (decode, render each
/// step on the whole image, encode), whichever way the source is read: one pass sliding down it,
/// or passes over parts of it (a small budget makes a pass per band).
@Suite struct PlannerTests {
  static func n(_ v: Double) -> JSONValue { .number(v) }
  static func point(_ x: Double, _ y: Double) -> JSONValue { .array([n(x), n(y)]) }
  static func step(_ filter: String, _ parameters: [String: JSONValue], derived: [String: JSONValue] = [:])
    throws
    -> Step
  {
    try Filters.step(filter: filter, version: 1, parameters: parameters, derived: derived)
  }

  /// Chains of stored steps (lengths as fractions): filter, parameters, derived state.
  static let chains: [(String, [(String, [String: JSONValue])])] = [
    ("no step", []),
    ("sepia", [("sepia", ["intensity": n(0.8)])]),
    (
      "pixelate",
      [("pixelate", ["x": n(0.1), "y": n(0.15), "width": n(0.5), "height": n(0.6), "block": n(0.09)])]
    ),
    ("crop", [("crop", ["x": n(0.1), "y": n(0.2), "width": n(0.7), "height": n(0.5)])]),
    ("crop circle", [("crop", ["shape": .string("circle"), "center": point(0.6, 0.4), "scale": n(0.7)])]),
    ("rotate 90", [("rotate", ["angle": .string("90")])]),
    (
      "flip vertical, brush",
      [
        ("flip", ["direction": .string("vertical")]),
        ("brush", ["pen": .string("red"), "points": .array([point(0.1, 0.1), point(0.9, 0.8)])]),
      ]
    ),
    (
      "crop, rotate 270, pixelate circle",
      [
        ("crop", ["aspect": .array([n(4), n(3)]), "center": point(0.4, 0.6)]),
        ("rotate", ["angle": .string("270")]),
        (
          "pixelate",
          ["shape": .string("circle"), "center": point(0.5, 0.5), "radius": n(0.3), "block": n(0.05)]
        ),
      ]
    ),
    ("faceblur (faces stored)", [("faceblur", ["style": .string("blur"), "blocks": n(6)])]),
  ]

  /// A noise photo of several bands, as a 4:2:0 JPEG.
  static let noisy: [UInt8] = {
    let image = noiseImage(width: 301, height: 517, seed: 9)
    return (try? ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 80))) ?? []
  }()

  static let photos = [
    "noise", "faces/hopper_orientation_6.jpg", "faces/astronaut.png",
    "jpeg/video-001.q50.422.progressive.jpeg",
  ]

  static func bytes(_ photo: String) throws -> [UInt8] { photo == "noise" ? noisy : try fixture(photo) }

  /// The whole-frame route: decode, every step on the whole image, flatten, encode.
  static func wholeFrame(_ bytes: [UInt8], _ chain: [(String, [String: JSONValue])]) throws -> [UInt8] {
    let decoded = try ImageCodec.decode(bytes)
    var image = decoded.image
    var steps: [Step] = []
    for (filter, parameters) in chain {
      let s = try made(filter, parameters)
      try s.render(on: &image)
      steps.append(s)
    }
    if !image.isOpaque {
      image = image.flattened(over: Filters.transparencyFill(for: steps) ?? RGBA(255, 255, 255))
    }
    return try ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 85))
  }

  /// A stored step; faceblur's with two faces, one across the image's edge.
  static func made(_ filter: String, _ parameters: [String: JSONValue]) throws -> Step {
    func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> JSONValue {
      .object(["x": n(x), "y": n(y), "width": n(w), "height": n(h)])
    }
    let derived: [String: JSONValue] =
      filter == "faceblur" ? ["faces": .array([face(0.3, 0.2, 0.3, 0.3), face(0.8, 0.7, 0.3, 0.4)])] : [:]
    return try step(filter, parameters, derived: derived)
  }

  /// The planner's route with a budget for grouped passes.
  static func planned(_ bytes: [UInt8], _ chain: [(String, [String: JSONValue])], budget: Int) throws
    -> [UInt8]
  {
    try ImageCodec.withSource(bytes) { opened in
      let opened = try #require(opened)
      let upright = PixelTransform.upright(
        exifOrientation: opened.details.orientation, of: opened.source.size)
      var kernels: [any StepKernel] = upright.isIdentity ? [] : [TransformKernel(upright)]
      var size = upright.outputSize
      var steps: [Step] = []
      for (filter, parameters) in chain {
        let s = try made(filter, parameters)
        let k = try s.kernels(input: size)
        kernels += k
        size = k.last?.outputSize ?? size
        steps.append(s)
      }
      let opacity = kernels.reduce(opened.source.opacity) { $1.opacity(given: $0) }
      let fill = opacity == .opaque ? nil : Filters.transparencyFill(for: steps) ?? RGBA(255, 255, 255)
      let sink = try JPEGSink(size: size, options: EncodeOptions(quality: 85), fill: fill)
      let plan = RenderPlan(kernels: kernels, inputSize: opened.source.size, bandHeight: sink.bandHeight)
      _ = try Planner.run(plan, from: opened.source, to: sink, budget: budget)
      return try sink.finish()
    }
  }

  @Test(arguments: photos)
  func plannedBytesAreTheWholeFramesBytes(_ photo: String) throws {
    let bytes = try Self.bytes(photo)
    for (name, steps) in Self.chains {
      let expected = try Self.wholeFrame(bytes, steps)
      #expect(try Self.planned(bytes, steps, budget: Planner.defaultBudget) == expected, "\(photo): \(name)")
      #expect(try Self.planned(bytes, steps, budget: 1) == expected, "\(photo): \(name), a pass per band")
    }
  }

  @Test func aQuarterTurnIsReadInGroupsOfColumnsNotSlidDown() throws {
    // Each band of a turned image needs every row of the source: one sliding pass would hold the
    // whole frame in its window.
    let size = ImageSize(3000, 2000)
    let turn = RenderPlan(
      kernels: [TransformKernel(.rotation(quarterTurns: 1, of: size))], inputSize: size, bandHeight: 128)
    #expect(!turn.slidesDown(maxRows: 384))
    let crop = RenderPlan(
      kernels: [TransformKernel(.crop(PixelRect(x: 7, y: 9, width: 2000, height: 1500), of: size))],
      inputSize: size,
      bandHeight: 128)
    #expect(crop.slidesDown(maxRows: 384))
    #expect(
      Planner.groups(turn, budget: 8 << 20).allSatisfy { group in
        group.reduce(PixelRect.empty) { $0.union(turn.sourceRect($1)) }.area * 4 <= 8 << 20
      })
  }

  @Test func aDamagedPhotoFailsThePlannedRender() throws {
    var bytes = Self.noisy
    bytes.removeLast(bytes.count / 3)
    #expect(throws: CodecError.self) {
      _ = try Self.planned(bytes, [("rotate", ["angle": .string("90")])], budget: 1)
    }
    #expect(throws: CodecError.self) {
      _ = try Self.planned(bytes, [("sepia", ["intensity": Self.n(1)])], budget: 1)
    }
  }
}
