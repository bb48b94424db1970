import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// A crash at every step of every command, in process: the crash-point observer copies the
/// folder at the instant the command reaches each point, which is exactly what a `kill -9` there
/// would leave (the end-to-end tests kill real processes too). Each copy must then hold the
/// original intact, never look "modified", and come back, through `check --repair` or through
/// the next command, to the old state or the new one with nothing left behind.
@Suite struct CrashRecoveryTests {
  final class Snapshots: @unchecked Sendable {
    private let lock = NSLock()
    private var taken: [(CrashPoint, TemporaryFolder)] = []
    let source: TemporaryFolder
    init(_ source: TemporaryFolder) { self.source = source }

    func take(_ point: CrashPoint) {
      let copy = try! TemporaryFolder()
      for name in source.names() { copy.write(name, source.read(name)!) }
      if noHardLinks { TestHooks.setHardLinksUnsupported(true, in: copy.url.path) }
      lock.withLock { taken.append((point, copy)) }
    }

    var noHardLinks = false

    /// Runs `body` with the source folder watched: a copy at every crash point.
    func watching(_ body: () throws -> Void) rethrows {
      TestHooks.observe(source.url.path) { [self] point in take(point) }
      defer { TestHooks.observe(source.url.path, nil) }
      try body()
    }
    var all: [(CrashPoint, TemporaryFolder)] { lock.withLock { taken } }
  }

  enum Scenario: String, CaseIterable, Sendable {
    case firstApply, secondApply, undo, redo, revert, rerender, export, applyToOutput
  }

  let original = FakeEngine.imageFile(width: 5, height: 3, seed: 3)

  func setUp(_ scenario: Scenario, in folder: TemporaryFolder) throws {
    folder.write("p.jpg", original)
    let photo = folder.path("p.jpg")
    switch scenario {
    case .firstApply, .applyToOutput: break
    case .secondApply, .revert, .rerender, .export:
      _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    case .undo:
      _ = try fakeStore().apply([step("invert"), step("add")], to: photo, output: nil)
    case .redo:
      _ = try fakeStore().apply([step("invert"), step("add")], to: photo, output: nil)
      _ = try fakeStore().undo(photo)
    }
  }

  /// The photo whose files the command changes.
  func target(_ scenario: Scenario) -> String {
    switch scenario {
    case .export: "x.jpg"
    case .applyToOutput: "out.png"
    default: "p.jpg"
    }
  }

  func run(_ scenario: Scenario, in folder: TemporaryFolder) throws {
    let photo = folder.path("p.jpg")
    switch scenario {
    case .firstApply, .secondApply: _ = try fakeStore().apply([step("add")], to: photo, output: nil)
    case .undo: _ = try fakeStore().undo(photo)
    case .redo: _ = try fakeStore().redo(photo)
    case .revert: _ = try fakeStore().revert(photo)
    case .rerender:
      var store = fakeStore()
      store.settings.quality = 50
      _ = try store.render(photo)
    case .export: _ = try fakeStore().export(photo, to: folder.path("x.jpg"), maxSize: nil)
    case .applyToOutput: _ = try fakeStore().apply([step("add")], to: photo, output: folder.path("out.png"))
    }
  }

  func expectedPoints(_ scenario: Scenario) -> Set<CrashPoint> {
    switch scenario {
    case .firstApply: Set(CrashPoint.allCases)
    // Revert stages the preserved original by hard link: no bytes are written, so no mid-write.
    case .revert: Set(CrashPoint.allCases).subtracting([.midTemp])
    case .export: [.afterLock, .midTemp, .afterTemps, .afterJournal, .afterRender, .afterCommit]
    default: Set(CrashPoint.allCases).subtracting([.afterOriginal])
    }
  }

