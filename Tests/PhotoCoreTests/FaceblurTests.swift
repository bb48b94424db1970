import Testing

@testable import PhotoCore

@Suite struct FaceblurTests {
  static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> JSONValue {
    .object(["x": .number(x), "y": .number(y), "width": .number(w), "height": .number(h)])
  }

  /// A stored faceblur with two faces on a 200×100 image: boxes (20, 10, 40×40) and (120, 30, 50×50).
  static let stored = Operation(
    filter: "faceblur", version: 1, parameters: [:],
    derived: ["faces": .array([face(0.1, 0.1, 0.2, 0.4), face(0.6, 0.3, 0.25, 0.5)])])

  @Test func rendersFromStoredFacesWithThePixelateKernel() throws {
    let image = noiseImage(width: 200, height: 100, seed: 50)
    var out = image
    try Filters.render(Self.stored, on: &out, context: noCascade)  // never asks for the cascade
    var expected = image
    // Radius: half the box diagonal (scale 1); block: box width / 10 blocks.
    expected.pixelate(.circle(centerX: 39.5, centerY: 29.5, radius: 800.0.squareRoot()), blockSize: 4)
    expected.pixelate(.circle(centerX: 144.5, centerY: 54.5, radius: 1250.0.squareRoot()), blockSize: 5)
    #expect(out == expected)
    #expect(out != image)
  }

