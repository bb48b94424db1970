import Foundation
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

#if canImport(Glibc)
  import Glibc
#endif

/// One file as a re-run must leave it: its bytes, its inode and its modification time to the
/// nanosecond (a file written again, even with the same bytes, gets a new time or inode).
struct FileState: Equatable, CustomStringConvertible {
  var bytes: Data
  var inode: UInt64
  var modified: timespec

  static func == (a: FileState, b: FileState) -> Bool {
    a.bytes == b.bytes && a.inode == b.inode && a.modified.tv_sec == b.modified.tv_sec
      && a.modified.tv_nsec == b.modified.tv_nsec
  }

  var description: String {
    "\(bytes.count) bytes, inode \(inode), mtime \(modified.tv_sec).\(modified.tv_nsec)"
  }

  /// Every file below `folder`, by its path relative to it.
  static func all(in folder: String) -> [String: FileState] {
    var states: [String: FileState] = [:]
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return [:] }
    for case let name as String in walker {
      let path = folder + "/" + name
      var s = stat()
      guard lstat(path, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { continue }
      states[name] = FileState(
        bytes: FileManager.default.contents(atPath: path) ?? Data(), inode: UInt64(s.st_ino),
        modified: s.st_mtim)
    }
    return states
  }
}

/// Re-runs of exports: a current output is reported `current` and left as it is, a re-run after a
/// crash does only what is missing, and failures are JSON lines with their exit status.
@Suite struct ResumeTests {
  static func photos(_ count: Int, in folder: TemporaryFolder) throws -> [String] {
    try FileManager.default.createDirectory(atPath: folder.path("in"), withIntermediateDirectories: true)
    return try (1...count).map { n in try folder.copy("faces/hopper.jpg", as: "in/p\(n).jpg") }
  }

