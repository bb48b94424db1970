import Testing

@testable import PhotoCore

@Suite struct FilterParsingTests {
  func parse(_ word: String) throws -> PendingOperation { try Filters.parse(word, readFile: noFiles) }

  @Test func namesAndValues() throws {
    #expect(try parse("sepia").values.isEmpty)
    #expect(try parse("sepia:intensity=0.8").values == ["intensity": .number(0.8)])
    let p = try parse("pixelate:shape=circle,center=50%:10,radius=12.5%,block=3")
    #expect(p.values["center"] == .point(Point(x: .fraction(0.5), y: .pixels(10))))
    #expect(p.values["radius"] == .length(.fraction(0.125)))
    #expect(p.values["block"] == .length(.pixels(3)))
    #expect(try parse("faceblur:exclude=0/2/5").values["exclude"] == .integers([0, 2, 5]))
    #expect(try parse("crop:aspect=16:9").values["aspect"] == .ratio(16, 9))
    #expect(
      try parse("brush:color=#11223344,points=1:2").values["color"] == .color(RGBA(0x11, 0x22, 0x33, 0x44)))
    #expect(
      try parse("brush:color=#aabbcc,points=1:2").values["color"] == .color(RGBA(0xAA, 0xBB, 0xCC, 0xFF)))
    #expect(
      try parse("brush:points=1:2/3:4/5%:6%").values["points"]
        == .points([
          Point(x: .pixels(1), y: .pixels(2)), Point(x: .pixels(3), y: .pixels(4)),
          Point(x: .fraction(0.05), y: .fraction(0.06)),
        ]))
  }

  @Test func errorsNameTheFilterTheKeyAndTheRange() {
    #expect(throws: FilterError.unknownFilter("sepai")) { try parse("sepai") }
    #expect(throws: FilterError.unknownFilter("")) { try parse(":intensity=1") }
    #expect(throws: FilterError.unknownParameter(filter: "sepia", key: "amount", known: ["intensity"])) {
      try parse("sepia:amount=1")
    }
    #expect(throws: FilterError.outOfRange(filter: "sepia", key: "intensity", value: "1.5", range: "0...1")) {
      try parse("sepia:intensity=1.5")
    }
    #expect(
      throws: FilterError.badValue(filter: "sepia", key: "intensity", value: "lots", expected: "a number")
    ) {
      try parse("sepia:intensity=lots")
    }
    #expect(
      throws: FilterError.badValue(filter: "sepia", key: "intensity", value: "nan", expected: "a number")
    ) {
      try parse("sepia:intensity=nan")
    }
    #expect(throws: FilterError.malformedParameter(filter: "sepia", text: "")) { try parse("sepia:") }
    #expect(throws: FilterError.malformedParameter(filter: "sepia", text: "intensity")) {
      try parse("sepia:intensity")
    }
    #expect(throws: FilterError.duplicateParameter(filter: "sepia", key: "intensity")) {
      try parse("sepia:intensity=1,intensity=0")
    }
    #expect(
      throws: FilterError.badValue(filter: "rotate", key: "angle", value: "45", expected: "one of 90|180|270")
    ) {
      try parse("rotate:angle=45")
    }
    #expect(
      throws: FilterError.badValue(
        filter: "brush", key: "color", value: "#12345", expected: "a colour #RRGGBB or #RRGGBBAA")
    ) {
      try parse("brush:color=#12345,points=1:1")
    }
    #expect(
      throws: FilterError.outOfRange(
        filter: "pixelate", key: "center", value: "120%:5", range: "X:Y, pixels or 0%...100%")
    ) {
      try parse("pixelate:shape=circle,center=120%:5,radius=3")
    }
    #expect(
      throws: FilterError.badValue(
        filter: "brush", key: "points", value: "1:2/3", expected: "points X:Y/X:Y/...")
    ) {
      try parse("brush:points=1:2/3")
    }
    #expect(throws: FilterError.missingParameter(filter: "pixelate", key: "radius")) {
      try parse("pixelate:shape=circle,center=1:1")
    }
    #expect(throws: FilterError.conflictingParameters(filter: "pixelate", keys: ["shape=circle", "x"])) {
      try parse("pixelate:shape=circle,center=1:1,radius=2,x=3")
    }
    #expect(throws: FilterError.conflictingParameters(filter: "crop", keys: ["aspect", "x"])) {
      try parse("crop:aspect=1:1,x=3")
    }
    #expect(
      throws: FilterError.outOfRange(
        filter: "faceblur", key: "maxFace", value: "20", range: ">= minFace (30)")
    ) {
      try parse("faceblur:minFace=30,maxFace=20")
    }
  }

  @Test func descriptionsAreOneLine() {
    let errors: [FilterError] = [
      .unknownFilter("x"), .unknownParameter(filter: "sepia", key: "a", known: ["intensity"]),
      .outOfRange(filter: "sepia", key: "intensity", value: "2", range: "0...1"),
      .newerVersion(filter: "sepia", found: 3, supported: 1),
      .regionOutsideImage(filter: "crop", region: "rectangle", width: 4, height: 3),
    ]
    for e in errors { #expect(!e.description.contains("\n") && !e.description.isEmpty) }
    #expect(
      FilterError.outOfRange(filter: "sepia", key: "intensity", value: "1.5", range: "0...1").description
        == "sepia: intensity=1.5 is out of range (allowed: 0...1)")
    #expect(
      FilterError.newerVersion(filter: "sepia", found: 3, supported: 1).description
        == "sepia: operation version 3 is newer than this program supports (1)")
  }

  /// A pixel position beyond the image is refused when the step meets the image.
  @Test func pixelPositionsOutsideTheImage() throws {
    let image = noiseImage(width: 50, height: 40)
    #expect(
      throws: FilterError.outOfRange(
        filter: "pixelate", key: "center", value: "60:5",
        range: "X:Y, pixels or 0%...100%; the image is 50x40")
    ) { try apply("pixelate:shape=circle,center=60:5,radius=3", to: image) }
  }
}

