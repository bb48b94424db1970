import Codecs
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// The sidecar's record of `--strip-identifying`: `render.metadata`, read and checked.
@Suite struct RenderRecordMetadataTests {
  static let sha = SHA256Digest(hex: String(repeating: "c", count: 64))!

  func record(_ metadata: JSONValue?) -> JSONValue {
    var o: [String: JSONValue] = [
      "sha256": .string(Self.sha.hex), "format": .string("jpeg"), "quality": .number(90),
    ]
    if let metadata { o["metadata"] = metadata }
    return .object(o)
  }

  @Test func strippedIsWrittenAndReadBack() throws {
    let stripped = RenderRecord(
      sha256: Self.sha, format: .png, quality: 80, subsampling: nil, metadata: .stripped)
    #expect(stripped.json.object?["metadata"] == .string("stripped"))
    #expect(try RenderRecord(json: stripped.json) == stripped)
    // Kept is the default and is not written, so sidecars without the choice keep their bytes.
    let kept = RenderRecord(sha256: Self.sha, format: .png, quality: 80, subsampling: nil)
    #expect(kept.json.object?["metadata"] == nil)
    #expect(try RenderRecord(json: kept.json).metadata == .kept)
    #expect(try RenderRecord(json: record(.string("kept"))).metadata == .kept)
  }

  @Test(arguments: [JSONValue.string("none"), .string("Stripped"), .number(1), .bool(true), .null])
  func anyOtherValueIsDamage(value: JSONValue) {
    #expect(throws: StoreError.invalidRecipe(.badValue(field: "render.metadata", value: value))) {
      try RenderRecord(json: record(value))
    }
  }

  /// The command line's choice wins over the sidecar's, which wins over the default.
  @Test func theChoiceComesFromTheCommandLineThenTheSidecar() {
    var store = EditStore()
    let stripped = RenderRecord(
      sha256: Self.sha, format: .jpeg, quality: 90, subsampling: .s420, metadata: .stripped)
    let details = ImageDetails(format: .jpeg, fullWidth: 1, fullHeight: 1)
    #expect(store.encodeOptions(existing: nil, details: details, steps: []).metadataPolicy == .kept)
    #expect(store.encodeOptions(existing: stripped, details: details, steps: []).metadataPolicy == .stripped)
    store.settings.metadata = .kept
    #expect(store.encodeOptions(existing: stripped, details: details, steps: []).metadataPolicy == .kept)
    store.settings.metadata = .stripped
    #expect(store.encodeOptions(existing: nil, details: details, steps: []).metadataPolicy == .stripped)
  }
}