  @Test func aRerunOfAnApplyExportIsCurrentAndTouchesNothing() throws {
    let folder = try TemporaryFolder()
    let inputs = try Self.photos(6, in: folder)
    let out = folder.path("out")
    let arguments = ["apply", "--filter", "sepia", "--output-dir", out, "--json"] + inputs

    let first = runCLI(arguments)
    #expect(first.status == 0, "\(first.err)")
    let made = try jsonLines(first.out)
    #expect(made.map { $0["file"] as? String } == inputs)
    #expect(made.allSatisfy { $0["status"] as? String == "ok" && $0["current"] == nil })
    #expect(first.err == "photoedit: 6 files: 6 done, 0 current, 0 failed\n")
    let before = FileState.all(in: out)
    #expect(before.count == 12)  // six renders, six sidecars

    let again = runCLI(arguments)
    #expect(again.status == 0, "\(again.err)")
    let lines = try jsonLines(again.out)
    #expect(lines.map { $0["file"] as? String } == inputs)
    #expect(lines.allSatisfy { $0["status"] as? String == "ok" && $0["current"] as? Bool == true })
    #expect(again.err == "photoedit: 6 files: 0 done, 6 current, 0 failed\n")
    #expect(FileState.all(in: out) == before)

    let text = runCLI(Array(arguments.dropLast(inputs.count + 1)) + inputs)
    #expect(
      text.out.split(separator: "\n").first
        == "\(inputs[0]): \(out)/p1.jpg is current (1 operation); nothing to do")
    #expect(FileState.all(in: out) == before)
  }

  /// `render -o` keeps no sidecar: a re-run renders again and, when the bytes are the output's,
  /// writes nothing. Another file there still needs --force.
  @Test func aRerunOfARenderExportIsCurrentAndTouchesNothing() throws {
    let folder = try TemporaryFolder()
    let inputs = try Self.photos(4, in: folder)
    #expect(runCLI(["apply", "--filter", "vignette", inputs[0], inputs[1]]).status == 0)
    let out = folder.path("out")
    let arguments = ["render", "--output-dir", out, "--json"] + inputs
    let first = runCLI(arguments)
    #expect(first.status == 0, "\(first.err)")
    #expect(try jsonLines(first.out).allSatisfy { $0["current"] == nil })
    let before = FileState.all(in: out)
    #expect(before.keys.sorted() == ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"])

    let again = runCLI(arguments)
    #expect(again.status == 0, "\(again.err)")
    #expect(try jsonLines(again.out).allSatisfy { $0["current"] as? Bool == true })
    #expect(again.err == "photoedit: 4 files: 0 done, 4 current, 0 failed\n")
    #expect(FileState.all(in: out) == before)

    // Another program's file at an output: refused (73) without --force, the rest still current.
    folder.write("out/p3.jpg", [0xFF, 0xD8, 0xFF, 0xD9])
    let changed = runCLI(arguments)
    #expect(changed.status == 1)
    let lines = try jsonLines(changed.out)
    #expect(lines.map { $0["status"] as? String } == ["ok", "ok", "error", "ok"])
    #expect((lines[2]["exit"] as? NSNumber)?.intValue == 73)
    #expect(changed.err.hasSuffix("photoedit: 4 files: 0 done, 3 current, 1 failed\n"))
    #expect(folder.read("out/p3.jpg") == [0xFF, 0xD8, 0xFF, 0xD9])
    let forced = runCLI(arguments + ["--force"])
    #expect(forced.status == 0)
    #expect(forced.err == "photoedit: 4 files: 1 done, 3 current, 0 failed\n")
    #expect(FileState.all(in: out)["p3.jpg"]?.bytes == before["p3.jpg"]?.bytes)

    // One export with -o, a preview size: the same.
    let preview = folder.path("preview.png")
    #expect(runCLI(["render", inputs[0], "-o", preview, "--max-size", "64"]).status == 0)
    let written = FileState.all(in: folder.url.path)["preview.png"]
    let rerun = runCLI(["render", inputs[0], "-o", preview, "--max-size", "64"])
    #expect(rerun.status == 0)
    #expect(rerun.out == "\(inputs[0]): \(preview) is current (64x64); nothing to do\n")
    #expect(rerun.err.isEmpty)
    #expect(FileState.all(in: folder.url.path)["preview.png"] == written)
    let bigger = runCLI(["render", inputs[0], "-o", preview, "--max-size", "100"])
    #expect(bigger.status == 73)
    #expect(bigger.err == "photoedit: \(inputs[0]): '\(preview)' exists; use --force to replace it\n")
  }

  /// A task killed in the middle of a photo (SIGKILL at the commit point, or before it) is re-run:
  /// the interrupted photo is finished or redone, the others are done, and a third run finds
  /// every output current. The outputs are those of a run that was never interrupted.
  @Test(arguments: [("after-journal", true), ("after-temps", false)])
  func aRerunAfterACrashDoesOnlyWhatIsMissing(point: String, rolledForward: Bool) throws {
    let folder = try TemporaryFolder()
    let inputs = try Self.photos(5, in: folder)
    let out = folder.path("out")
    let arguments = [
      "apply", "--filter", "sepia", "--output-dir", out, "--json", "-j", "1", "-r", folder.path("in"),
    ]
    let crashed = try launch(arguments, environment: ["PHOTOEDIT_CRASH_AT": point])
    #expect(crashed.status == 9)
    #expect(crashed.out.isEmpty)

    let resumed = try launch(arguments)
    #expect(resumed.status == 0, "\(resumed.err)")
    let lines = try jsonLines(resumed.out)
    #expect(lines.map { $0["file"] as? String } == inputs)
    #expect(lines.map { $0["current"] as? Bool ?? false } == [rolledForward, false, false, false, false])
    #expect(
      resumed.err
        == "photoedit: 5 files: \(rolledForward ? 4 : 5) done, \(rolledForward ? 1 : 0) current, 0 failed\n")

    let states = FileState.all(in: out)
    let again = try launch(arguments)
    #expect(try jsonLines(again.out).allSatisfy { $0["current"] as? Bool == true })
    #expect(again.err == "photoedit: 5 files: 0 done, 5 current, 0 failed\n")
    #expect(FileState.all(in: out) == states)

    let reference = try TemporaryFolder()
    let referenceInputs = try Self.photos(5, in: reference)
    #expect(
      runCLI(["apply", "--filter", "sepia", "--output-dir", reference.path("out"), "-q"] + referenceInputs)
        .status == 0)
    #expect(FileState.all(in: reference.path("out")).mapValues(\.bytes) == states.mapValues(\.bytes))
  }

  /// Failures are JSON lines like any other, with the file's own exit status, so the lines of
  /// many tasks concatenate into one report; the parts of a list give the lines of the whole.
  @Test func failuresAreJSONLinesWithTheirExitStatus() throws {
    let folder = try TemporaryFolder()
    let good = try Self.photos(2, in: folder)
    let corrupt = try folder.copy("bad/skimage-truncated.jpg", as: "in/corrupt.jpg")
    let missing = folder.path("in/missing.jpg")
    let list = [good[0], missing, corrupt, good[1]]
    let out = folder.path("out")
    let whole = runCLI(["apply", "--filter", "sepia", "--output-dir", out, "--json", "--dry-run"] + list)
    #expect(whole.status == 1)
    let lines = try jsonLines(whole.out)
    #expect(lines.map { $0["file"] as? String } == list)
    #expect(lines.map { $0["status"] as? String } == ["ok", "error", "error", "ok"])
    #expect(lines.map { ($0["exit"] as? NSNumber)?.intValue } == [nil, 66, 65, nil])
    #expect(lines[1]["error"] as? String == "no such file")
    #expect((lines[2]["error"] as? String)?.isEmpty == false)
    let errors = whole.err.split(separator: "\n").map(String.init)
    #expect(errors.contains("photoedit: \(missing): no such file"))
    #expect(errors.last == "photoedit: 4 files: 2 to do, 0 current, 2 failed")

    var parts: [[String: Any]] = []
    for k in 1...2 {
      let r = runCLI(
        ["apply", "--filter", "sepia", "--output-dir", out, "--json", "--shard", "\(k)/2"] + list)
      parts += try jsonLines(r.out)
      let mine = list.filter { PhotoFolder.shard(of: $0, count: 2) == k }
      let failed = mine.filter { $0 == missing || $0 == corrupt }.count
      #expect(r.status == (failed > 0 ? 1 : 0))
      if mine.isEmpty {
        #expect(r.err == "photoedit: nothing to do: shard \(k)/2 holds none of the 4 files\n")
      } else {
        #expect(
          r.err.hasSuffix(
            "photoedit: shard \(k)/2: \(mine.count) of 4 files: \(mine.count - failed) done, 0 current, \(failed) failed\n"
          ))
      }
    }
    let key = { (line: [String: Any]) in
      "\(line["file"] ?? "") \(line["status"] ?? "") \(line["exit"] ?? "-")"
    }
    #expect(parts.map(key).sorted() == lines.map(key).sorted())
  }

  /// In place, a render that is current and a revert of an unedited photo are `current` too.
  @Test func inPlaceRendersAndRevertsWithNothingToDoAreCurrent() throws {
    let folder = try TemporaryFolder()
    let inputs = try Self.photos(2, in: folder)
    #expect(runCLI(["apply", "--filter", "sepia", inputs[0]]).status == 0)
    let render = runCLI(["render", "--json", inputs[0]])
    #expect(try jsonLines(render.out).first?["current"] as? Bool == true)
    let revert = runCLI(["revert", "--json"] + inputs)
    #expect(try jsonLines(revert.out).map { $0["current"] as? Bool } == [nil, true])
    #expect(revert.err == "photoedit: 2 files: 1 done, 1 current, 0 failed\n")
  }
}
