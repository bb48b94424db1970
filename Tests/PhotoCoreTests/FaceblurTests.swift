import Synchronization
import Testing

@testable import PhotoCore

@Suite struct FaceblurTests {
  static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> JSONValue {
    .object(["x": .number(x), "y": .number(y), "width": .number(w), "height": .number(h)])
  }

  /// Two faces on a 200×100 image: boxes (20, 10, 40×40) and (120, 30, 50×50).
  static let faces = JSONValue.array([face(0.1, 0.1, 0.2, 0.4), face(0.6, 0.3, 0.25, 0.5)])

  static func stored(_ parameters: [String: JSONValue] = [:], faces: JSONValue = faces) throws -> Step {
    try Filters.step(filter: "faceblur", version: 1, parameters: parameters, derived: ["faces": faces])
  }

  @Test func rendersFromStoredFacesWithThePixelateKernel() throws {
    let image = noiseImage(width: 200, height: 100, seed: 50)
    var out = image
    try Self.stored().render(on: &out)  // never detects
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
      var out = image
      try Self.stored(parameters).render(on: &out)
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
    try Self.stored(faces: .array([])).render(on: &out)
    #expect(out.bytes == image.bytes)
  }

  /// Missing or malformed faces, or a box far outside the image (only a damaged sidecar has one),
  /// are refused when the step is read, never rendered as "no face".
  @Test func malformedFacesAreRefused() {
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Filters.step(filter: "faceblur", version: 1, parameters: [:], derived: [:])
    }
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Self.stored(faces: .array([.object(["x": .number(0.1)])]))
    }
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "faces")) {
      try Self.stored(faces: .array([Self.face(1e300, 0.1, 0.2, 0.2)]))
    }
    #expect(throws: FilterError.badDerivedState(filter: "faceblur", key: "extra")) {
      try Filters.step(
        filter: "faceblur", version: 1, parameters: [:], derived: ["faces": .array([]), "extra": .number(1)])
    }
  }

  /// `exclude` names faces of one photo: a recipe taken to another photo must blur all of its faces.
  @Test func excludeIsNotCarriedToOtherPhotos() throws {
    let step = try Self.stored(["exclude": .array([.number(0)]), "blocks": .number(12)])
    let request = step.portableRequest
    #expect(!request.values.contains { $0.name == "exclude" })
    #expect(request.values.contains { $0.name == "blocks" && $0.value == .integer(12) })
  }

  @Test func detectorOptionsAreTheDetectorsOwn() throws {
    let values: [String: ParameterValue] = [
      "detector": .choice("haar"),
      "scaleFactor": .number(1.2), "minNeighbors": .integer(5), "minFace": .integer(40),
      "maxFace": .integer(400),
      "style": .choice("blur"),
    ]
    let request = try Filters.request("faceblur", values: values)
    let step = try request.resolve(
      in: ResolveContext(image: noiseImage(width: 8, height: 8), detector: Recording(faces: []), checker: FindsNothing()))
    let p = try #require(step.typed(FaceblurFilter.self)?.parameters)
    var expected = DetectionOptions(scaleFactor: 1.2, minNeighbors: 5, minFace: 40, maxFace: 400)
    expected.detector = .haar
    #expect(p.detection == expected)
    #expect(
      throws: FilterError.outOfRange(
        filter: "faceblur", key: "scaleFactor", value: .number(1),
        allowed: .number(DetectionOptions.scaleFactorRange),
        image: nil)
    ) {
      try Filters.request("faceblur", values: ["scaleFactor": .number(1)])
    }
    #expect(
      throws: FilterError.outOfRange(
        filter: "faceblur", key: "maxFace", value: .integer(20), allowed: .integer(30...100_000), image: nil)
    ) {
      try Filters.request("faceblur", values: ["minFace": .integer(30), "maxFace": .integer(20)])
    }
  }

  /// The detector's faces are stored as fractions of the image, in the detector's order, and the
  /// detector gets the whole image at full size with the step's options.
  @Test func facesComeFromTheDetectorAtFullSize() throws {
    let image = noiseImage(width: 400, height: 300, seed: 53)
    let detector = Recording(faces: [
      Face(x: 40, y: 30, width: 80, height: 80), Face(x: 200, y: 150, width: 40, height: 60),
    ])
    let step = try step("faceblur", ["minFace": .integer(30)], for: image, detector: detector)
    let derived = try #require(step.typed(FaceblurFilter.self)?.derived)
    #expect(
      derived.faces == [
        Box(fractionX: 0.1, y: 0.1, width: 0.2, height: 80.0 / 300),
        Box(fractionX: 0.5, y: 0.5, width: 0.1, height: 0.2),
      ])
    #expect(detector.searched.withLock { $0 } == [ImageSize(400, 300)])
    #expect(detector.options.withLock { $0 }.map(\.minFace) == [30])
  }

  /// A detector's failure is the step's, with its fact.
  @Test func detectorFailureIsReported() throws {
    #expect(throws: FilterError.detection(filter: "faceblur", .tooManyCandidates(limit: 7))) {
      try step("faceblur", for: noiseImage(width: 8, height: 8), detector: Failing())
    }
  }
}

/// A detector that returns given faces and records what it was asked.
final class Recording: FaceDetector, @unchecked Sendable {
  let faces: [Face]
  let searched = Mutex<[ImageSize]>([])
  let options = Mutex<[DetectionOptions]>([])
  var identity: DetectorIdentity { DetectorIdentity(name: "recording", version: 1) }
  init(faces: [Face]) { self.faces = faces }
  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    searched.withLock { $0.append(ImageSize(image.width, image.height)) }
    self.options.withLock { $0.append(options) }
    return faces
  }
}

struct Failing: FaceDetector {
  var identity: DetectorIdentity { DetectorIdentity(name: "failing", version: 1) }
  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    throw .tooManyCandidates(limit: 7)
  }
}
