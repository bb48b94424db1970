import Foundation
import Synchronization
import Testing

/// Someone who can write to a parent of the photo's folder swaps that folder for a symbolic link
/// to a sibling folder, over and over, while `apply`, `edit` and `revert` run on the photo. The
/// store opens the photo's folder once and does everything else relative to it, so a command
/// lands in one folder or the other (which one may depend on timing), never in both: after each
/// round at most one of the two folders changed, no lock, journal or temporary file is left in
/// either, `check` passes in both, and nothing outside them changed. The same holds for an `-o`
/// output whose folder is swapped (a file of the output's name in the other folder is never
/// replaced without `--force`).
///
/// Reproduced on the code before this change (issue 35, finding 1): most rounds split the edit
/// (see the report of the change for the counts).
@Suite(.serialized)
struct FolderSwapTests {
  /// renameat2(2) with RENAME_EXCHANGE, looked up at run time (Swift's Glibc does not declare it):
  /// the two names trade places atomically, so the folder's name is never missing.
  typealias RenameAt2 =
    @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
  static let renameat2: RenameAt2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map {
    unsafeBitCast($0, to: RenameAt2.self)
  }

  /// A folder `parent/cur` (the photo's, "A"), a sibling `parent/B` with an unrelated photo of
  /// the same name, a link `parent/alt` to B, and a third folder `parent/other` that no command
  /// names.
  struct Scene {
    let root = try! TemporaryFolder()
    var parent: String { root.path("parent") }
    var a: String { root.path("parent/cur") }
    var b: String { root.path("parent/B") }
    var photo: String { root.path("parent/cur/p.jpg") }
    /// A photo outside both folders, the input of `apply -o`.
    var input: String { root.path("in.jpg") }

    init(edited: Bool) throws {
      let fm = FileManager.default
      for folder in ["parent", "parent/cur", "parent/B", "parent/other"] {
        try fm.createDirectory(atPath: root.path(folder), withIntermediateDirectories: false)
      }
      try root.copy("jpeg/testorig.jpg", as: "parent/cur/p.jpg")
      try root.copy("jpeg/hopper_gray.jpg", as: "parent/B/p.jpg")
      try root.copy("jpeg/testimgari.jpg", as: "parent/other/p.jpg")
      try root.copy("jpeg/testimgari.jpg", as: "in.jpg")
      // An unrelated file named like the output, in B only.
      try root.copy("jpeg/testorig.jpg", as: "parent/B/out.jpg")
      try fm.createSymbolicLink(atPath: root.path("parent/alt"), withDestinationPath: "B")
      if edited {
        for folder in [a, b] {
          #expect(runCLI(["apply", "-f", "sepia", folder + "/p.jpg"]).status == 0)
        }
      }
    }