  @Test func scaleBlocksExcludeAndStyles() throws {
    let image = noiseImage(width: 200, height: 100, seed: 51)
    func render(_ parameters: [String: JSONValue]) throws -> Image {
      var op = Self.stored
      op.parameters = parameters
      var out = image
      try Filters.render(op, on: &out, context: noCascade)
      return out
    }
    var expected = image
    expected.pixelate(
      .circle(centerX: 144.5, centerY: 54.5, radius: 1.5 * 1250.0.squareRoot()), blockSize: 10)
    #expect(
      try render(["exclude": .array([.number(0)]), "scale": .number(1.5), "blocks": .number(5)]) == expected)
    // Excluding every face (and indices that do not exist) leaves identical bytes.
    #expect(try render(["exclude": .array([.number(0), .number(1), .number(7)])]).bytes == image.bytes)
    var solid = image
    solid.fill(.circle(centerX: 39.5, centerY: 29.5, radius: 800.0.squareRoot()), with: RGBA(255, 0, 0))
    solid.fill(.circle(centerX: 144.5, centerY: 54.5, radius: 1250.0.squareRoot()), with: RGBA(255, 0, 0))
    #expect(try render(["style": .string("solid"), "color": .string("#FF0000")]) == solid)
    var blurred = image
    blurred.blur(.circle(centerX: 39.5, centerY: 29.5, radius: 800.0.squareRoot()), radius: 4)
    blurred.blur(.circle(centerX: 144.5, centerY: 54.5, radius: 1250.0.squareRoot()), radius: 5)
    #expect(try render(["style": .string("blur")]) == blurred)
  }

  @Test func noFaceLeavesIdenticalBytes() throws {
    let image = noiseImage(width: 64, height: 48, seed: 52)
    var out = image
    let op = Operation(filter: "faceblur", version: 1, parameters: [:], derived: ["faces": .array([])])
    try Filters.render(op, on: &out, context: noCascade)
    #expect(out.bytes == image.bytes)
  }

  @Test func malformedFacesAreRefused() {
    var image = noiseImage(width: 8, height: 8)
    let bad = Operation(
      filter: "faceblur", version: 1, parameters: [:],
      derived: ["faces": .array([.object(["x": .number(0.1)])])])
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Filters.render(bad, on: &image, context: noCascade)
    }
  }

  /// A box far outside the image can only come from a damaged sidecar: refused, not a crash.
  @Test func absurdStoredBoxesAreRefused() {
    var image = noiseImage(width: 8, height: 8)
    let bad = Operation(
      filter: "faceblur", version: 1, parameters: [:],
      derived: [
        "faces": .array([
          .object(["x": .number(1e300), "y": .number(0.1), "width": .number(0.2), "height": .number(0.2)])
        ])
      ])
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Filters.validate(bad)
    }
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Filters.render(bad, on: &image, context: noCascade)
    }
  }

  /// `exclude` names faces of one photo: a recipe taken to another photo must blur all of its faces.
  @Test func excludeIsNotCarriedToOtherPhotos() throws {
    let stored = Operation(
      filter: "faceblur", version: 1, parameters: ["exclude": .array([.number(0)]), "blocks": .number(12)],
      derived: ["faces": .array([])])
    let pending = try Filters.pending(from: stored)
    #expect(pending.values["exclude"] == nil)
    #expect(pending.values["blocks"] != nil)
  }

  /// Detection needs the cascade: its failure is reported as the cascade's own message.
  @Test func resolveReportsAMissingCascade() throws {
    let pending = try Filters.parse("faceblur", readFile: noFiles)
    #expect(throws: FilterError.cascadeUnavailable("no cascade in this test")) {
      try pending.resolve(for: noiseImage(width: 8, height: 8), context: noCascade)
    }
  }

  /// Boxes found on a reduced decode map back to the full image, as fractions, left to right.
  @Test func boxesFromAReducedImageMapBack() {
    let boxes = [
      FaceBox(x: 300, y: 40, width: 50, height: 50), FaceBox(x: 100, y: 200, width: 30, height: 30),
    ]
    // Found on a 1000×750 decode of a 4000×3000 image.
    let faces = FaceblurFilter.normalizedFaces(boxes, scaleX: 4, scaleY: 4, width: 4000, height: 3000)
    #expect(
      faces == [
        FaceblurFilter.Face(x: 0.1, y: 800.0 / 3000, width: 0.03, height: 0.04),
        FaceblurFilter.Face(x: 0.3, y: 160.0 / 3000, width: 0.05, height: 200.0 / 3000),
      ])
    #expect(FaceblurFilter.sameShape(reducedWidth: 10, reducedHeight: 8, width: 40, height: 30))
    #expect(FaceblurFilter.sameShape(reducedWidth: 667, reducedHeight: 375, width: 5336, height: 3000))
    #expect(!FaceblurFilter.sameShape(reducedWidth: 10, reducedHeight: 10, width: 40, height: 30))
  }

  @Test func detectorOptionsParse() throws {
    let p = try Filters.parse(
      "faceblur:scaleFactor=1.2,minNeighbors=5,minFace=40,maxFace=400,style=blur", readFile: noFiles)
    #expect(p.values["scaleFactor"] == .number(1.2))
    #expect(p.values["minNeighbors"] == .integer(5))
    #expect(p.values["minFace"] == .integer(40) && p.values["maxFace"] == .integer(400))
    #expect(
      throws: FilterError.outOfRange(filter: "faceblur", key: "scaleFactor", value: "1", range: "1.01...4")
    ) {
      try Filters.parse("faceblur:scaleFactor=1", readFile: noFiles)
    }
  }
}

/// The resolve path with a real (tiny, hand-made) cascade: a 6×6 window, one stage, one stump on
/// −1 × (whole window) + 2 × (bottom half). A window is a "face" when its bottom half is much
/// brighter than its top half.
@Suite struct FaceblurDetectionTests {
  static let cascadeXML = """
    <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
    <height>6</height><width>6</width>
    <stages><_><stageThreshold>0.</stageThreshold><weakClassifiers>
      <_><internalNodes>0 -1 0 1.</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages>
    <features><_><rects><_>0 0 6 6 -1.</_><_>0 3 6 3 2.</_></rects></_></features></cascade></opencv_storage>
    """

  static func context(reduced: Image? = nil, timings: TimingLog? = nil) -> FilterContext {
    FilterContext(
      cascade: { try HaarCascade(xml: Array(cascadeXML.utf8)) },
      recordTiming: { stage, seconds in timings?.add(stage, seconds) },
      reducedSource: reduced)
  }

