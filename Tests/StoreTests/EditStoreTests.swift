import Codecs
import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// The store's file protocol through its API, in temporary folders, on the fake engine.
@Suite struct EditStoreTests {
  let folder = try! TemporaryFolder()
  let originalBytes = FakeEngine.imageFile(width: 6, height: 4, seed: 9)
  var photo: String { folder.path("p.jpg") }

  init() { folder.write("p.jpg", originalBytes) }

  func sidecar() throws -> AdjustmentData {
    try readSidecar(folder.read("p.jpg.photoedit.json")!).data
  }

  @Test func firstApplyPreservesOriginalWritesRenderAndSidecar() throws {
    let report = try fakeStore().apply([step("invert")], to: photo, output: nil)
    #expect(folder.names() == ["p.jpg", "p.jpg.original", "p.jpg.photoedit.json"])
    #expect(folder.read("p.jpg.original") == originalBytes)
    var expected = FakeEngine.pixels(of: originalBytes)!
    try stored("invert").render(on: &expected)
    let render = folder.read("p.jpg")!
    #expect(FakeEngine.pixels(of: render) == expected)
    let data = try sidecar()
    #expect(
      data.original
        == .init(
          path: "p.jpg.original", sha256: SHA256Digest(of: originalBytes), bytes: originalBytes.count,
          width: 6,
          height: 4, orientation: 1))
    // Quality 90 by default; the JPEG input's subsampling (the fake says 4:2:2); re-encoded (the
    // fake engine has no lossless route).
    #expect(
      data.render
        == RenderRecord(
          sha256: SHA256Digest(of: render), format: .jpeg, quality: 90, subsampling: .s422, route: .reencode))
    #expect(data.steps.map(\.filter) == ["invert"])
    #expect(report.stepCount == 1)
    #expect(report.added.map(\.filter) == ["invert"])
  }

  @Test func applyApplyUndoRedoRevertRestoresTheOriginalBytes() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    _ = try store.apply([step("add", ["amount": .integer(5)]), step("mark")], to: photo, output: nil)
    #expect(try sidecar().steps.map(\.filter) == ["invert", "add", "mark"])
    #expect(try sidecar().steps[2].typed(MarkFake.self)?.derived.width == 6)
    let twoEdits = folder.read("p.jpg")!
    #expect(folder.read("p.jpg.original") == originalBytes)

    // undo takes back the last change: the apply of both add and mark.
    let undid = try store.undo(photo)
    #expect(undid.change == .apply(added: try sidecar().undone.last!.steps))
    #expect(try sidecar().steps.map(\.filter) == ["invert"])
    #expect(try sidecar().undone.map { $0.steps.map(\.filter) } == [["add", "mark"]])
    _ = try store.undo(photo)
    #expect(try sidecar().steps.isEmpty)
    #expect(try sidecar().undone.map { $0.steps.map(\.filter) } == [["add", "mark"], ["invert"]])
    // With every change undone the photo is the original's exact bytes.
    #expect(folder.read("p.jpg") == originalBytes)
    #expect(fakeStore().inspect(photo).state == .unedited)
    #expect(throws: StoreError.nothingToUndo) { try store.undo(photo) }
    _ = try store.redo(photo)
    _ = try store.redo(photo)
    // Deterministic: undo then redo gives the render back byte for byte.
    #expect(folder.read("p.jpg") == twoEdits)
    #expect(try sidecar().steps.count == 3)
    #expect(throws: StoreError.nothingToRedo) { try store.redo(photo) }

    _ = try store.revert(photo)
    #expect(folder.names() == ["p.jpg"])
    #expect(SHA256.hex(folder.read("p.jpg")!) == SHA256.hex(originalBytes))
    // Reverting an unedited photo is a harmless no-op.
    #expect(try store.revert(photo).reverted == false)
  }

  @Test func undoToNothingKeepsTheSidecarForRedo() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    _ = try store.undo(photo)
    #expect(try sidecar().steps.isEmpty)
    #expect(folder.read("p.jpg") == originalBytes)
    #expect(throws: StoreError.nothingToUndo) { try store.undo(photo) }
    _ = try store.redo(photo)
    #expect(try sidecar().steps.count == 1)
  }

  @Test func applyAfterUndoDropsTheRedoList() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    _ = try store.apply([step("mark")], to: photo, output: nil)
    _ = try store.undo(photo)
    _ = try store.apply([step("add")], to: photo, output: nil)
    #expect(try sidecar().steps.map(\.filter) == ["invert", "add"])
    #expect(try sidecar().undone.isEmpty)
  }

  @Test func rendersFromTheOriginalNotThePreviousRender() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    _ = try store.apply([step("invert")], to: photo, output: nil)
    // invert twice from the original is the original's pixels exactly.
    #expect(FakeEngine.pixels(of: folder.read("p.jpg")!) == FakeEngine.pixels(of: originalBytes))
  }

  @Test func modifiedRenderIsRefusedWithoutForce() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    var changed = folder.read("p.jpg")!
    changed[20] ^= 0xFF
    folder.write("p.jpg", changed)
    let before = folder.state()
    let path = photo
    let commands: [() throws -> Void] = [
      { _ = try fakeStore().apply([step("add")], to: path, output: nil) },
      { _ = try fakeStore().undo(path) },
      { _ = try fakeStore().revert(path) },
      { _ = try fakeStore().render(path) },
    ]
    for command in commands {
      #expect(throws: StoreError.renderModified) { try command() }
      #expect(folder.state() == before)
    }
    #expect(fakeStore().inspect(photo).state == .modified)
    #expect(throws: StoreError.self) { try fakeStore().check(photo, repair: true) }
    _ = try fakeStore(force: true).revert(photo)
    #expect(folder.read("p.jpg") == originalBytes)
  }

  @Test func refusesStoreFilesAsPhotos() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    #expect(throws: StoreError.isPreservedOriginal(photo: photo)) {
      try fakeStore().apply([step("add")], to: photo + ".original", output: nil)
    }
    #expect(throws: StoreError.isSidecar(photo: photo)) {
      try fakeStore().undo(photo + ".photoedit.json")
    }
  }

  @Test func missingOriginalIsRefusedAndSaysWhatToDo() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    try FileManager.default.removeItem(atPath: folder.path("p.jpg.original"))
    let before = folder.state()
    let error = #expect(throws: StoreError.self) { try fakeStore().undo(photo) }
    #expect(error == .originalMissing(original: folder.path("p.jpg.original")))
    #expect(folder.state() == before)
    #expect(fakeStore().inspect(photo).state == .damaged)
  }

  @Test func changedOriginalIsRefused() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    try FileManager.default.removeItem(atPath: folder.path("p.jpg.original"))
    folder.write("p.jpg.original", FakeEngine.imageFile(width: 6, height: 4, seed: 10))
    #expect(throws: StoreError.originalChanged(original: folder.path("p.jpg.original"))) {
      try fakeStore().revert(photo)
    }
  }

  @Test func strayOriginalIsRefused() throws {
    folder.write("p.jpg.original", originalBytes)
    #expect(throws: StoreError.strayOriginal(original: photo + ".original")) {
      try fakeStore().apply([step("invert")], to: photo, output: nil)
    }
    #expect(folder.names() == ["p.jpg", "p.jpg.original"])
  }

  @Test func newerSidecarRefusesEveryCommandAndChangesNothing() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    var object = try JSONParser.parse(folder.read("p.jpg.photoedit.json")!).object!
    object["formatVersion"] = .number(7)
    folder.write("p.jpg.photoedit.json", JSONCoding.encode(JSONValue.object(object)))
    let before = folder.state()
    let expected = StoreError.sidecarUnusable(
      .newerFormat(found: 7, supported: 3), original: photo + ".original")
    #expect(throws: expected) { try fakeStore().apply([step("add")], to: photo, output: nil) }
    #expect(throws: expected) { try fakeStore().undo(photo) }
    #expect(throws: expected) { try fakeStore().revert(photo) }
    #expect(throws: expected) { try fakeStore().show(photo) }
    #expect(folder.state() == before)
    #expect(folder.leftovers() == [])
  }

  @Test func unknownFilterInSidecarIsRefused() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let text = String(decoding: folder.read("p.jpg.photoedit.json")!, as: UTF8.self)
      .replacingOccurrences(of: "\"invert\"", with: "\"oilpaint\"")
    folder.write("p.jpg.photoedit.json", Array(text.utf8))
    let before = folder.state()
    #expect(
      throws: StoreError.sidecarUnusable(
        .step(index: 0, .unknownFilter("oilpaint")), original: photo + ".original")
    ) {
      try fakeStore().undo(photo)
    }
    #expect(folder.state() == before)
  }

  @Test func failingFilterLeavesNothingBehind() throws {
    #expect(throws: StoreError.step(index: nil, FailFake.failure)) {
      try fakeStore().apply([step("fail")], to: photo, output: nil)
    }
    #expect(folder.names() == ["p.jpg"])
    #expect(folder.read("p.jpg") == originalBytes)
  }

  @Test func dryRunChangesNothing() throws {
    let report = try fakeStore(dryRun: true).apply([step("invert")], to: photo, output: nil)
    #expect(report.dryRun && report.added.map(\.filter) == ["invert"])
    #expect(folder.names() == ["p.jpg"])
  }

  @Test func outputModeLeavesTheInputAndRecordsItsPath() throws {
    try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: false)
    let out = folder.path("out/e.png")
    _ = try fakeStore().apply([step("invert")], to: photo, output: out)
    #expect(folder.names() == ["out", "p.jpg"])
    #expect(folder.read("p.jpg") == originalBytes)
    #expect(folder.names().count == 2)
    let data = try readSidecar(folder.read("out/e.png.photoedit.json")!).data
    #expect(data.original?.path == "../p.jpg")
    #expect(data.render?.format == .png)
    #expect(data.render?.subsampling == nil)
    #expect(folder.read("out/e.png")?[4] == UInt8(ascii: "p"))
    let before = data
    // Photoedit's own output of the same original by another request is replaced only with
    // --force (what its steps did could be lost), never appended to: the output is a render of
    // its input with exactly the steps given.
    #expect(throws: StoreError.outputMadeOtherwise(path: out, made: before.steps, requested: ["mark"])) {
      try fakeStore().apply([step("mark")], to: photo, output: out)
    }
    #expect(fakeStore().inspect(out).data?.steps.map(\.filter) == ["invert"])
    _ = try fakeStore(force: true).apply([step("mark")], to: photo, output: out)
    #expect(fakeStore().inspect(out).data?.steps.map(\.filter) == ["mark"])
    // Another original: refused without --force.
    folder.write("q.jpg", FakeEngine.imageFile(width: 3, height: 3, seed: 1))
    #expect(throws: StoreError.outputExists(path: out)) {
      try fakeStore().apply([step("mark")], to: folder.path("q.jpg"), output: out)
    }
    // Revert writes a copy of the original's bytes and removes the sidecar.
    _ = try fakeStore().revert(out)
    #expect(folder.read("out/e.png") == originalBytes)
    #expect(!folder.exists("out/e.png.photoedit.json"))
    #expect(folder.read("p.jpg") == originalBytes)
    let a = try FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int
    let b = try FileManager.default.attributesOfItem(atPath: photo)[.systemFileNumber] as? Int
    #expect(a != b)
  }

  @Test func outputFollowsItsOriginalWhenThatIsEditedInPlace() throws {
    let out = folder.path("o.jpg")
    _ = try fakeStore().apply([step("invert")], to: photo, output: out)
    _ = try fakeStore().apply([step("add")], to: photo, output: nil)
    // p.jpg is now a render; its bytes live on as p.jpg.original, which o.jpg finds.
    #expect(fakeStore().inspect(out).state == .edited)
    _ = try fakeStore().revert(out)
    #expect(folder.read("o.jpg") == originalBytes)
  }

  /// A copy of the photo edited in place is not an output of the photo, though its recorded
  /// original has the same bytes: writing an output over it, with or without --force, would
  /// replace its sidecar and orphan its preserved original. Nothing changes.
  @Test func outputMayNotBeAPhotoEditedInPlace() throws {
    folder.write("copy.jpg", originalBytes)
    let copy = folder.path("copy.jpg")
    _ = try fakeStore().apply([step("invert")], to: copy, output: nil)
    let before = folder.state()
    for force in [false, true] {
      #expect(throws: StoreError.outputEditedInPlace(path: copy, original: copy + ".original")) {
        try fakeStore(force: force).apply([step("mark")], to: photo, output: copy)
      }
    }
    #expect(folder.state() == before)
    #expect(fakeStore().inspect(copy).data?.steps.map(\.filter) == ["invert"])
  }

  @Test func outputMayNotBeTheInput() throws {
    #expect(throws: StoreError.outputIsInput(path: photo)) {
      try fakeStore(force: true).apply([step("invert")], to: photo, output: photo)
    }
    #expect(throws: StoreError.self) {
      try fakeStore(force: true).export(photo, to: photo + ".original", maxSize: nil)
    }
    #expect(folder.names() == ["p.jpg"])
  }

  @Test func exportNeedsForceToReplace() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let out = folder.path("x.jpg")
    #expect(try fakeStore().export(photo, to: out, maxSize: nil).current == false)
    #expect(folder.read("x.jpg") == folder.read("p.jpg"))
    #expect(!folder.exists("x.jpg.photoedit.json"))
    // The same export again: the output already holds these bytes.
    #expect(try fakeStore().export(photo, to: out, maxSize: nil).current)
    #expect(throws: StoreError.exportExists(path: out)) {
      try fakeStore().export(photo, to: out, maxSize: 4)
    }
    let preview = try fakeStore(force: true).export(photo, to: out, maxSize: 3)
    #expect((preview.width, preview.height) == (3, 2))
    #expect(throws: StoreError.notEdited) {
      try fakeStore().render(folder.path("x.jpg"))
    }
  }

  @Test func renderWithNewQualityIsRecorded() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    var store = fakeStore()
    store.settings.quality = 70
    let report = try store.render(photo)
    #expect(report.changed)
    #expect(try sidecar().render?.quality == 70)
    #expect(folder.read("p.jpg")?[5] == 70)
    // Later commands keep the sidecar's quality.
    _ = try fakeStore().apply([step("mark")], to: photo, output: nil)
    #expect(folder.read("p.jpg")?[5] == 70)
    #expect(try fakeStore().render(photo).changed == false)
  }

  @Test func statusCoversEveryState() throws {
    #expect(fakeStore().inspect(photo).state == .unedited)
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    #expect(fakeStore().inspect(photo).state == .edited)
    try FileManager.default.removeItem(atPath: photo)
    #expect(fakeStore().inspect(photo).state == .stale)
    // check --repair re-renders a missing render.
    _ = try fakeStore().check(photo, repair: true)
    #expect(fakeStore().inspect(photo).state == .edited)
    folder.write("p.jpg.photoedit.json", Array("{ torn".utf8))
    let status = fakeStore().inspect(photo)
    #expect(status.state == .damaged)
    guard case .error(.sidecarUnusable(.invalidJSON, _))? = status.problem else {
      Issue.record("expected invalid JSON, got \(String(describing: status.problem))")
      return
    }
  }

  @Test func showPrintsTheRecipe() throws {
    _ = try fakeStore().apply([step("add", ["amount": .integer(3)])], to: photo, output: nil)
    _ = try fakeStore().apply([step("mark")], to: photo, output: nil)
    _ = try fakeStore().undo(photo)
    let report = try fakeStore().show(photo)
    #expect(report.state == .edited)
    #expect(report.data?.steps == [try stored("add", ["amount": .number(3)])])
    #expect(
      report.data?.undone
        == [.apply(added: [try stored("mark", ["scale": .number(1)], derived: ["width": .number(6)])])])
  }

  @Test func migratedSidecarIsStaleUntilRendered() throws {
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    // Rewrite the sidecar in version 0's shape.
    var object = try JSONParser.parse(folder.read("p.jpg.photoedit.json")!).object!
    var original = object["original"]!.object!
    original["file"] = original.removeValue(forKey: "path")
    original["size"] = original.removeValue(forKey: "bytes")
    object["original"] = .object(original)
    object["adjustments"] = .array(
      object.removeValue(forKey: "operations")!.array!.map {
        var op = $0.object!
        op["name"] = op.removeValue(forKey: "filter")
        return .object(op)
      })
    object["undone"] = nil
    object["formatVersion"] = .number(0)
    folder.write("p.jpg.photoedit.json", JSONCoding.encode(JSONValue.object(object)))
    #expect(fakeStore().inspect(photo).state == .stale)
    #expect(try fakeStore().show(photo).migratedFrom == 0)
    _ = try fakeStore().render(photo)
    #expect(fakeStore().inspect(photo).state == .edited)
    #expect(try sidecar().formatVersion == 2)
  }

  @Test func hardLinkedOriginalSharesTheInodeAndIsNeverWritten() throws {
    let before = try FileManager.default.attributesOfItem(atPath: photo)[.systemFileNumber] as? Int
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let original =
      try FileManager.default.attributesOfItem(atPath: photo + ".original")[.systemFileNumber] as? Int
    let render = try FileManager.default.attributesOfItem(atPath: photo)[.systemFileNumber] as? Int
    #expect(original == before)
    #expect(render != before)
    _ = try fakeStore().revert(photo)
    let after = try FileManager.default.attributesOfItem(atPath: photo)[.systemFileNumber] as? Int
    #expect(after == before)
  }

  @Test func keepsThePhotosPermissions() throws {
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: photo)
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let mode = try FileManager.default.attributesOfItem(atPath: photo)[.posixPermissions] as? Int
    #expect(mode == 0o640)
  }

  /// An in-place render, its sidecar and a revert keep the photo's group (a shared folder's
  /// group stays able to read the photo). Only root may give a file any group.
  @Test(.enabled(if: getuid() == 0)) func keepsThePhotosGroup() throws {
    let group: UInt32 = 65534
    #expect(chown(photo, uid_t.max, gid_t(group)) == 0)
    func groupOf(_ path: String) throws -> UInt32? { try FileSystem.info(path)?.group }
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    #expect(try groupOf(photo) == group)
    #expect(try groupOf(photo + ".photoedit.json") == group)
    _ = try fakeStore().apply([step("mark")], to: photo, output: nil)
    #expect(try groupOf(photo) == group)
    _ = try fakeStore().revert(photo)
    #expect(try groupOf(photo) == group)
    // A new output does not take the input's group: the folder's default applies.
    let output = folder.path("out.jpg")
    _ = try fakeStore().apply([step("invert")], to: photo, output: output)
    #expect(try groupOf(output) == getegid())
  }

  @Test func concurrentAppliesAllLandInOrder() async throws {
    let store = fakeStore()
    _ = try store.apply([step("mark")], to: photo, output: nil)
    let path = photo
    let results = await withTaskGroup(of: Bool.self) { group in
      for i in 0..<8 {
        group.addTask {
          (try? fakeStore().apply([step("add", ["amount": .integer(i)])], to: path, output: nil))
            != nil
        }
      }
      return await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    let data = try sidecar()
    // Every apply that reported success is in the recipe: no lost edit, no torn sidecar.
    #expect(data.steps.count == 1 + results.filter { $0 }.count)
    #expect(
      Set(data.steps.dropFirst().map { $0.typed(AddFake.self)!.parameters.amount }).count == data.steps.count
        - 1)
    #expect(results.allSatisfy { $0 })
    #expect(folder.leftovers() == [])
    #expect(fakeStore().inspect(photo).state == .edited)
  }

  @Test func busyWhenTheLockIsHeld() throws {
    let lock = try FileSystem.Lock.acquire(photo + ".photoedit.lock", timeout: 0)
    var store = fakeStore()
    store.settings.lockTimeoutSeconds = 0.1
    #expect(throws: StoreError.busy) { try store.apply([step("invert")], to: photo, output: nil) }
    lock.release()
    #expect(folder.names() == ["p.jpg"])
    _ = try store.apply([step("invert")], to: photo, output: nil)
    #expect(folder.leftovers() == [])
  }
}
