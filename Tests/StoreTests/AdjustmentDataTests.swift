import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

@Suite struct AdjustmentDataTests {
  func sample() -> AdjustmentData {
    AdjustmentData(
      original: .init(
        path: "beach.jpg.original", sha256: SHA256Digest(hex: String(repeating: "a", count: 64))!,
        bytes: 1234, width: 910,
        height: 1137, orientation: 6),
      render: RenderRecord(
        sha256: SHA256Digest(hex: String(repeating: "b", count: 64))!, format: .jpeg, quality: 90,
        subsampling: .s420),
      steps: [
        try! stored("mark", ["scale": .number(1.2)], derived: ["width": .number(25)]),
        try! stored("sepia", ["intensity": .number(0.8)]),
      ],
      history: [
        .apply(added: [try! stored("mark", ["scale": .number(1.2)], derived: ["width": .number(25)])]),
        .apply(added: [try! stored("sepia", ["intensity": .number(0.8)])]),
      ],
      undone: [.apply(added: [try! stored("vignette")])])
  }

  @Test func sidecarIsPrettyPrintedWithSortedKeys() throws {
    let text = String(decoding: sample().encoded(), as: UTF8.self)
    let topKeys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
      $0.split(separator: "\"")[1]
    }
    #expect(
      topKeys == [
        "formatIdentifier", "formatVersion", "history", "operations", "original", "render", "undone",
      ])
    #expect(text.contains("\"formatIdentifier\" : \"org.photoedit.adjustments\""))
    #expect(text.contains("\"formatVersion\" : 2"))
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
    let read = try readSidecar(sample().encoded())
    #expect(read.data == sample())
    #expect(read.migratedFrom == nil)
    #expect(!read.stepsMigrated)
  }

  @Test func versionZeroFixtureIsMigrated() throws {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixturePath("recipes/sidecar-v0.json"))))
    let read = try AdjustmentData.read(bytes, registry: Filters.all)
    #expect(read.migratedFrom == 0)
    #expect(read.data.formatVersion == 2)
    #expect(read.data.steps.map(\.filter) == ["sepia", "vignette"])
    #expect(read.data.steps.map(\.version) == [1, 1])
    #expect(read.data.steps[0].typed(SepiaFilter.self)?.parameters.intensity == 0.8)
    #expect(read.data.undone == [])
    #expect(read.data.original?.path == "beach.jpg.original")
    #expect(read.data.original?.bytes == 1_164_213)
    #expect(read.data.original?.orientation == 1)
    #expect(read.data.render?.quality == 90)
    // Written back, it is today's format and reads without migration.
    let again = try AdjustmentData.read(read.data.encoded(), registry: Filters.all)
    #expect(again.migratedFrom == nil)
    #expect(again.data == read.data)
  }

  @Test func olderFilterVersionIsMigratedAndFlagged() throws {
    let old = JSONValue.object([
      "filter": .string("old"), "version": .number(0), "parameters": .object(["value": .number(3)]),
    ])
    let json = sampleJSON {
      $0["operations"] = .array(($0["operations"]?.array ?? []) + [old])
      $0["history"] = .array(
        ($0["history"]?.array ?? []) + [.object(["change": .string("apply"), "steps": .array([old])])])
    }
    let read = try readSidecar(Array(json.utf8))
    #expect(read.stepsMigrated)
    #expect(read.data.steps.last == (try stored("old", ["amount": .number(3)])))
    #expect(read.data.steps.last?.version == 1)
  }

  func refusal(_ json: String) -> StoreError? {
    do {
      _ = try AdjustmentData.read(Array(json.utf8), registry: fakeRegistry)
      return nil
    } catch { return error }
  }

  func sampleJSON(_ edit: (inout [String: JSONValue]) -> Void) -> String {
    var object = try! JSONParser.parse(sample().encoded()).object!
    edit(&object)
    return String(decoding: JSONCoding.encode(JSONValue.object(object)), as: UTF8.self)
  }

  /// An edit that made a later step again stores both forms of that step; it reads back equal,
  /// and a `refreshed` list that cannot be (on an apply, empty, not a list, a bad step number,
  /// over 1000 entries) is a damaged sidecar.
  func refreshing() throws -> AdjustmentData {
    var data = sample()
    let markAfter = try stored("mark", ["scale": .number(1.5)], derived: ["width": .number(30)])
    let sepiaAfter = try stored("sepia", ["intensity": .number(0.8)])
    data.history.append(
      .refreshing(
        .edit(step: 1, before: data.steps[0], after: markAfter),
        refreshed: [StepRefresh(step: 2, before: data.steps[1], after: sepiaAfter)]))
    data.steps = [markAfter, sepiaAfter]
    data.undone = []
    return data
  }

  @Test func aRefreshingChangeRoundTrips() throws {
    let data = try refreshing()
    let text = String(decoding: data.encoded(), as: UTF8.self)
    #expect(text.contains("\"refreshed\" : ["))
    #expect(try readSidecar(data.encoded()).data == data)
  }

  @Test func aBadRefreshedListIsDamage() throws {
    let good = try JSONParser.parse(try refreshing().encoded()).object!
    func with(_ change: (inout [String: JSONValue]) -> Void, at index: Int = 2) -> String {
      var object = good
      var history = object["history"]!.array!
      var last = history[index].object!
      change(&last)
      history[index] = .object(last)
      object["history"] = .array(history)
      return String(decoding: JSONCoding.encode(JSONValue.object(object)), as: UTF8.self)
    }
    let entry = good["history"]!.array![2].object!["refreshed"]!.array![0]
    let field = "history[2].refreshed"
    #expect(
      refusal(with { $0["refreshed"] = .array([]) })
        == .invalidRecipe(.badValue(field: field, value: .array([]))))
    #expect(
      refusal(with { $0["refreshed"] = entry }) == .invalidRecipe(.badValue(field: field, value: entry)))
    let many = JSONValue.array(Array(repeating: entry, count: 1001))
    #expect(refusal(with { $0["refreshed"] = many }) == .invalidRecipe(.badValue(field: field, value: many)))
    var badStep = entry.object!
    badStep["step"] = .number(0)
    #expect(
      refusal(with { $0["refreshed"] = .array([.object(badStep)]) })
        == .invalidRecipe(.badValue(field: field + "[0]", value: .object(badStep))))
    // On an apply, nothing can have been made again.
    let onApply = with({ $0["refreshed"] = .array([entry]) }, at: 0)
    #expect(
      refusal(onApply) == .invalidRecipe(.badValue(field: "history[0].refreshed", value: .array([entry]))))
  }

  @Test func newerVersionIsRefusedNamingBoth() {
    let error = refusal(sampleJSON { $0["formatVersion"] = .number(4) })
    #expect(error == .newerFormat(found: 4, supported: 3))
  }

  @Test func foreignIdentifierIsRefused() {
    let error = refusal(sampleJSON { $0["formatIdentifier"] = .string("com.apple.photos.crop") })
    #expect(error == .foreignFormat(identifier: "com.apple.photos.crop"))
  }

  @Test func unknownFilterIsRefused() {
    let error = refusal(
      sampleJSON {
        $0["operations"] = .array([.object(["filter": .string("oilpaint"), "version": .number(1)])])
      })
    #expect(error == .step(index: 0, .unknownFilter("oilpaint")))
  }

  @Test func unknownFilterInUndoneIsRefusedToo() {
    let error = refusal(
      sampleJSON {
        $0["undone"] = .array([
          .object([
            "change": .string("apply"),
            "steps": .array([.object(["filter": .string("oilpaint"), "version": .number(1)])]),
          ])
        ])
      })
    #expect(error == .step(index: nil, .unknownFilter("oilpaint")))
  }

  @Test(arguments: ["", "{", "{\"formatIdentifier\": }", "[1, 2]", "not json at all"])
  func brokenJSONIsRefused(text: String) {
    guard case .invalidJSON = refusal(text) else {
      Issue.record("expected invalidJSON for \(text)")
      return
    }
  }

  /// What readers disagree on is refused, with the line and column of the problem.
  @Test func ambiguousJSONIsRefusedWhereItIs() {
    #expect(
      refusal(#"{"formatIdentifier": "a", "formatIdentifier": "b"}"#)
        == .invalidJSON(
          detail: #"line 1, column 27: the key "formatIdentifier" appears twice in one object"#,
          looksLike: nil))
    #expect(
      refusal("{\n  \"formatVersion\": 1e999\n}")
        == .invalidJSON(detail: "line 2, column 20: the number 1e999 is out of range", looksLike: nil))
  }

  @Test func missingFieldsAreNamed() {
    #expect(refusal(sampleJSON { $0["original"] = nil }) == .invalidRecipe(.missing(field: "original")))
    #expect(
      refusal(sampleJSON { $0["formatIdentifier"] = nil })
        == .invalidRecipe(.missing(field: "formatIdentifier")))
    #expect(
      refusal(sampleJSON { $0["formatVersion"] = .string("1") })
        == .invalidRecipe(.badValue(field: "formatVersion", value: .string("1"))))
    #expect(refusal(sampleJSON { $0["operations"] = nil }) == .invalidRecipe(.missing(field: "operations")))
    #expect(
      refusal(sampleJSON { $0["original"] = .object(["path": .string("x")]) })
        == .invalidRecipe(.missing(field: "original.sha256")))
  }

  /// A render record that cannot be is damage found when the sidecar is read, not a late failure
  /// of the encoder (`quality: 500`), and a subsampling this program does not write is never
  /// silently replaced by another.
  @Test(arguments: [
    ("quality", JSONValue.number(500)), ("quality", .number(0)), ("quality", .number(90.5)),
    ("quality", .string("90")), ("subsampling", .string("411")), ("format", .string("gif")),
    ("sha256", .string("abc")),
  ])
  func impossibleRenderRecordIsRefused(field: String, value: JSONValue) {
    let error = refusal(
      sampleJSON {
        var render = $0["render"]!.object!
        render[field] = value
        $0["render"] = .object(render)
      })
    #expect(error == .invalidRecipe(.badValue(field: "render.\(field)", value: value)))
  }

  /// The original's record is checked as the render's is: a planted sidecar cannot put a
  /// terminal's escape sequence in `show`'s checksum, or an impossible size or orientation.
  @Test(arguments: [
    ("sha256", JSONValue.string("\u{1B}[31m" + String(repeating: "a", count: 59))),
    ("sha256", .string(String(repeating: "A", count: 64))), ("sha256", .number(1)),
    ("bytes", .number(-1)), ("bytes", .number(0)), ("bytes", .number(1.5)), ("bytes", .number(1e300)),
    ("width", .number(0)), ("height", .number(-5)), ("orientation", .number(99)),
    ("orientation", .number(0)), ("orientation", .string("1")), ("path", .string("")),
    ("path", .string("a\u{0}b")), ("path", .number(3)),
  ])
  func impossibleOriginalRecordIsRefused(field: String, value: JSONValue) {
    let error = refusal(
      sampleJSON {
        var original = $0["original"]!.object!
        original[field] = value
        $0["original"] = .object(original)
      })
    #expect(error == .invalidRecipe(.badValue(field: "original.\(field)", value: value)))
  }

  @Test func recipeFileNeedsNoProvenance() throws {
    let json = """
      {"formatIdentifier": "org.photoedit.adjustments", "formatVersion": 1,
       "operations": [{"filter": "sepia", "version": 1, "parameters": {"intensity": 0.5}}], "undone": []}
      """
    let requests = try AdjustmentData.portableRequests(Array(json.utf8), registry: fakeRegistry)
    #expect(requests.map(\.filter) == ["sepia"])
    #expect(throws: StoreError.invalidRecipe(.missing(field: "original"))) {
      _ = try readSidecar(Array(json.utf8))
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

/// The review record (`review`, format version 3): written only with one, read strictly.
@Suite struct ReviewRecordTests {
  let base = AdjustmentDataTests()
  let record = ReviewRecord(
    state: .approved, time: UTCTime(iso8601: "2026-12-06T18:40:12Z")!,
    render: SHA256Digest(hex: String(repeating: "b", count: 64))!)

  @Test func roundTripsAsVersion3AndWithoutItStaysVersion2() throws {
    var data = base.sample()
    #expect(String(decoding: data.encoded(), as: UTF8.self).contains("\"formatVersion\" : 2"))
    data.review = record
    let text = String(decoding: data.encoded(), as: UTF8.self)
    #expect(text.contains("\"formatVersion\" : 3"))
    #expect(text.contains("\"time\" : \"2026-12-06T18:40:12Z\""))
    let read = try readSidecar(data.encoded())
    #expect(read.data == data)
    #expect(read.data.review == record)
    // Neither version is stale: version 2 is version 3 without the record.
    #expect(read.migratedFrom == nil)
    #expect(try readSidecar(base.sample().encoded()).migratedFrom == nil)
    // A version-2 sidecar's `review` is not one (version 2 has none): it is not read.
    let v2 = base.sampleJSON { $0["review"] = record.json }
    #expect(try readSidecar(Array(v2.utf8)).data.review == nil)
  }

  @Test func hostileRecordsAreDamagedSidecars() {
    func refusal(_ review: JSONValue) -> StoreError? {
      base.refusal(
        base.sampleJSON {
          $0["formatVersion"] = .number(3)
          $0["review"] = review
        })
    }
    var o = try! JSONParser.parse(JSONCoding.encode(record.json)).object!
    func with(_ key: String, _ value: JSONValue?) -> JSONValue {
      var copy = o
      copy[key] = value
      return .object(copy)
    }
    #expect(refusal(.string("approved")) == .invalidRecipe(.wrongType(field: "review")))
    #expect(refusal(with("state", nil)) == .invalidRecipe(.missing(field: "review.state")))
    for bad: JSONValue in [.string("published"), .number(1), .string("Approved")] {
      #expect(refusal(with("state", bad)) == .invalidRecipe(.badValue(field: "review.state", value: bad)))
    }
    let times: [JSONValue] = [
      .string("2026-12-06 18:40:12Z"), .string("2026-02-30T00:00:00Z"), .string("2026-12-06T24:00:00Z"),
      .string("2026-12-06T18:40:12+01:00"), .string("2026-12-06T18:40:60Z"), .string("+026-12-06T18:40:12Z"),
      .string("2026-12-06T18:40:12Z\u{1B}[2J"), .string(String(repeating: "9", count: 1_000_000)),
      .number(1_765_000_000), .string(""),
    ]
    for bad in times {
      #expect(refusal(with("time", bad)) == .invalidRecipe(.badValue(field: "review.time", value: bad)))
    }
    for bad: JSONValue in [.string("B" + String(repeating: "b", count: 63)), .string("abc"), .null] {
      #expect(refusal(with("render", bad)) == .invalidRecipe(.badValue(field: "review.render", value: bad)))
    }
    // A future time, a leap day and the last second of year 9999 are just data.
    for good in [
      "2999-01-01T00:00:00Z", "2024-02-29T12:00:00Z", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z",
    ] {
      o["time"] = .string(good)
      #expect(refusal(.object(o)) == nil)
    }
  }

  @Test func timesAreWrittenAndShownInUTC() throws {
    let t = try #require(UTCTime(iso8601: "2026-12-06T18:40:12Z"))
    #expect(t.seconds == 1_796_582_412)
    #expect(t.iso8601 == "2026-12-06T18:40:12Z")
    #expect(t.display == "2026-12-06 18:40 UTC")
    #expect(UTCTime(seconds: 0)?.iso8601 == "1970-01-01T00:00:00Z")
    #expect(UTCTime(seconds: -1)?.iso8601 == "1969-12-31T23:59:59Z")
    #expect(UTCTime(seconds: UTCTime.range.upperBound + 1) == nil)
    // Every day from year 0 to 9999 reads back as it is written (one a week, to stay quick).
    var s = UTCTime.range.lowerBound
    var wrong: [String] = []
    while s <= UTCTime.range.upperBound {
      let time = UTCTime(seconds: s)!
      if UTCTime(iso8601: time.iso8601) != time { wrong.append(time.iso8601) }
      s += 7 * 86_400 + 3_601
    }
    #expect(wrong == [])
  }
}