@Suite struct FilterRegistryTests {
  @Test func storedOperationsCarryEveryParameterNormalised() throws {
    let image = noiseImage(width: 200, height: 100)
    let op = try Filters.parse("vignette:intensity=0.5", readFile: noFiles).resolve(
      for: image, context: noCascade)
    #expect(
      op
        == Operation(
          filter: "vignette", version: 1, parameters: ["intensity": .number(0.5), "radius": .number(1)]))
    let crop = try Filters.parse("crop:x=20,y=10,width=100,height=50", readFile: noFiles)
      .resolve(for: image, context: noCascade)
    #expect(crop.parameters["x"] == .number(0.1) && crop.parameters["y"] == .number(0.1))
    #expect(crop.parameters["width"] == .number(0.5) && crop.parameters["height"] == .number(0.5))
    #expect(crop.parameters["shape"] == .string("rect"))
    #expect(crop.parameters["background"] == .string("#FFFFFFFF"))
  }

  @Test func pendingFromAStoredOperationDropsDerivedState() throws {
    let op = Operation(
      filter: "faceblur", version: 1, parameters: ["blocks": .number(12)],
      derived: [
        "faces": .array([
          .object(["x": .number(0.1), "y": .number(0.2), "width": .number(0.3), "height": .number(0.3)])
        ])
      ])
    let pending = try Filters.pending(from: op)
    #expect(pending.filter == "faceblur")
    #expect(pending.values["blocks"] == .integer(12))
    #expect(pending.values["style"] == .choice("pixelate"))
    // A stored crop resolves on another image to the same fractions.
    let crop = Operation(
      filter: "crop", version: 1,
      parameters: ["x": .number(0.25), "y": .number(0), "width": .number(0.5), "height": .number(1)])
    let again = try Filters.pending(from: crop).resolve(
      for: noiseImage(width: 8, height: 6), context: noCascade)
    #expect(again.parameters["x"] == .number(0.25) && again.parameters["width"] == .number(0.5))
  }

  @Test func validateRefusesWhatItCannotRender() {
    #expect(throws: FilterError.unknownFilter("emboss")) {
      try Filters.validate(Operation(filter: "emboss", version: 1, parameters: [:]))
    }
    #expect(throws: FilterError.newerVersion(filter: "sepia", found: 2, supported: 1)) {
      try Filters.validate(Operation(filter: "sepia", version: 2, parameters: [:]))
    }
    #expect(throws: FilterError.unknownParameter(filter: "sepia", key: "amount", known: ["intensity"])) {
      try Filters.validate(Operation(filter: "sepia", version: 1, parameters: ["amount": .number(1)]))
    }
    #expect(throws: FilterError.outOfRange(filter: "sepia", key: "intensity", value: "3", range: "0...1")) {
      try Filters.validate(Operation(filter: "sepia", version: 1, parameters: ["intensity": .number(3)]))
    }
    #expect(
      throws: FilterError.badValue(filter: "sepia", key: "intensity", value: "\"high\"", expected: "0...1")
    ) {
      try Filters.validate(Operation(filter: "sepia", version: 1, parameters: ["intensity": .string("high")]))
    }
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Filters.validate(Operation(filter: "faceblur", version: 1, parameters: [:]))
    }
    #expect(throws: FilterError.badDerivedState(filter: "sepia", key: "faces")) {
      try Filters.validate(
        Operation(filter: "sepia", version: 1, parameters: [:], derived: ["faces": .array([])]))
    }
    #expect(throws: FilterError.missingParameter(filter: "pixelate", key: "x")) {
      try Filters.validate(Operation(filter: "pixelate", version: 1, parameters: [:]))
    }
  }

  /// Version 2 of a test filter renamed `amount` to `intensity`; a version-1 operation migrates.
  struct FadeV2: Filter {
    static let name = "fade"
    static let summary = "test"
    static let version = 2
    static let parameters = [FilterParameter("intensity", .number(0...1), default: .number(1), help: "")]
    static func migrate(_ parameters: [String: JSONValue], from version: Int) throws(FilterError) -> [String:
      JSONValue]
    {
      var p = parameters
      if version < 2, let a = p.removeValue(forKey: "amount") { p["intensity"] = a }
      return p
    }
    static func render(
      _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
    ) {}
  }

  @Test func olderVersionsAreMigrated() throws {
    let old = Operation(filter: "fade", version: 1, parameters: ["amount": .number(0.3)])
    #expect(
      try Filters.validate(old, in: [FadeV2.self])
        == Operation(filter: "fade", version: 2, parameters: ["intensity": .number(0.3)]))
    #expect(throws: FilterError.newerVersion(filter: "fade", found: 3, supported: 2)) {
      try Filters.validate(Operation(filter: "fade", version: 3, parameters: [:]), in: [FadeV2.self])
    }
    // Every real filter's migration from its own version is the identity.
    for type in Filters.all {
      let migrated = try type.migrate(["k": .number(1)], from: type.version)
      #expect(migrated == ["k": .number(1)])
    }
  }

  @Test func catalogueListsEveryFilterAndParameter() {
    let text = Filters.catalogText()
    guard case .array(let filters) = Filters.catalogJSON() else {
      Issue.record("catalogue is not a list")
      return
    }
    #expect(filters.count == Filters.all.count)
    for (index, entry) in filters.enumerated() {
      let type: any Filter.Type = Filters.all[index]
      let name = type.name
      let version = type.version
      let summary = type.summary
      let specs: [FilterParameter] = type.parameters
      let line = "\(name) (version \(version)): \(summary)"
      #expect(text.contains(line))
      let o = entry.object ?? [:]
      #expect(o["name"] == .string(name))
      #expect(o["version"] == .number(Double(version)))
      let params = o["parameters"]?.array ?? []
      #expect(params.count == specs.count)
      for (spec, p) in zip(specs, params) {
        let object = p.object ?? [:]
        #expect(text.contains("  \(spec.name) "))
        #expect(object["name"] == .string(spec.name))
        #expect(object["range"] == .string(spec.rangeText))
        #expect(object["help"] == .string(spec.help))
        #expect(object["type"] == .string(spec.typeName))
      }
    }
    #expect(text.contains("intensity  number  0...1"))
    let names = Filters.all.map { $0.name }
    #expect(Set(names).count == names.count)
  }

  @Test func numericChoicesInHandWrittenRecipes() throws {
    let op = try Filters.validate(
      Operation(filter: "rotate", version: 1, parameters: ["angle": .number(270)]))
    #expect(op.parameters["angle"] == .string("270"))
    #expect(throws: FilterError.outOfRange(filter: "rotate", key: "angle", value: "45", range: "90|180|270"))
    {
      try Filters.validate(Operation(filter: "rotate", version: 1, parameters: ["angle": .number(45)]))
    }
  }

  @Test func rotateAndFlipUseTheOrientationKernels() throws {
    let image = noiseImage(width: 5, height: 3, seed: 40)
    #expect(try apply("rotate", to: image) == image.rotated(quarterTurns: 1))
    #expect(try apply("rotate:angle=180", to: image) == image.rotated(quarterTurns: 2))
    #expect(try apply("rotate:angle=270", to: image) == image.rotated(quarterTurns: 3))
    #expect(try apply("flip", to: image) == image.flipped(horizontally: true))
    #expect(try apply("flip:direction=vertical", to: image) == image.flipped(horizontally: false))
  }
}

/// The worked example of README.md, compiled and run against a registry that holds it.
public struct InvertFilter: Filter {
  public static let name = "invert"
  public static let summary = "Inverts the colours."
  public static let version = 1
  public static let parameters = [
    FilterParameter("amount", .number(0...1), default: .number(1), help: "0 leaves the image unchanged")
  ]

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    let t = p.number("amount")
    for i in image.bytes.indices where i % 4 != 3 {
      let v = Double(image.bytes[i])
      image.bytes[i] = UInt8((v + t * (255 - 2 * v)).rounded())
    }
  }
}

@Suite struct DocumentedExampleTests {
  @Test func invertExampleWorks() throws {
    let op = try Filters.validate(
      Operation(filter: "invert", version: 1, parameters: [:]), in: [InvertFilter.self])
    #expect(op.parameters == ["amount": .number(1)])
    var image = Image(width: 1, height: 1, fill: RGBA(0, 100, 255, 7))
    let values = try Filters.decodeValues(op.parameters, of: InvertFilter.self)
    try InvertFilter.render(
      FilterValues(filter: "invert", values: values), derived: [:], on: &image, context: noCascade)
    #expect(image[0, 0] == RGBA(255, 155, 0, 7))
  }
}