  @Test(arguments: Scenario.allCases)
  func crashAtEveryStepLeavesOldOrNewState(scenario: Scenario) throws {
    let live = try! TemporaryFolder()
    try setUp(scenario, in: live)
    let before = live.state()
    let snapshots = Snapshots(live)
    try snapshots.watching { try run(scenario, in: live) }
    let after = live.state()
    #expect(before != after)
    #expect(Set(snapshots.all.map(\.0)) == expectedPoints(scenario))
    let originalSHA = SHA256.hex(original)

    for (point, folder) in snapshots.all {
      let state = folder.state()
      // The original is intact at every instant: preserved, or still the unedited photo.
      #expect(
        state["p.jpg.original"] == originalSHA || state["p.jpg"] == originalSHA,
        "\(scenario) at \(point.rawValue): original lost")
      // A crash never looks like an edit made by another program.
      let status = fakeStore().inspect(folder.path(target(scenario)))
      #expect(
        status.state != .modified, "\(scenario) at \(point.rawValue): \(String(describing: status.problem))")
      if folder.exists(target(scenario) + ".photoedit.journal") {
        #expect(status.state == .damaged)
        #expect(throws: StoreError.interrupted) { try fakeStore().show(folder.path(target(scenario))) }
      }

      // Repair: finished (journal present) or rolled back (only temporary files).
      do {
        _ = try fakeStore().check(folder.path(target(scenario)), repair: true)
      } catch {
        // A new output that never came to be: nothing to check, but the crash's files are gone.
        guard case .missing = error else { throw error }
        #expect(!folder.exists(target(scenario)))
      }
      let repaired = folder.state()
      #expect(
        repaired == before || repaired == after,
        "\(scenario) at \(point.rawValue): neither old nor new: \(repaired.keys.sorted())")
      if point >= .afterJournal {
        #expect(repaired == after, "\(scenario) at \(point.rawValue): a committed edit was rolled back")
      } else {
        #expect(repaired == before, "\(scenario) at \(point.rawValue): an uncommitted edit appeared")
      }
      #expect(folder.leftovers() == [], "\(scenario) at \(point.rawValue)")
    }
  }

  /// The same crashes where the file system has no hard links: the original is then preserved,
  /// and put back, as a synced copy.
  @Test(arguments: [Scenario.firstApply, .revert])
  func crashWithoutHardLinks(scenario: Scenario) throws {
    do {
      let live = try! TemporaryFolder()
      TestHooks.setHardLinksUnsupported(true, in: live.url.path)
      defer { TestHooks.setHardLinksUnsupported(false, in: live.url.path) }
      try setUp(scenario, in: live)
      let inode = { (name: String) in
        try? FileManager.default.attributesOfItem(atPath: live.path(name))[.systemFileNumber] as? Int
      }
      let photoInode = inode("p.jpg")
      let before = live.state()
      let snapshots = Snapshots(live)
      snapshots.noHardLinks = true
      try snapshots.watching { try run(scenario, in: live) }
      let after = live.state()
      if scenario == .firstApply {
        #expect(live.read("p.jpg.original") == original)
        #expect(inode("p.jpg.original") != photoInode)
      } else {
        #expect(live.read("p.jpg") == original)
      }
      for (point, folder) in snapshots.all {
        let state = folder.state()
        #expect(state["p.jpg.original"] == SHA256.hex(original) || state["p.jpg"] == SHA256.hex(original))
        _ = try fakeStore().check(folder.path("p.jpg"), repair: true)
        let repaired = folder.state()
        #expect(repaired == (point >= .afterJournal ? after : before), "\(scenario) at \(point.rawValue)")
        #expect(folder.leftovers() == [])
      }
    }
  }

  @Test(arguments: [Scenario.firstApply, .secondApply, .undo, .revert])
  func nextCommandFinishesOrCleansUp(scenario: Scenario) throws {
    let live = try! TemporaryFolder()
    try setUp(scenario, in: live)
    let before = live.state()
    let snapshots = Snapshots(live)
    try snapshots.watching { try run(scenario, in: live) }
    let after = live.state()
    for (point, folder) in snapshots.all {
      // The next command on the photo, without any explicit repair.
      let report = try fakeStore().apply([step("mark")], to: folder.path("p.jpg"), output: nil)
      let ops = try fakeStore().loadSidecar(PhotoPaths(folder.path("p.jpg")))!.data.steps.map(\.filter)
      #expect(ops.last == "mark")
      #expect(folder.leftovers() == [], "\(scenario) at \(point.rawValue)")
      if point >= .afterJournal && point < .afterCommit {
        #expect(report.recovery.finishedEdit)
      }
      _ = (before, after)
    }
  }
}

extension CrashPoint: Comparable {
  public static func < (a: CrashPoint, b: CrashPoint) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}
