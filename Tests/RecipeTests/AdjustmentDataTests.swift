import Foundation
import PhotoCore
import Testing

@testable import Recipe

@Suite struct AdjustmentDataTests {
  let validate: (Operation) throws(StoreError) -> Operation = { op throws(StoreError) in
    try FakeEngine().validate(op)
  }

  func sample() -> AdjustmentData {
    AdjustmentData(
      original: .init(
        path: "beach.jpg.original", sha256: String(repeating: "a", count: 64), bytes: 1234, width: 910,
        height: 1137, orientation: 6),
      render: .init(
        sha256: String(repeating: "b", count: 64), format: "jpeg", quality: 90, subsampling: "420"),
      operations: [
        Operation(
          filter: "mark", version: 1, parameters: ["scale": .number(1.2)],
          derived: ["faces": .array([.object(["x": .number(0.25)])])]),
        Operation(filter: "sepia", version: 1, parameters: ["intensity": .number(0.8)]),
      ],
      undone: [Operation(filter: "vignette", version: 1, parameters: [:])])
  }

  @Test func sidecarIsPrettyPrintedWithSortedKeys() throws {
    let text = String(decoding: sample().encoded(), as: UTF8.self)
    let topKeys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
      $0.split(separator: "\"")[1]
    }
    #expect(topKeys == ["formatIdentifier", "formatVersion", "operations", "original", "render", "undone"])
    #expect(text.contains("\"formatIdentifier\" : \"org.photoedit.adjustments\""))
    #expect(text.contains("\"formatVersion\" : 1"))
    #expect(text.contains("\"path\" : \"beach.jpg.original\""))
    #expect(text.contains("\"intensity\" : 0.8"))
    #expect(text.hasSuffix("}\n"))
    var empty = sample()
    empty.undone = []
    #expect(String(decoding: empty.encoded(), as: UTF8.self).contains("\"undone\" : []\n"))
    // Deterministic: the same data gives the same bytes.
    #expect(sample().encoded() == sample().encoded())
  }

  @Test func roundTrips() throws {
    let read = try AdjustmentData.read(sample().encoded(), requireProvenance: true, validate: validate)
    #expect(read.data == sample())
    #expect(read.migratedFrom == nil)
    #expect(!read.operationsMigrated)
  }

  @Test func versionZeroFixtureIsMigrated() throws {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixture("recipes/sidecar-v0.json"))))
    let read = try AdjustmentData.read(bytes, requireProvenance: true, validate: validate)
    #expect(read.migratedFrom == 0)
    #expect(read.data.formatVersion == 1)
    #expect(read.data.operations.map(\.filter) == ["sepia", "vignette"])
    #expect(read.data.operations.map(\.version) == [1, 1])
    #expect(read.data.operations[0].parameters == ["intensity": .number(0.8)])
    #expect(read.data.undone == [])
    #expect(read.data.original?.path == "beach.jpg.original")
    #expect(read.data.original?.bytes == 1_164_213)
    #expect(read.data.original?.orientation == 1)
    #expect(read.data.render?.quality == 90)
    // Written back, it is today's format and reads without migration.
    let again = try AdjustmentData.read(read.data.encoded(), requireProvenance: true, validate: validate)
    #expect(again.migratedFrom == nil)
    #expect(again.data == read.data)
  }

  @Test func olderFilterVersionIsMigratedAndFlagged() throws {
    var data = sample()
    data.operations.append(Operation(filter: "old", version: 0, parameters: ["value": .number(3)]))
    let read = try AdjustmentData.read(data.encoded(), requireProvenance: true, validate: validate)
    #expect(read.operationsMigrated)
    #expect(
      read.data.operations.last == Operation(filter: "old", version: 1, parameters: ["amount": .number(3)]))
  }

  func refusal(_ json: String) -> StoreError? {
    do {
      _ = try AdjustmentData.read(Array(json.utf8), requireProvenance: true, validate: validate)
      return nil
    } catch { return error }
  }

  func sampleJSON(_ edit: (inout [String: JSONValue]) -> Void) -> String {
    var object = try! JSONCoding.decode(JSONValue.self, from: sample().encoded()).object!
    edit(&object)
    return String(decoding: JSONCoding.encode(JSONValue.object(object)), as: UTF8.self)
  }

  @Test func newerVersionIsRefusedNamingBoth() {
    let error = refusal(sampleJSON { $0["formatVersion"] = .number(2) })
    #expect(error == .newerFormat(found: 2, supported: 1))
    #expect(error?.status == 65)
    #expect(error?.description.contains("version 2, newer than this photoedit's 1") == true)
  }

  @Test func foreignIdentifierIsRefused() {
    let error = refusal(sampleJSON { $0["formatIdentifier"] = .string("com.apple.photos.crop") })
    #expect(error == .foreignFormat(identifier: "com.apple.photos.crop"))
    #expect(error?.status == 65)
  }

  @Test func unknownFilterIsRefused() {
    let error = refusal(
      sampleJSON {
        $0["operations"] = .array([.object(["filter": .string("oilpaint"), "version": .number(1)])])
      })
    #expect(error == .unknownFilter(name: "oilpaint"))
    #expect(error?.description == "the recipe uses the unknown filter 'oilpaint'")
  }

  @Test func unknownFilterInUndoneIsRefusedToo() {
    let error = refusal(
      sampleJSON { $0["undone"] = .array([.object(["filter": .string("oilpaint"), "version": .number(1)])]) })
    #expect(error == .unknownFilter(name: "oilpaint"))
  }

  @Test(arguments: ["", "{", "{\"formatIdentifier\": }", "[1, 2]", "not json at all"])
  func brokenJSONIsRefused(text: String) {
    guard case .invalidJSON = refusal(text) else {
      Issue.record("expected invalidJSON for \(text)")
      return
    }
  }

  @Test func missingFieldsAreNamed() {
    #expect(refusal(sampleJSON { $0["original"] = nil }) == .invalidRecipe(detail: "no 'original'"))
    #expect(
      refusal(sampleJSON { $0["formatIdentifier"] = nil }) == .invalidRecipe(detail: "no 'formatIdentifier'"))
    #expect(
      refusal(sampleJSON { $0["formatVersion"] = .string("1") })
        == .invalidRecipe(detail: "'formatVersion' is not an integer"))
    #expect(
      refusal(sampleJSON { $0["operations"] = nil }) == .invalidRecipe(detail: "'operations' is missing"))
  }

  @Test func recipeFileNeedsNoProvenance() throws {
    let json = """
      {"formatIdentifier": "org.photoedit.adjustments", "formatVersion": 1,
       "operations": [{"filter": "sepia", "version": 1, "parameters": {"intensity": 0.5}}], "undone": []}
      """
    let read = try AdjustmentData.read(Array(json.utf8), requireProvenance: false, validate: validate)
    #expect(read.data.operations.count == 1)
    #expect(throws: StoreError.invalidRecipe(detail: "no 'original'")) {
      _ = try AdjustmentData.read(Array(json.utf8), requireProvenance: true, validate: validate)
    }
  }

  @Test func sha256IsLibcrypto() {
    #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test func storeFilesAreRecognised() {
    for name in [
      "a.jpg.photoedit.json", "dir/a.jpg.original", "a.jpg.photoedit.lock", "a.jpg.photoedit.journal",
      "a.jpg.photoedit-tmp-0123456789abcdef",
    ] {
      #expect(PhotoPaths.isStoreFile(name), "\(name)")
    }
    for name in ["a.jpg", "dir/original.png", "photoedit.json.jpg"] { #expect(!PhotoPaths.isStoreFile(name)) }
  }

  @Test func relativePaths() {
    #expect(Path.relative("/a/b/c.jpg", from: "/a/d") == "../b/c.jpg")
    #expect(Path.relative("/a/b/c.jpg", from: "/a/b") == "c.jpg")
    #expect(Path.normalized("/a/./b//../c") == "/a/c")
  }
}
