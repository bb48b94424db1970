import Testing

@testable import PhotoCore

@Suite struct FilterRegistryTests {
  func parameters(_ step: Step) -> [String: JSONValue] { step.stored.object?["parameters"]?.object ?? [:] }

  @Test func storedStepsCarryEveryParameterNormalised() throws {
    let image = noiseImage(width: 200, height: 100)
    let vignette = try step("vignette", ["intensity": .number(0.5)], for: image)
    #expect(
      vignette.stored
        == .object([
          "filter": .string("vignette"), "version": .number(1),
          "parameters": .object(["intensity": .number(0.5), "radius": .number(1)]),
        ]))
    let crop = try step("crop", ["x": px(20), "y": px(10), "width": px(100), "height": px(50)], for: image)
    let p = parameters(crop)
    #expect(p["x"] == .number(0.1) && p["y"] == .number(0.1))
    #expect(p["width"] == .number(0.5) && p["height"] == .number(0.5))
    #expect(p["shape"] == .string("rect"))
    #expect(p["background"] == .string("#FFFFFFFF"))
  }

  @Test func requestsCheckEachValueThenAllTogether() {
    #expect(throws: FilterError.unknownFilter("sepai")) { try Filters.request("sepai", values: [:]) }
    #expect(throws: FilterError.unknownParameter(filter: "sepia", key: "amount", known: ["intensity"])) {
      try Filters.request("sepia", values: ["amount": .number(1)])
    }
    #expect(
      throws: FilterError.outOfRange(
        filter: "sepia", key: "intensity", value: .number(1.5), allowed: .number(0...1), image: nil)
    ) { try Filters.request("sepia", values: ["intensity": .number(1.5)]) }
    #expect(
      throws: FilterError.outOfRange(
        filter: "pixelate", key: "center", value: .point(Point(x: .fraction(1.2), y: .pixels(5))),
        allowed: .point, image: nil)
    ) {
      try Filters.request(
        "pixelate",
        values: [
          "shape": .choice("circle"), "center": .point(Point(x: .fraction(1.2), y: .pixels(5))),
          "radius": px(3),
        ])
    }
    #expect(throws: FilterError.missingParameter(filter: "pixelate", keys: ["radius"])) {
      try Filters.request("pixelate", values: ["shape": .choice("circle"), "center": pt(1, 1)])
    }
    #expect(throws: FilterError.conflictingParameters(filter: "pixelate", keys: ["shape=circle", "x"])) {
      try Filters.request(
        "pixelate", values: ["shape": .choice("circle"), "center": pt(1, 1), "radius": px(2), "x": px(3)])
    }
    #expect(throws: FilterError.conflictingParameters(filter: "crop", keys: ["aspect", "x"])) {
      try Filters.request("crop", values: ["aspect": .ratio(Ratio(1, 1)), "x": px(3)])
    }
    #expect(
      throws: FilterError.missingParameter(
        filter: "crop", keys: ["x, y, width and height", "aspect", "shape=circle"])
    ) { try Filters.request("crop", values: [:]) }
  }

  /// A pixel position beyond the image is refused when the step meets the image, naming its size.
  @Test func pixelPositionsOutsideTheImage() throws {
    let image = noiseImage(width: 50, height: 40)
    #expect(
      throws: FilterError.outOfRange(
        filter: "pixelate", key: "center", value: pt(60, 5), allowed: .point, image: ImageSize(50, 40))
    ) {
      try apply("pixelate", ["shape": .choice("circle"), "center": pt(60, 5), "radius": px(3)], to: image)
    }
  }

  @Test func portableRequestDropsDerivedState() throws {
    let request = try Filters.portableRequest(
      filter: "faceblur", version: 1, parameters: ["blocks": .number(12)])
    #expect(request.filter == "faceblur")
    #expect(request.values.first { $0.name == "blocks" }?.value == .integer(12))
    #expect(request.values.first { $0.name == "style" }?.value == .choice("pixelate"))
    // A stored crop resolves on another image to the same fractions.
    let crop = try Filters.portableRequest(
      filter: "crop", version: 1,
      parameters: ["x": .number(0.25), "y": .number(0), "width": .number(0.5), "height": .number(1)])
    let again = try crop.resolve(in: ResolveContext(size: ImageSize(8, 6)))
    #expect(parameters(again)["x"] == .number(0.25) && parameters(again)["width"] == .number(0.5))
  }

  @Test func storedStepsAreRefusedWhenTheyCannotBeRendered() {
    func read(
      _ filter: String, version: Int = 1, _ p: [String: JSONValue], derived: [String: JSONValue] = [:]
    )
      throws -> Step
    {
      try Filters.step(filter: filter, version: version, parameters: p, derived: derived)
    }
    #expect(throws: FilterError.unknownFilter("emboss")) { try read("emboss", [:]) }
    #expect(throws: FilterError.newerVersion(filter: "sepia", found: 2, supported: 1)) {
      try read("sepia", version: 2, [:])
    }
    #expect(throws: FilterError.unsupportedVersion(filter: "sepia", found: 0)) {
      try read("sepia", version: 0, [:])
    }
    #expect(throws: FilterError.unknownParameter(filter: "sepia", key: "amount", known: ["intensity"])) {
      try read("sepia", ["amount": .number(1)])
    }
    #expect(
      throws: FilterError.outOfRange(
        filter: "sepia", key: "intensity", value: .number(3), allowed: .number(0...1), image: nil)
    ) { try read("sepia", ["intensity": .number(3)]) }
    #expect(
      throws: FilterError.badStoredValue(
        filter: "sepia", key: "intensity", value: .string("high"), expected: .number(0...1))
    ) { try read("sepia", ["intensity": .string("high")]) }
    #expect(throws: FilterError.badDerivedState(filter: "sepia", key: "faces")) {
      try read("sepia", [:], derived: ["faces": .array([])])
    }
    #expect(throws: FilterError.missingParameter(filter: "pixelate", keys: ["x"])) {
      try read("pixelate", [:])
    }
  }

  /// Version 2 of a test filter renamed `amount` to `intensity`; version 1 is kept typed and a
  /// version-1 step migrates through it.
  struct FadeV2: Filter {
    static let name = "fade"
    static let summary = "test"
    static let version = 2
    struct Parameters: ParameterSet {
      var intensity = 1.0
      static let fields: [ParameterField<Self>] = [.number("intensity", \.intensity, 0...1, help: "")]
    }
    struct V1: ParameterSet {
      var amount = 1.0
      static let fields: [ParameterField<Self>] = [.number("amount", \.amount, 0...1, help: "")]
    }
    static let legacyVersions = [
      LegacyParameters<FadeV2>(version: 1, V1.self) { old in
        var p = Parameters()
        p.intensity = old.amount
        return p
      }
    ]
    static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {}
  }

  @Test func olderVersionsAreMigratedFromTheirTypedParameters() throws {
    let old = try Filters.step(
      filter: "fade", version: 1, parameters: ["amount": .number(0.3)], derived: [:], in: [FadeV2.self])
    #expect(
      old.stored
        == .object([
          "filter": .string("fade"), "version": .number(2),
          "parameters": .object(["intensity": .number(0.3)]),
        ]))
    #expect(throws: FilterError.newerVersion(filter: "fade", found: 3, supported: 2)) {
      try Filters.step(filter: "fade", version: 3, parameters: [:], derived: [:], in: [FadeV2.self])
    }
    // The old version's ranges still hold for its values.
    #expect(throws: FilterError.self) {
      try Filters.step(
        filter: "fade", version: 1, parameters: ["amount": .number(7)], derived: [:], in: [FadeV2.self])
    }
  }

  @Test func catalogueDescribesEveryFilterFromItsDeclaration() {
    let catalog = Filters.catalog()
    #expect(catalog.map(\.name) == Filters.all.map { $0.name })
    #expect(Set(catalog.map(\.name)).count == catalog.count)
    let sepia = catalog.first { $0.name == "sepia" }
    #expect(sepia?.parameters.map(\.name) == ["intensity"])
    #expect(sepia?.parameters.first?.defaultValue == .number(1))
    #expect(sepia?.parameters.first?.kind == .number(0...1))
    let faceblur = catalog.first { $0.name == "faceblur" }
    #expect(faceblur?.parameters.first { $0.name == "exclude" }?.portable == false)
    #expect(faceblur?.parameters.first { $0.name == "minFace" }?.defaultValue == nil)
    for filter in catalog { #expect(filter.parameters.allSatisfy { !$0.help.isEmpty }, "\(filter.name)") }
  }

  @Test func numericChoicesInHandWrittenRecipes() throws {
    let rotate = try Filters.step(
      filter: "rotate", version: 1, parameters: ["angle": .number(270)], derived: [:])
    #expect(rotate.typed(RotateFilter.self)?.parameters.angle == .threeQuarters)
    #expect(
      throws: FilterError.outOfRange(
        filter: "rotate", key: "angle", value: .choice("45"), allowed: .choice(["90", "180", "270"]),
        image: nil)
    ) {
      try Filters.step(filter: "rotate", version: 1, parameters: ["angle": .number(45)], derived: [:])
    }
  }

  @Test func rotateAndFlipUseTheOrientationKernels() throws {
    let image = noiseImage(width: 5, height: 3, seed: 40)
    #expect(try apply("rotate", to: image) == image.rotated(quarterTurns: 1))
    #expect(try apply("rotate", ["angle": .choice("180")], to: image) == image.rotated(quarterTurns: 2))
    #expect(try apply("rotate", ["angle": .choice("270")], to: image) == image.rotated(quarterTurns: 3))
    #expect(try apply("flip", to: image) == image.flipped(horizontally: true))
    #expect(
      try apply("flip", ["direction": .choice("vertical")], to: image) == image.flipped(horizontally: false))
  }
}
