import Foundation
import Testing

@testable import Recipe
@testable import Store

/// The photo's folder is swapped for a link to another folder at one instant of a command (each
/// crash point in turn, through the crash-point observer): the command goes on in the folder it
/// opened, whole, and never touches the other one. The deterministic counterpart of the CLI's
/// `FolderSwapTests`, which swaps in a loop while real processes run.
@Suite struct HeldFolderTests {
  enum Scenario: String, CaseIterable, Sendable { case firstApply, secondApply, undo, revert }

  /// `root/parent/cur` holds the photo; `root/parent/B` another photo of the same name.
  struct Scene {
    let root = try! TemporaryFolder()
    var cur: String { root.path("parent/cur") }
    var aside: String { root.path("parent/aside") }
    var b: String { root.path("parent/B") }

    init(_ scenario: Scenario) throws {
      for folder in ["parent", "parent/cur", "parent/B"] {
        try FileManager.default.createDirectory(atPath: root.path(folder), withIntermediateDirectories: false)
      }
      root.write("parent/cur/p.jpg", FakeEngine.imageFile(width: 5, height: 3, seed: 3))
      root.write("parent/B/p.jpg", FakeEngine.imageFile(width: 4, height: 4, seed: 9))
      if scenario != .firstApply {
        for folder in [cur, b] {
          _ = try fakeStore().apply([step("invert"), step("add")], to: folder + "/p.jpg", output: nil)
        }
      }
    }

    func files(_ folder: String) -> [String: Data] {
      var out: [String: Data] = [:]
      for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
        out[name] = FileManager.default.contents(atPath: folder + "/" + name)
      }
      return out
    }
  }

  func run(_ scenario: Scenario, on photo: String) throws {
    switch scenario {
    case .firstApply, .secondApply: _ = try fakeStore().apply([step("add")], to: photo, output: nil)
    case .undo: _ = try fakeStore().undo(photo)
    case .revert: _ = try fakeStore().revert(photo)
    }
  }

  @Test(arguments: Scenario.allCases, CrashPoint.allCases)
  func aFolderSwappedMidCommandIsNeverWrittenThrough(scenario: Scenario, point: CrashPoint) throws {
    let scene = try Scene(scenario)
    let bBefore = scene.files(scene.b)
    let swapped = Swapped()
    TestHooks.observe(scene.cur) { reached in
      guard reached == point, swapped.once() else { return }
      // The folder moves aside and a link to B takes its name.
      #expect(rename(scene.cur, scene.aside) == 0)
      #expect(symlink("B", scene.cur) == 0)
    }
    defer { TestHooks.observe(scene.cur, nil) }
    try run(scenario, on: scene.cur + "/p.jpg")
    // Every command reaches after-lock; some points are not on every command's way.
    if point == .afterLock { #expect(swapped.happened) }
    guard swapped.happened else { return }
    // B is as it was; the folder the command opened holds the whole edit, nothing left over.
    #expect(scene.files(scene.b) == bBefore)
    let names = scene.files(scene.aside).keys.sorted()
    #expect(
      !names.contains { $0.contains(".photoedit-tmp-") || $0.hasSuffix(".lock") || $0.hasSuffix(".journal") })
    let state = try fakeStore().check(scene.aside + "/p.jpg", repair: false).state
    // undo takes back the one apply of two steps: unedited, its sidecar kept for redo.
    let applied = scenario == .firstApply || scenario == .secondApply
    #expect(state == (applied ? .edited : .unedited), "\(names)")
    #expect(names.contains("p.jpg.original") == (scenario != .revert))
  }

  final class Swapped: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    /// True the first time only.
    func once() -> Bool {
      lock.withLock {
        defer { done = true }
        return !done
      }
    }
    var happened: Bool { lock.withLock { done } }
  }
}
