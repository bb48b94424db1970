import Foundation
import Testing

/// Files beside a photo written by an attacker: a planted journal, sidecar, lock or original never
/// makes photoedit touch anything outside the photo's own store files, never hangs, and never
/// leaves debris. Each finding is reproduced as it was reported, through the real binary.
@Suite struct HostileFileTests {
  /// A folder with an edited photo `shared/p.jpg` and a victim file outside it.
  struct Scene {
    let root: TemporaryFolder
    var photo: String { root.path("shared/p.jpg") }
    var victim: String { root.path("outside/victim.txt") }
    let victimBytes = Data("precious".utf8)

    init(edited: Bool = true) throws {
      root = try TemporaryFolder()
      for folder in ["shared", "outside"] {
        try FileManager.default.createDirectory(atPath: root.path(folder), withIntermediateDirectories: false)
      }
      try victimBytes.write(to: URL(fileURLWithPath: root.path("outside/victim.txt")))
      try root.copy("faces/hopper.jpg", as: "shared/p.jpg")
      if edited { #expect(runCLI(["apply", "-f", "sepia", root.path("shared/p.jpg")]).status == 0) }
    }

    var victimIntact: Bool { FileManager.default.contents(atPath: victim) == victimBytes }
    func names() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: root.path("shared"))) ?? []).sorted()
    }
    func debris() -> [String] {
      names().filter { $0.contains(".photoedit-tmp-") || $0.hasSuffix(".photoedit.lock") }
    }
  }

  /// A journal naming files outside the folder (or the photo itself) is damage, never run.
  @Test(arguments: [
    #"{"steps": [{"remove": {"target": "../outside/victim.txt", "role": "sidecar"}}]}"#,
    #"{"steps": [{"step": "remove", "role": "sidecar", "target": "../outside/victim.txt"}]}"#,
    #"{"steps": [{"step": "replace", "temp": "../outside/victim.txt", "role": "render", "sha256": "\#(String(repeating: "a", count: 64))"}]}"#,
    #"{"steps": [{"step": "remove", "role": "render"}]}"#,
    #"{"steps": [{"step": "replace", "temp": "/etc/passwd", "role": "sidecar", "sha256": "\#(String(repeating: "b", count: 64))"}]}"#,
  ])
  func plantedJournalIsDamageAndNeverRun(journal: String) throws {
    let scene = try Scene()
    try Data(journal.utf8).write(to: URL(fileURLWithPath: scene.photo + ".photoedit.journal"))
    let before = try Data(contentsOf: URL(fileURLWithPath: scene.photo))
    for arguments in [
      ["check", "--repair", scene.photo], ["apply", "-f", "vignette", scene.photo],
      ["apply", "-f", "vignette", "-r", scene.root.path("shared")],
    ] {
      let run = try launch(arguments, deadline: 60)
      #expect(run.status != 0, "\(arguments)")
      #expect(run.err.contains("journal") && run.err.contains("unreadable"), "\(arguments): \(run.err)")
    }
    #expect(scene.victimIntact)
    #expect(try Data(contentsOf: URL(fileURLWithPath: scene.photo)) == before)
    #expect(FileManager.default.fileExists(atPath: scene.photo + ".original"))
    #expect(try launch(["status", scene.photo]).out.contains("damaged"))
  }

  /// Journals of the shape photoedit writes that would still lose or swap files are refused
  /// before any of their steps runs: removing the original while the photo is its render (the
  /// guard naming the render's own checksum), a staged file that is a symbolic or a hard link to
  /// a file outside (with that file's checksum), removing the sidecar with no revert of the
  /// photo, and a good step before a bad one. Every file stays as it was.
  @Test(arguments: ["remove original", "linked temp", "hard-linked temp", "sidecar alone", "good then bad"])
  func plantedJournalThatWouldLoseFilesIsRefusedWhole(kind: String) throws {
    let scene = try Scene()
    let temp = scene.photo + ".photoedit-tmp-0123456789abcdef"
    let render = try Data(contentsOf: URL(fileURLWithPath: scene.photo))
    let zeros = String(repeating: "0", count: 64)
    let journal: String
    switch kind {
    case "remove original":
      journal = #"{"steps": [{"step": "remove", "role": "original", "guardSHA256": "\#(sha256(render))"}]}"#
    case "linked temp":
      try FileManager.default.createSymbolicLink(atPath: temp, withDestinationPath: scene.victim)
      journal =
        #"{"steps": [{"step": "replace", "temp": "p.jpg.photoedit-tmp-0123456789abcdef", "role": "render", "sha256": "\#(sha256(scene.victimBytes))"}]}"#
    case "hard-linked temp":
      // Another name for the file outside, with its checksum: the photo would become that file.
      try FileManager.default.linkItem(atPath: scene.victim, toPath: temp)
      journal =
        #"{"steps": [{"step": "replace", "temp": "p.jpg.photoedit-tmp-0123456789abcdef", "role": "render", "sha256": "\#(sha256(scene.victimBytes))"}]}"#
    case "sidecar alone":
      journal = #"{"steps": [{"step": "remove", "role": "sidecar"}]}"#
    default:
      journal =
        #"{"steps": [{"step": "remove", "role": "sidecar"}, {"step": "replace", "temp": "p.jpg.photoedit-tmp-00000000000000ab", "role": "render", "sha256": "\#(zeros)"}]}"#
    }
    let files = [scene.photo, scene.photo + ".original", scene.photo + ".photoedit.json"]
    let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    try Data(journal.utf8).write(to: URL(fileURLWithPath: scene.photo + ".photoedit.journal"))
    for arguments in [["check", "--repair", scene.photo], ["undo", scene.photo], ["revert", scene.photo]] {
      let run = try launch(arguments, deadline: 60)
      #expect(run.status != 0, "\(kind): \(arguments)")
      #expect(run.err.contains("damaged"), "\(kind): \(arguments): \(run.err)")
    }
    #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before, "\(kind)")
    #expect(scene.victimIntact)
    let attributes = try FileManager.default.attributesOfItem(atPath: scene.photo)
    #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(kind)")
    // Without the planted journal the photo is as it was.
    try FileManager.default.removeItem(atPath: scene.photo + ".photoedit.journal")
    #expect(try launch(["status", scene.photo]).out.contains("edited"), "\(kind)")
  }

  /// A sidecar naming another original beside the preserved one is damage, and `revert --force`
  /// (which its message recommends) puts the preserved original back: the way back is never
  /// blocked, and the file it named is not read.
  @Test func revertForceGetsPastASidecarNamingAnotherOriginal() throws {
    let scene = try Scene()
    let original = try Data(contentsOf: URL(fileURLWithPath: scene.photo + ".original"))
    let sidecar = scene.photo + ".photoedit.json"
    let text = try String(contentsOfFile: sidecar, encoding: .utf8)
    try text.replacingOccurrences(
      of: #""path" : "p.jpg.original""#, with: #""path" : "../outside/victim.txt""#
    )
    .write(toFile: sidecar, atomically: false, encoding: .utf8)
    let plain = try launch(["revert", scene.photo])
    #expect(plain.status == 65 && plain.err.contains("revert --force"), "\(plain.err)")
    let forced = try launch(["revert", "--force", scene.photo])
    #expect(forced.status == 0, "\(forced.err)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: scene.photo)) == original)
    #expect(scene.names() == ["p.jpg"])
    #expect(scene.victimIntact)
  }

  /// A folder where a store file belongs is as foreign as a link or a pipe there: bad data (65)
  /// naming the file, never "cannot read" (66), and nothing changes.
  @Test(arguments: [".photoedit.json", ".photoedit.journal", ".original"])
  func folderWhereAStoreFileBelongsIs65(suffix: String) throws {
    let scene = try Scene()
    let path = scene.photo + suffix
    if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    let before = scene.names()
    let run = try launch(["apply", "-f", "vignette", scene.photo], deadline: 60)
    #expect(run.status == 65, "\(suffix): \(run.err)")
    #expect(
      run.err.contains("p.jpg\(suffix)") && !run.err.contains("Is a directory"), "\(suffix): \(run.err)")
    #expect(scene.names() == before)
  }

  /// A sidecar whose faceblur step holds more faces than a step stores is refused at once (65)
  /// and left as it is: each face is drawn on every render, so a planted list of hundreds of
  /// thousands would cost minutes of CPU.
  @Test func sidecarWithTooManyFacesIsRefused() throws {
    let scene = try Scene(edited: false)
    #expect(runCLI(["apply", "-f", "faceblur", scene.photo]).status == 0)
    let path = scene.photo + ".photoedit.json"
    var json =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    let faces = Array(repeating: ["x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0], count: 100_001)
    var operations = json["operations"] as! [[String: Any]]
    var derived = operations[0]["derived"] as! [String: Any]
    derived["faces"] = faces
    operations[0]["derived"] = derived
    json["operations"] = operations
    var history = json["history"] as! [[String: Any]]
    var steps = history[0]["steps"] as! [[String: Any]]
    steps[0]["derived"] = derived
    history[0]["steps"] = steps
    json["history"] = history
    let planted = try JSONSerialization.data(withJSONObject: json)
    try planted.write(to: URL(fileURLWithPath: path))
    for arguments in [["render", "--force", scene.photo], ["show", scene.photo]] {
      let run = try launch(arguments, deadline: 60)
      #expect(run.status == 65, "\(arguments): \(run.err)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == planted)
  }

  /// A sidecar pointing its original at a file elsewhere (with that file's checksum) is refused:
  /// the original it names must be the photo's own `.original`, or an image.
  @Test func sidecarPointingOutsideIsRefused() throws {
    let scene = try Scene(edited: false)
    let out = scene.root.path("shared/o.jpg")
    #expect(runCLI(["apply", "-f", "sepia", "-o", out, scene.photo]).status == 0)
    let passwd = FileManager.default.contents(atPath: "/etc/passwd")!
    let sidecarPath = out + ".photoedit.json"
    var sidecar =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sidecarPath)))
      as! [String: Any]
    var original = sidecar["original"] as! [String: Any]
    original["path"] = "../../../../../../../../etc/passwd"
    original["bytes"] = passwd.count
    original["sha256"] = sha256(passwd)
    sidecar["original"] = original
    try JSONSerialization.data(withJSONObject: sidecar).write(to: URL(fileURLWithPath: sidecarPath))
    let outBefore = try Data(contentsOf: URL(fileURLWithPath: out))
    for arguments in [
      ["revert", "--force", out], ["revert", out], ["undo", out], ["render", "--force", out],
    ] {
      let run = try launch(arguments, deadline: 60)
      #expect(run.status == 65, "\(arguments): \(run.err)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == outBefore)
    #expect(try launch(["status", out]).out.contains("damaged"))
    // In place, the original must be the photo's own `.original`, whatever the sidecar says.
    let inPlace = try Scene()
    let path = inPlace.photo + ".photoedit.json"
    let text = try String(contentsOfFile: path, encoding: .utf8)
      .replacingOccurrences(of: "\"path\" : \"p.jpg.original\"", with: "\"path\" : \"../outside/victim.txt\"")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let refused = try launch(["revert", inPlace.photo], deadline: 60)
    #expect(refused.status == 65)
    #expect(refused.err.contains("'original.path' cannot be"))
    #expect(inPlace.victimIntact)
  }

  /// A sidecar that names a key twice is refused, with the line of the second one: readers
  /// differ on which one wins, so another tool could see a different original than photoedit.
  @Test func sidecarWithARepeatedKeyIsRefused() throws {
    let scene = try Scene()
    let path = scene.photo + ".photoedit.json"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let own = "\"path\" : \"p.jpg.original\""
    // The line of the own path, which the planted one takes; the own one moves to the next.
    let line = text.components(separatedBy: own)[0].components(separatedBy: "\n").count
    let planted = text.replacingOccurrences(
      of: own, with: "\"path\" : \"../outside/victim.txt\",\n    " + own)
    try planted.write(toFile: path, atomically: true, encoding: .utf8)
    let before = scene.names()
    for arguments in [
      ["revert", scene.photo], ["show", scene.photo], ["apply", "-f", "vignette", scene.photo],
    ] {
      let run = try launch(arguments, deadline: 60)
      #expect(run.status == 65, "\(arguments): \(run.err)")
      #expect(!run.err.dropLast().contains("\n"), "\(arguments): \(run.err)")
      #expect(
        run.err.hasPrefix(
          "photoedit: \(scene.photo): the sidecar is not valid JSON: line \(line + 1), column 5: the key"
            + " \"path\" appears twice in one object;"), "\(arguments): \(run.err)")
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == planted)
    #expect(scene.names() == before)
    #expect(scene.victimIntact)
  }

  /// Pipes and devices where a store file or an original belongs are refused, never read, and
  /// never waited on.
  @Test func pipesAndDevicesNeverHang() throws {
    let scene = try Scene(edited: false)
    let out = scene.root.path("shared/o.jpg")
    #expect(runCLI(["apply", "-f", "sepia", "-o", out, scene.photo]).status == 0)
    let sidecarPath = out + ".photoedit.json"
    let good = try Data(contentsOf: URL(fileURLWithPath: sidecarPath))
    for target in ["fifo", "/dev/zero"] {
      var sidecar = try JSONSerialization.jsonObject(with: good) as! [String: Any]
      var original = sidecar["original"] as! [String: Any]
      if target == "fifo" {
        #expect(mkfifo(scene.root.path("shared/pipe.jpg"), 0o644) == 0)
        original["path"] = "pipe.jpg"
      } else {
        original["path"] = target
      }
      sidecar["original"] = original
      try JSONSerialization.data(withJSONObject: sidecar).write(to: URL(fileURLWithPath: sidecarPath))
      let named = target == "fifo" ? "pipe.jpg" : target
      for command in ["status", "show"] {
        let run = try launch([command, out], deadline: 30)
        #expect(run.status == 0 && run.out.contains("damaged"), "\(command) on \(target)")
      }
      for command in ["check", "revert", "undo", "render"] {
        let run = try launch([command, out], deadline: 30)
        #expect(run.status != 0, "\(command) on \(target)")
        #expect(
          run.err.contains("\(named)' is not a regular file"), "\(command) on \(target): \(run.err)")
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: sidecarPath)) != good)
      try? FileManager.default.removeItem(atPath: scene.root.path("shared/pipe.jpg"))
    }
    // A pipe as the sidecar or the journal.
    let other = try Scene()
    try FileManager.default.removeItem(atPath: other.photo + ".photoedit.json")
    #expect(mkfifo(other.photo + ".photoedit.json", 0o644) == 0)
    for command in ["status", "show", "check", "revert", "undo"] {
      let run = try launch([command, other.photo], deadline: 30)
      #expect(run.status != 0 || command == "status", "\(command)")
      #expect(
        run.err.contains("not a regular file") || run.out.contains("not a regular file"),
        "\(command): \(run.err)")
    }
    let third = try Scene()
    #expect(mkfifo(third.photo + ".photoedit.journal", 0o644) == 0)
    for command in ["status", "check", "apply"] {
      let arguments = command == "apply" ? ["apply", "-f", "sepia", third.photo] : [command, third.photo]
      _ = try launch(arguments, deadline: 30)
    }
    #expect(third.victimIntact)
  }

  /// A link (even one that leads nowhere) at the lock's path never makes a command spin: it is
  /// refused at once, with the name to remove.
  @Test func linkAtTheLockIsRefusedAtOnce() throws {
    let scene = try Scene()
    try FileManager.default.createSymbolicLink(
      atPath: scene.photo + ".photoedit.lock", withDestinationPath: scene.root.path("nowhere"))
    for arguments in [
      ["apply", "-f", "vignette", scene.photo], ["undo", scene.photo], ["revert", scene.photo],
    ] {
      let run = try launch(arguments, deadline: 30)
      #expect(run.status == 65, "\(arguments): \(run.err)")
      #expect(run.err.contains("photoedit.lock' is not a regular file"), "\(run.err)")
    }
    #expect(!FileManager.default.fileExists(atPath: scene.root.path("nowhere")))
  }

  /// A dangling link at `PHOTO.original` is a stray original: refused before anything is written,
  /// so no interrupted edit is left behind.
  @Test func danglingLinkAtTheOriginalIsRefusedBeforeWriting() throws {
    let scene = try Scene(edited: false)
    try FileManager.default.createSymbolicLink(
      atPath: scene.photo + ".original", withDestinationPath: scene.root.path("nowhere"))
    let run = try launch(["apply", "-f", "sepia", scene.photo], deadline: 30)
    #expect(run.status == 65)
    #expect(run.err.contains("exists but no sidecar names it"))
    #expect(scene.names() == ["p.jpg", "p.jpg.original"])
    #expect(scene.debris() == [])
  }

  /// A huge sidecar is refused from its size, before anything is allocated, with the limit named
  /// and how to raise it.
  @Test func hugeSidecarIsRefusedFromItsSize() throws {
    let scene = try Scene()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: scene.photo + ".photoedit.json"))
    try handle.truncate(atOffset: 200 << 20)
    try handle.close()
    let run = try launch(["status", scene.photo], deadline: 30)
    #expect(run.out.contains("damaged"))
    #expect(
      run.out.contains("more than the limit of 67108864 (raise it with --max-file-size MB)"), "\(run.out)")
    let show = try launch(["show", scene.photo, "--max-file-size", "1"], deadline: 30)
    #expect(show.status != 0)
  }

  /// The fault-injection hook is in this test build only: the product never kills itself.
  @Test func crashPointsAreInTestBuildsOnly() throws {
    let makefile = try String(
      contentsOf: fixtures.deletingLastPathComponent().appendingPathComponent("Makefile"), encoding: .utf8)
    #expect(makefile.contains("-DPHOTOEDIT_TEST_HOOKS"))
    let build = makefile.components(separatedBy: "\nbuild:")[1].components(separatedBy: "\n\n")[0]
    #expect(!build.contains("PHOTOEDIT_TEST_HOOKS"))
  }
}

/// Lowercase hexadecimal SHA-256, through `sha256sum` (the test target has no libcrypto).
func sha256(_ data: Data) -> String {
  let folder = try! TemporaryFolder()
  let path = folder.path("data")
  try! data.write(to: URL(fileURLWithPath: path))
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
  process.arguments = [path]
  let pipe = Pipe()
  process.standardOutput = pipe
  try! process.run()
  let out = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(String(decoding: out, as: UTF8.self).prefix(64))
}
