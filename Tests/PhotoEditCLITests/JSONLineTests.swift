import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

@Suite struct JSONLineTests {
  @Test func leadingKeysComeFirstThenSorted() {
    let line = JSONLine.encode([
      "zeta": .number(1), "status": .string("ok"), "file": .string("a \"b\".jpg"), "alpha": .bool(true),
      "seconds": .number(0.25),
    ])
    #expect(line == #"{"file": "a \"b\".jpg", "status": "ok", "seconds": 0.25, "alpha": true, "zeta": 1}"#)
  }

  @Test func controlCharactersAreEscapedAndOutputParses() throws {
    let line = JSONLine.encode([
      "file": .string("tab\there\nnew\u{1}"), "faces": .array([.object(["x": .number(3)])]),
    ])
    let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(parsed?["file"] as? String == "tab\there\nnew\u{1}")
    #expect(!line.contains("\n"))
  }
}
