import Codecs
import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// `photoedit apply --corrections FILE DIR`: a review page's export applied through the store,
/// or refused whole with nothing changed.
@Suite struct CorrectionsTests {
  /// A corrections file for the fixture's photos, as the page writes it.
  static func file(_ f: ReviewFixture, _ entries: [[String: Any]]) throws -> String {
    let object: [String: Any] = [
      "formatIdentifier": "org.photoedit.review-corrections", "formatVersion": 1, "folder": "photos",
      "photos": entries,
    ]
    let path = f.folder.path("corrections-\(UUID().uuidString).json")
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func entry(_ f: ReviewFixture, _ photo: String, exclude: [Int], add: [[Double]], step: Int = 1)
    throws -> [String: Any]
  {
    ["photo": photo, "step": step, "found": try f.faceblur(photo).faces, "exclude": exclude, "add": add]
  }

  @Test func appliesExclusionsAndAddedBoxesThroughTheStore() throws {
    let f = try ReviewFixture(unedited: [])
    let originalBus = try decodeFile(f.path("ultralytics-bus.jpg.original"))
    let group = try decodeFile(f.path("opencv-group1.jpg.original"))
    let busFace = try f.faceblur("ultralytics-bus.jpg").faces[0]
    let tie = [0.08, 0.38, 0.12, 0.32]
    let file = try Self.file(
      f,
      [
        try Self.entry(f, "ultralytics-bus.jpg", exclude: [0], add: []),
        try Self.entry(f, "opencv-group1.jpg", exclude: [], add: [tie]),
      ])
    #expect(meanDifference(try decodeFile(f.path("ultralytics-bus.jpg")), originalBus, inside: busFace) > 8)
    let r = runCLI(["apply", "--corrections", file, f.photos])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains("ultralytics-bus.jpg: changed step 1 (faceblur)"))
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [0])
    let g = try f.faceblur("opencv-group1.jpg")
    #expect(g.add.count == 1 && g.faces.count == 8)
    for (a, b) in zip(g.add[0], tie) { #expect(abs(a - b) < 1e-9) }
    // The excluded face is visible again; the added box is pixelated.
    #expect(meanDifference(try decodeFile(f.path("ultralytics-bus.jpg")), originalBus, inside: busFace) < 3)
    #expect(meanDifference(try decodeFile(f.path("opencv-group1.jpg")), group, inside: tie) > 8)
    // The same file again: nothing to do, nothing written.
    let before = f.storeSnapshot()
    let again = runCLI(["apply", "--corrections", file, f.photos])
    #expect(again.status == 0)
    #expect(again.out.contains("already has these corrections"))
    #expect(f.storeSnapshot() == before)
    // And undo takes a correction back like any edit.
    #expect(runCLI(["undo", f.path("ultralytics-bus.jpg")]).status == 0)
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [])
  }

  /// Each bad entry, the status and the message; `whole` when the file itself is malformed (then
  /// it is refused whole even without --all-or-nothing).
  nonisolated(unsafe) static let refusals:
    [(String, ([String: Any]) -> [String: Any]?, Int32, String, whole: Bool)] = [
      (
        "unknown photo", { e in e.merging(["photo": "nobody.jpg"]) { $1 } }, 66,
        "no photo 'nobody.jpg' under", false
      ),
      (
        "outside the folder", { e in e.merging(["photo": "../photos/ultralytics-bus.jpg"]) { $1 } }, 65,
        "is not a photo under the reviewed folder", false
      ),
      (
        "absolute", { e in e.merging(["photo": "/etc/passwd.jpg"]) { $1 } }, 65,
        "is not a photo under the reviewed folder", false
      ),
      (
        "a store file", { e in e.merging(["photo": "ultralytics-bus.jpg.original"]) { $1 } }, 65,
        "is not a photo under", false
      ),
      ("hidden", { e in e.merging(["photo": ".hidden/x.jpg"]) { $1 } }, 65, "is not a photo under", false),
      (
        "unknown step", { e in e.merging(["step": 2]) { $1 } }, 65, "has no step 2: its recipe has 1 step",
        false
      ),
      (
        "unknown face", { e in e.merging(["exclude": [2]]) { $1 } }, 65,
        "has no face 2 (it will have 2 faces",
        false
      ),
      (
        "faces changed", { e in e.merging(["found": [[0.1, 0.1, 0.1, 0.1]]]) { $1 } }, 65,
        "are not the ones reviewed", false
      ),
      (
        "a box outside", { e in e.merging(["add": [[0.9, 0.9, 0.2, 0.2]]]) { $1 } }, 65,
        "'photos[1].add[0]' is out of range", true
      ),
      (
        "a bad step", { e in e.merging(["step": "one"]) { $1 } }, 65, "'photos[1].step' has the wrong type",
        true
      ),
      ("no exclude", { e in e.filter { $0.key != "exclude" } }, 65, "'photos[1].exclude' is missing", true),
    ]

  @Test(arguments: 0..<refusals.count)
  func withAllOrNothingABadEntryRefusesTheWholeFile(case n: Int) throws {
    let (_, change, status, message, _) = Self.refusals[n]
    let f = try ReviewFixture()
    // A good entry first: the bad one after it must still stop the whole file.
    let good = try Self.entry(f, "opencv-group1.jpg", exclude: [0], add: [])
    let bad = change(try Self.entry(f, "ultralytics-bus.jpg", exclude: [1], add: []))!
    let file = try Self.file(f, [good, bad])
    let before = f.storeSnapshot()
    let r = runCLI(["apply", "--corrections", file, f.photos, "--all-or-nothing"])
    #expect(r.status == status, "\(r.err)")
    #expect(r.err.hasPrefix("photoedit: \(file): "))
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.err.hasSuffix("; nothing was changed\n"))
    #expect(r.err.split(separator: "\n").count == 1)
    #expect(f.storeSnapshot() == before)
  }

  /// Without --all-or-nothing, an entry its photo cannot take is skipped, said on its own line
  /// naming the photo and why, and the good entry is applied; the run exits 1. A malformed file
  /// is still refused whole.
  @Test(arguments: 0..<refusals.count)
  func aBadEntryIsSkippedAndTheOthersAreApplied(case n: Int) throws {
    let (_, change, status, message, whole) = Self.refusals[n]
    let f = try ReviewFixture()
    let good = try Self.entry(f, "opencv-group1.jpg", exclude: [0], add: [])
    let badEntry = change(try Self.entry(f, "ultralytics-bus.jpg", exclude: [1], add: []))!
    let file = try Self.file(f, [good, badEntry])
    let before = f.storeSnapshot()
    let busBefore = f.storeSnapshot().filter { $0.key.hasPrefix("ultralytics-bus.jpg") }
    let r = runCLI(["apply", "--corrections", file, f.photos])
    let lines = r.err.split(separator: "\n").map(String.init)
    if whole {
      #expect(r.status == status, "\(r.err)")
      #expect(lines.count == 1 && lines[0].hasSuffix("; nothing was changed"), "\(r.err)")
      #expect(f.storeSnapshot() == before)
      return
    }
    #expect(r.status == 1, "\(r.err)")
    let photo = badEntry["photo"] as! String
    let skippedLines = lines.filter { $0.hasSuffix("; skipped") }
    #expect(skippedLines.count == 1, "\(r.err)")
    #expect(
      skippedLines.first?.hasPrefix("photoedit: \(file): photo '\(photo)'") == true
        || skippedLines.first?.hasPrefix("photoedit: \(file): no photo '\(photo)'") == true, "\(r.err)")
    #expect(skippedLines.first?.contains(message) == true, "\(r.err)")
    #expect(
      lines.last == "photoedit: \(file): 1 of 2 photos skipped (each said why above); the others were applied"
    )
    // The good entry was applied; the bus (the bad entry's photo when it names one) is untouched.
    #expect(try f.faceblur("opencv-group1.jpg").exclude == [0])
    #expect(r.out.contains("opencv-group1.jpg: changed step 1 (faceblur)"))
    #expect(f.storeSnapshot().filter { $0.key.hasPrefix("ultralytics-bus.jpg") } == busBefore)
  }

  /// A photo edited after the review (its faces found again differently) is skipped by name, in
  /// text and in --json; a file whose every entry is stale changes nothing and exits 1.
  @Test func aStalePhotoIsSkippedByName() throws {
    let f = try ReviewFixture()
    let bus = try Self.entry(f, "ultralytics-bus.jpg", exclude: [1], add: [])
    let group = try Self.entry(f, "opencv-group1.jpg", exclude: [2], add: [])
    let file = try Self.file(f, [bus, group])
    // Edited since: the detector's setting changed, so it found other faces.
    let edited = runCLI(["edit", f.path("opencv-group1.jpg"), "--step", "1", "--set", "minFace=80"])
    #expect(edited.status == 0, "\(edited.err)")
    #expect(try f.faceblur("opencv-group1.jpg").faces != group["found"] as! [[Double]])
    let groupBefore = f.storeSnapshot().filter { $0.key.hasPrefix("opencv-group1.jpg") }
    let r = runCLI(["apply", "--corrections", file, f.photos, "--json"])
    #expect(r.status == 1, "\(r.err)")
    #expect(
      r.err.contains(
        "photoedit: \(file): photo 'opencv-group1.jpg': step 1's faces are not the ones reviewed"), "\(r.err)"
    )
    let json = r.out.split(separator: "\n").map {
      try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    #expect(json.count == 2)
    #expect(
      json.contains { $0["photo"] as? String == "opencv-group1.jpg" && $0["status"] as? String == "error" })
    #expect(
      json.contains {
        ($0["file"] as? String)?.hasSuffix("ultralytics-bus.jpg") == true && $0["status"] as? String == "ok"
      })
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [1])
    #expect(f.storeSnapshot().filter { $0.key.hasPrefix("opencv-group1.jpg") } == groupBefore)

    // Only the stale photo left: nothing applied, exit 1, said so.
    let onlyStale = try Self.file(f, [group])
    let before = f.storeSnapshot()
    let alone = runCLI(["apply", "--corrections", onlyStale, f.photos])
    #expect(alone.status == 1)
    #expect(
      alone.err.hasSuffix(
        "photoedit: \(onlyStale): none of its 1 photo could be corrected; nothing was changed\n"),
      "\(alone.err)")
    #expect(f.storeSnapshot() == before)
  }

  @Test func aStepThatIsNotFaceblurIsRefused() throws {
    let f = try ReviewFixture(blurred: [], unedited: ["faces/astronaut.png"])
    #expect(runCLI(["apply", "--filter", "sepia", f.path("astronaut.png")]).status == 0)
    let file = try Self.file(
      f,
      [
        [
          "photo": "astronaut.png", "step": 1, "found": [] as [Any], "exclude": [] as [Any],
          "add": [] as [Any],
        ]
      ])
    let r = runCLI(["apply", "--corrections", file, f.photos])
    #expect(r.status == 1)
    #expect(r.err.contains("photo 'astronaut.png': step 1 is sepia, not faceblur; skipped\n"), "\(r.err)")
    let whole = runCLI(["apply", "--corrections", file, f.photos, "--all-or-nothing"])
    #expect(whole.status == 65)
    #expect(whole.err.contains("step 1 is sepia, not faceblur; nothing was changed"))
  }

  @Test func theFileIsBoundedAndMustBeCorrections() throws {
    let f = try ReviewFixture(blurred: [])
    let big = f.folder.path("big.json")
    try Data(repeating: 0x20, count: 1_100_000).write(to: URL(fileURLWithPath: big))
    let r = runCLI(["apply", "--corrections", big, f.photos, "--max-file-size", "1"])
    #expect(r.status == 65)
    #expect(r.err.contains("1100000 bytes, more than the limit of 1048576"))
    f.folder.write(
      "sidecar.json", Array(#"{"formatIdentifier": "org.photoedit.adjustments", "formatVersion": 2}"#.utf8))
    let foreign = runCLI(["apply", "--corrections", f.folder.path("sidecar.json"), f.photos])
    #expect(foreign.status == 65)
    #expect(foreign.err.contains("is not a review's corrections"))
    f.folder.write(
      "newer.json",
      Array(
        #"{"formatIdentifier": "org.photoedit.review-corrections", "formatVersion": 2, "photos": []}"#.utf8))
    #expect(
      runCLI(["apply", "--corrections", f.folder.path("newer.json"), f.photos]).err.contains(
        "newer than this photoedit's 1"))
    f.folder.write("torn.json", Array(#"{"formatIdentifier": "org.photoedit.review-co"#.utf8))
    #expect(runCLI(["apply", "--corrections", f.folder.path("torn.json"), f.photos]).status == 65)
    #expect(runCLI(["apply", "--corrections", f.folder.path("missing.json"), f.photos]).status == 66)
    // The folder is the one operand.
    #expect(runCLI(["apply", "--corrections", big]).status == 64)
    #expect(runCLI(["apply", "--corrections", big, f.photos, "--filter", "sepia"]).status == 64)
    // It must be a folder: a missing one is a missing input (66), a file a usage error (64).
    let missing = runCLI(["apply", "--corrections", big, f.folder.path("gone")])
    #expect(missing.status == 66)
    #expect(missing.err == "photoedit: \(f.folder.path("gone")): no such folder; nothing was changed\n")
    let photo = runCLI(["apply", "--corrections", big, big])
    #expect(photo.status == 64)
    #expect(photo.err.contains("is not a folder"), "\(photo.err)")
  }

  @Test func anEmptyListClearsExclusions() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    #expect(runCLI(["edit", f.path("ultralytics-bus.jpg"), "--step", "1", "--set", "exclude=1"]).status == 0)
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [1])
    let r = runCLI(["edit", f.path("ultralytics-bus.jpg"), "--step", "1", "--set", "exclude=,add="])
    #expect(r.status == 0, "\(r.err)")
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [])
  }

  @Test func theReaderChecksEveryField() throws {
    let good = Corrections(
      folder: "events",
      photos: [
        .init(
          photo: "a.jpg", step: 1, found: [Box(fractionX: 0.1, y: 0.2, width: 0.3, height: 0.4)],
          exclude: [0],
          add: [])
      ])
    #expect(try Corrections.read(good.encoded()) == good)
    // The photos approved or flagged on the page: read, each once, in one of three states.
    var reviewed = good
    reviewed.reviewed = [.init(photo: "a.jpg", state: .approved), .init(photo: "b.jpg", state: .flagged)]
    #expect(try Corrections.read(reviewed.encoded()) == reviewed)
    let head =
      #"{"formatIdentifier": "org.photoedit.review-corrections", "formatVersion": 1, "photos": [], "reviewed": "#
    #expect(
      throws: CorrectionsError.badField(
        field: "reviewed[0].state", problem: .outOfRange(allowed: "approved, flagged or unreviewed"))
    ) {
      try Corrections.read(Array((head + #"[{"photo": "a.jpg", "state": "published"}]}"#).utf8))
    }
    #expect(throws: CorrectionsError.duplicatePhoto(photo: "a.jpg")) {
      try Corrections.read(
        Array(
          (head + #"[{"photo": "a.jpg", "state": "approved"}, {"photo": "a.jpg", "state": "flagged"}]}"#).utf8
        ))
    }
    #expect(throws: CorrectionsError.badField(field: "reviewed", problem: .wrongType)) {
      try Corrections.read(Array((head + #"{}}"#).utf8))
    }
    #expect(throws: CorrectionsError.duplicatePhoto(photo: "a.jpg")) {
      try Corrections.read(Corrections(photos: good.photos + good.photos).encoded())
    }
    #expect(throws: CorrectionsError.invalidJSON(detail: "the top level is not an object")) {
      try Corrections.read(Array("[1]".utf8))
    }
  }
}