  final class TimingLog: @unchecked Sendable {
    var entries: [(String, Double)] = []
    func add(_ s: String, _ d: Double) { entries.append((s, d)) }
  }

  /// A w×h image: rows above `split` at grey `top`, the rest at `bottom`.
  static func halves(width: Int, height: Int, split: Int, top: UInt8, bottom: UInt8) -> Image {
    var image = Image(width: width, height: height, fill: RGBA(top, top, top))
    for y in split..<height { for x in 0..<width { image[x, y] = RGBA(bottom, bottom, bottom) } }
    return image
  }

  @Test func detectsStoresNormalisedBoxesAndRecordsATiming() throws {
    let image = Self.halves(width: 6, height: 6, split: 3, top: 10, bottom: 50)
    let log = TimingLog()
    let op = try Filters.parse("faceblur:minNeighbors=0,blocks=2", readFile: noFiles)
      .resolve(for: image, context: Self.context(timings: log))
    #expect(op.derived == ["faces": .array([FaceblurTests.face(0, 0, 1, 1)])])
    #expect(log.entries.map(\.0) == ["detect"])
    #expect(log.entries.allSatisfy { $0.1 >= 0 })
    var out = image
    try Filters.render(op, on: &out, context: noCascade)
    // Blocks of 3: the circle covers the whole 6×6 image; each block is one half, so unchanged
    // grey values, but the block rows 0–2 and 3–5 keep their own means.
    var expected = image
    expected.pixelate(.circle(centerX: 2.5, centerY: 2.5, radius: 72.0.squareRoot() / 2), blockSize: 3)
    #expect(out == expected)
  }

  @Test func noFaceMeansIdenticalBytes() throws {
    let image = Self.halves(width: 6, height: 6, split: 3, top: 50, bottom: 10)
    let op = try Filters.parse("faceblur:minNeighbors=0", readFile: noFiles).resolve(
      for: image, context: Self.context())
    #expect(op.derived == ["faces": .array([])])
    var out = image
    try Filters.render(op, on: &out, context: noCascade)
    #expect(out.bytes == image.bytes)
  }

  /// Over 2 MP, detection runs on the reduced decode and the boxes are scaled back. The full
  /// image here is flat (no face anywhere), so a face can only come from the reduced copy.
  @Test func largeImagesDetectOnTheReducedSource() throws {
    let full = Image(width: 2400, height: 1200, fill: RGBA(30, 30, 30))
    let reduced = Self.halves(width: 12, height: 6, split: 3, top: 10, bottom: 50)
    let op = try Filters.parse("faceblur:minNeighbors=0,maxFace=1200", readFile: noFiles)
      .resolve(for: full, context: Self.context(reduced: reduced))
    guard let faces = FaceblurFilter.faces(op.derived) else {
      Issue.record("no faces stored")
      return
    }
    // Raw 6×6 windows at x = 0, 2, 4, 6 on the 12×6 copy: 1/2 of the width each, full height.
    #expect(faces.count == 4)
    let expected: [FaceblurFilter.Face] = [0.0, 1, 2, 3].map { k in
      FaceblurFilter.Face(x: k / 6, y: 0, width: 0.5, height: 1)
    }
    #expect(faces == expected)
  }

  /// Up to 2 MP the image itself is searched, even when a reduced copy is offered.
  @Test func smallImagesDetectAtFullSize() throws {
    let image = Self.halves(width: 6, height: 6, split: 3, top: 10, bottom: 50)
    let decoy = Self.halves(width: 3, height: 3, split: 1, top: 50, bottom: 10)
    let op = try Filters.parse("faceblur:minNeighbors=0", readFile: noFiles)
      .resolve(for: image, context: Self.context(reduced: decoy))
    #expect(op.derived == ["faces": .array([FaceblurTests.face(0, 0, 1, 1)])])
  }
}
