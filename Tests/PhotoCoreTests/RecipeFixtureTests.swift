import Foundation
import Testing

@testable import PhotoCore

/// The sample recipes in Fixtures/recipes are real: every one is read, checked and rendered here,
/// so the documentation cannot drift from the code. (The README's `--filter` words are parsed in
/// the command line's tests.)
@Suite struct RecipeFixtureTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The recipe file's steps, as (filter, version, parameters).
  static func recipe(_ name: String) throws -> [(String, Int, [String: JSONValue])] {
    let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/recipes/\(name)"))
    let json = try JSONParser.parse([UInt8](data))
    #expect(json.object?["formatIdentifier"] == .string("org.photoedit.adjustments"))
    #expect(json.object?["formatVersion"] == .number(1))
    return (json.object?["operations"]?.array ?? []).map { op in
      let o = op.object ?? [:]
      return (o["filter"]?.string ?? "", Int(o["version"]?.number ?? 0), o["parameters"]?.object ?? [:])
    }
  }

  @Test(arguments: ["house-look.json", "profile-picture.json", "redact.json"])
  func samplesApplyToAnyPhotoSize(name: String) throws {
    let recipe = try Self.recipe(name)
    #expect(!recipe.isEmpty)
    for (w, h) in [(120, 90), (61, 97)] {
      var image = noiseImage(width: w, height: h, seed: 60)
      for (filter, version, parameters) in recipe {
        // As `apply --recipe` does: the portable part, resolved against the image entering the step.
        let request = try Filters.portableRequest(filter: filter, version: version, parameters: parameters)
        // No face on noise: a detector that finds none must leave the bytes alone.
        let step = try request.resolve(
          in: ResolveContext(image: image, detector: Recording(faces: []), checker: FindsNothing()))
        if filter != "faceblur" {
          // Resolving fractions gives back the stored fractions (defaults filled in).
          let stored = step.stored.object?["parameters"]?.object ?? [:]
          for (key, value) in parameters { #expect(stored[key] == value, "\(name) \(key)") }
        }
        let before = image
        try step.render(on: &image)
        if filter == "faceblur" {
          #expect(image == before)
        } else {
          #expect(image != before, "\(name): \(filter) changed nothing")
        }
      }
    }
  }

  @Test func profilePictureIsASquareWithTransparentCorners() throws {
    let (filter, version, parameters) = try Self.recipe("profile-picture.json")[0]
    let step = try Filters.step(filter: filter, version: version, parameters: parameters, derived: [:])
    var image = noiseImage(width: 300, height: 200, seed: 61)
    try step.render(on: &image)
    #expect((image.width, image.height) == (160, 160))
    #expect(image[0, 0].a == 0 && image[80, 80].a == 255)
    #expect(Filters.transparencyFill(for: [step]) == RGBA(255, 255, 255))
  }

  @Test func strokesFileSample() throws {
    let bytes = Array(try Data(contentsOf: Self.root.appendingPathComponent("Fixtures/recipes/strokes.json")))
    let strokes = try StrokesFile.parse(bytes)
    let image = Image(width: 300, height: 100, fill: RGBA(255, 255, 255))
    let step = try step(
      "brush", ["pen": .choice("red"), "size": px(3), "strokes": .strokes(strokes)], for: image)
    #expect(step.stored.object?["parameters"]?.object?["strokes"]?.array?.count == 2)
    var out = image
    try step.render(on: &out)
    #expect(out[10, 10] == RGBA(255, 0, 0))
    #expect(out[150, 80] == RGBA(255, 0, 0))
  }
}