    /// Every entry below the root, not following links: a file's bytes, a link's target, or a
    /// folder's mark.
    func snapshot() -> [String: Data] {
      var out: [String: Data] = [:]
      var pending = [""]
      while let dir = pending.popLast() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path(dir))) ?? []
        for name in names {
          let relative = dir.isEmpty ? name : dir + "/" + name
          let path = root.path(relative)
          var s = stat()
          guard lstat(path, &s) == 0 else { continue }
          switch s.st_mode & S_IFMT {
          case S_IFDIR:
            out[relative] = Data("folder".utf8)
            pending.append(relative)
          case S_IFLNK:
            out[relative] = Data(
              ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "").utf8)
          default:
            out[relative] = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data("unreadable".utf8)
          }
        }
      }
      return out
    }
  }

  /// Trades `parent/cur` (the photo's folder) and `parent/alt` (the link to B) in a loop until
  /// stopped, then puts the folder back under `cur`.
  final class Swapper: Sendable {
    let stop = Atomic<Bool>(false)
    let swaps = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)

    func start(_ scene: Scene) {
      let (cur, alt) = (scene.a, scene.parent + "/alt")
      let spare = scene.parent + "/spare"
      Thread.detachNewThread { [self] in
        var swapped = false
        while !stop.load(ordering: .relaxed) {
          if let exchange = FolderSwapTests.renameat2 {
            if exchange(AT_FDCWD, cur, AT_FDCWD, alt, 2 /* RENAME_EXCHANGE */) == 0 { swapped.toggle() }
          } else {
            // Without an exchange: the folder aside, the link in, and back (a moment with no name).
            rename(cur, spare)
            rename(alt, cur)
            rename(cur, alt)
            rename(spare, cur)
          }
          swaps.add(1, ordering: .relaxed)
        }
        if swapped, let exchange = FolderSwapTests.renameat2 { _ = exchange(AT_FDCWD, cur, AT_FDCWD, alt, 2) }
        done.signal()
      }
    }

    func finish() {
      stop.store(true, ordering: .relaxed)
      done.wait()
    }
  }

  /// Where one round's command landed ("A", "B", or "none"), and what went wrong, if anything.
  ///
  /// - Parameter output: the command writes `cur/out.jpg` with `-o`, from a photo outside both
  ///   folders, instead of editing `cur/p.jpg`.
  static func round(_ command: [String], edited: Bool, output: Bool = false) throws -> (
    landed: String, problem: String?
  ) {
    let scene = try Scene(edited: edited)
    let before = scene.snapshot()
    let swapper = Swapper()
    swapper.start(scene)
    let arguments = output ? command + ["-o", scene.a + "/out.jpg", scene.input] : command + [scene.photo]
    let run = try launch(arguments, deadline: 60)
    swapper.finish()
    let after = scene.snapshot()
    var problems: [String] = []
    let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
    let inA = changed.filter { $0.hasPrefix("parent/cur/") }
    let inB = changed.filter { $0.hasPrefix("parent/B/") }
    if !inA.isEmpty && !inB.isEmpty {
      problems.append("both folders changed: \(inA.sorted()) and \(inB.sorted())")
    }
    let elsewhere = changed.subtracting(inA).subtracting(inB)
    if !elsewhere.isEmpty { problems.append("changed outside the two folders: \(elsewhere.sorted())") }
    let leftovers = after.keys.filter {
      $0.hasSuffix(".photoedit.lock") || $0.hasSuffix(".photoedit.journal") || $0.contains(".photoedit-tmp-")
    }
    if !leftovers.isEmpty { problems.append("left behind: \(leftovers.sorted())") }
    for folder in [scene.a, scene.b] {
      for name in ["p.jpg", "out.jpg"] where FileManager.default.fileExists(atPath: folder + "/" + name) {
        let check = runCLI(["check", folder + "/" + name])
        if check.status != 0 { problems.append("check \(folder)/\(name): \(check.err)") }
      }
    }
    if run.status != 0 && !inA.isEmpty || run.status != 0 && !inB.isEmpty {
      problems.append("exit \(run.status) after a change: \(run.err)")
    }
    let landed = !inA.isEmpty ? "A" : !inB.isEmpty ? "B" : "none"
    let shown = "\(command.joined(separator: " ")) exit \(run.status): " + problems.joined(separator: "; ")
    return (landed, problems.isEmpty ? nil : shown)
  }

  static let rounds = Int(ProcessInfo.processInfo.environment["PHOTOEDIT_SWAP_ROUNDS"] ?? "") ?? 12

  @Test(arguments: [
    (["apply", "-f", "sepia"], false, false),
    (["edit", "--step", "1", "--set", "intensity=0.5"], true, false),
    (["revert"], true, false), (["undo"], true, false), (["apply", "-f", "sepia"], false, true),
  ])
  func aSwappedFolderNeverSplitsAnEdit(command: [String], edited: Bool, output: Bool) throws {
    var failures: [String] = []
    var landed: [String: Int] = [:]
    for _ in 0..<Self.rounds {
      let round = try Self.round(command, edited: edited, output: output)
      landed[round.landed, default: 0] += 1
      if let problem = round.problem { failures.append(problem) }
    }
    // The rounds did edit something (a test where every command failed would prove nothing).
    #expect(landed["A", default: 0] + landed["B", default: 0] > 0, "landed: \(landed)")
    print(
      "FolderSwapTests \(command.first!)\(output ? " -o" : ""): landed \(landed.sorted { $0.key < $1.key })")
    #expect(
      failures.isEmpty,
      "\(failures.count) of \(Self.rounds) rounds split:\n\(failures.joined(separator: "\n"))")
  }
}
