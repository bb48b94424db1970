import Foundation
import Testing

@testable import PhotoCore

/// The sample recipes in Fixtures/recipes and the examples in README.md are real: every one
/// is read, validated and rendered here, so the documentation cannot drift from the code.
@Suite struct RecipeFixtureTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  struct RecipeFile: Decodable {
    var formatIdentifier: String
    var formatVersion: Int
    var operations: [PhotoCore.Operation]
  }

  static func recipe(_ name: String) throws -> RecipeFile {
    let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/recipes/\(name)"))
    return try JSONDecoder().decode(RecipeFile.self, from: data)
  }

  @Test(arguments: ["house-look.json", "profile-picture.json", "redact.json"])
  func samplesApplyToAnyPhotoSize(name: String) throws {
    let recipe = try Self.recipe(name)
    #expect(recipe.formatIdentifier == "org.photoedit.adjustments" && recipe.formatVersion == 1)
    for (w, h) in [(120, 90), (61, 97)] {
      var image = noiseImage(width: w, height: h, seed: 60)
      for stored in recipe.operations {
        // As `apply --recipe` does: the portable part, resolved against the image entering the step.
        let pending = try Filters.pending(from: stored)
        var op: PhotoCore.Operation
        if pending.filter == "faceblur" {
          // No detector here: store "no face", which must leave the bytes alone.
          op = try Filters.validate(
            PhotoCore.Operation(
              filter: "faceblur", version: 1, parameters: stored.parameters, derived: ["faces": .array([])]))
        } else {
          op = try pending.resolve(for: image, context: noCascade)
          // Resolving fractions gives back the stored fractions (defaults filled in).
          for (key, value) in stored.parameters { #expect(op.parameters[key] == value, "\(name) \(key)") }
        }
        let before = image
        try Filters.render(op, on: &image, context: noCascade)
        if op.filter != "faceblur" { #expect(image != before, "\(name): \(op.filter) changed nothing") }
      }
    }
  }

  @Test func profilePictureIsASquareWithTransparentCorners() throws {
    let op = try Self.recipe("profile-picture.json").operations[0]
    var image = noiseImage(width: 300, height: 200, seed: 61)
    try Filters.render(op, on: &image, context: noCascade)
    #expect((image.width, image.height) == (160, 160))
    #expect(image[0, 0].a == 0 && image[80, 80].a == 255)
    #expect(Filters.background(for: [op]) == RGBA(255, 255, 255))
  }

  @Test func strokesFileSample() throws {
    let path = Self.root.appendingPathComponent("Fixtures/recipes/strokes.json").path
    let pending = try Filters.parse("brush:pen=red,size=3,strokes=\(path)") { p in
      Array(try Data(contentsOf: URL(fileURLWithPath: p)))
    }
    let image = Image(width: 300, height: 100, fill: RGBA(255, 255, 255))
    let op = try pending.resolve(for: image, context: noCascade)
    #expect(op.parameters["strokes"]?.array?.count == 2)
    var out = image
    try Filters.render(op, on: &out, context: noCascade)
    #expect(out[10, 10] == RGBA(255, 0, 0))
    #expect(out[150, 80] == RGBA(255, 0, 0))
  }

  /// Every `--filter WORD` in README.md parses (the strokes file is stubbed).
  @Test func documentedFilterWordsParse() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    var words: [String] = []
    for line in text.split(separator: "\n") where !line.contains("swift test") {
      var rest = Substring(line)
      while let r = rest.range(of: "--filter ") {
        let after = rest[r.upperBound...]
        let word = String(after.prefix { !" `|)".contains($0) })
        // Synopses such as `--filter NAME[:key=value,...]` or `pixelate:...` are placeholders.
        if !word.hasPrefix("NAME") && !word.hasSuffix("...") { words.append(word) }
        rest = after
      }
    }
    #expect(words.count >= 15)
    for word in words {
      do {
        _ = try Filters.parse(word) { _ in Array("[[[1, 1], [5, 5]]]".utf8) }
      } catch {
        Issue.record("README.md: --filter \(word): \(error)")
      }
    }
  }
}
