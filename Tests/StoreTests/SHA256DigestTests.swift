import PhotoCore
import Testing

@testable import Recipe

/// A `SHA256Digest` holds 64 lowercase hexadecimal digits and nothing else: it is made by
/// hashing, or read from exactly that text (a sidecar's, a journal's, a corrections file's).
@Suite struct SHA256DigestTests {
  @Test func hashingGivesTheKnownDigest() {
    // The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    #expect(
      SHA256Digest(of: Array("abc".utf8)).hex
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(SHA256Digest(hex: SHA256Digest(of: []).hex) == SHA256Digest(of: []))
  }

  @Test(arguments: [
    "", "abc", String(repeating: "a", count: 63), String(repeating: "a", count: 65),
    String(repeating: "A", count: 64), "g" + String(repeating: "0", count: 63),
    " " + String(repeating: "0", count: 63), String(repeating: "0", count: 63) + "\n",
    String(repeating: "٠", count: 64),
  ])
  func anyOtherTextIsNoDigest(_ text: String) {
    #expect(SHA256Digest(hex: text) == nil)
    #expect(SHA256Digest(JSONValue.string(text)) == nil)
  }

  @Test func onlyAJSONStringIsRead() {
    let hex = String(repeating: "0", count: 64)
    #expect(SHA256Digest(JSONValue.string(hex))?.hex == hex)
    #expect(SHA256Digest(JSONValue.number(0)) == nil)
    #expect(SHA256Digest(nil as JSONValue?) == nil)
    #expect(SHA256Digest(hex: hex)!.json == .string(hex))
  }
}
