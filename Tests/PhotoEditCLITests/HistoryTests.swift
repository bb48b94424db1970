import Foundation
import Testing

/// undo and redo by change, the format-2 migration, a recipe with nothing left, and recovery
/// past a damaged sidecar, through the real binary.
@Suite struct HistoryTests {
  let original = FileManager.default.contents(atPath: fixturePath("faces/hopper.jpg"))!

  func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  @Test func undoTakesBackAMultiFilterApplyWhole() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(try launch(["apply", "-f", "sepia", "-f", "vignette", "-f", "flip", photo]).status == 0)
    let three = bytes(photo)
    #expect(try launch(["apply", "-f", "rotate", photo]).status == 0)
    #expect(try launch(["undo", photo]).out == "\(photo): undid apply rotate (3 operations, 1 undone)\n")
    #expect(bytes(photo) == three)
    let all = try launch(["undo", photo])
    #expect(
      all.out
        == "\(photo): undid apply sepia, vignette, flip (0 operations, 2 undone)\n  no step left: the photo is its original\n"
    )
    // Nothing left: the photo is the original's exact bytes, not a re-encode.
    #expect(bytes(photo) == original)
    let status = try launch(["status", "--json", photo])
    #expect(status.out.contains("\"state\": \"unedited\""))
    #expect(try launch(["check", photo]).status == 0)
    // Nothing to undo is success, said on the photo's line (not an error).
    let nothing = try launch(["undo", photo])
    #expect(nothing.status == 0 && nothing.out == "\(photo): nothing to undo\n" && nothing.err.isEmpty, "\(nothing)")
    // The redo history is kept: both changes come back, in order.
    #expect(try launch(["redo", photo]).status == 0)
    #expect(bytes(photo) == three)
    #expect(try launch(["redo", photo]).status == 0)
    let nothingToRedo = try launch(["redo", "--json", photo])
    #expect(nothingToRedo.status == 0 && nothingToRedo.out.contains("\"current\": true"), "\(nothingToRedo)")
    // revert removes everything, history included.
    #expect(try launch(["revert", photo]).status == 0)
    #expect(folder.names() == ["h.jpg"])
    #expect(bytes(photo) == original)
  }

  /// An -o output undone to nothing is its original, encoded as the output's name says.
  @Test func outputUndoneToNothingIsItsOriginalInItsNamesFormat() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let same = folder.path("same.jpg")
    let png = folder.path("other.png")
    #expect(runCLI(["apply", "-f", "sepia", "-o", same, photo]).status == 0)
    #expect(runCLI(["apply", "-f", "sepia", "-o", png, photo]).status == 0)
    // A PNG render has no quality to show; a JPEG one keeps its route, and the quality of its
    // original (hopper.jpg was saved at 88).
    #expect(runCLI(["show", png]).out.contains("\nrender: png, lossless, sha256 "))
    #expect(runCLI(["show", same]).out.contains("\nrender: jpeg, quality 88, 420, sha256 "))
    #expect(runCLI(["undo", same]).status == 0)
    #expect(bytes(same) == original)
    #expect(runCLI(["undo", png]).status == 0)
    #expect(bytes(png)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
  }

  /// A committed version-1 sidecar (undo one step at a time; undone steps redone from the end)
  /// is migrated: it renders, undoes and redoes as it did.
  @Test func versionOneSidecarMigrates() throws {
    let folder = try TemporaryFolder()
    try folder.copy("faces/hopper.jpg", as: "h.jpg.original")
    try folder.copy("recipes/sidecar-v1.json", as: "h.jpg.photoedit.json")
    let photo = folder.path("h.jpg")
    #expect(try launch(["status", photo]).out.contains("stale"))
    #expect(try launch(["render", photo]).status == 0)
    let text = try String(contentsOfFile: photo + ".photoedit.json", encoding: .utf8)
    #expect(text.contains("\"formatVersion\" : 2"))
    #expect(text.contains("\"history\""))
    #expect(try launch(["status", photo]).out == "\(photo): edited (2 operations)\n")
    // The v1 undone list: rotate was undone last, so it is redone first.
    #expect(try launch(["redo", photo]).out.contains("redid apply rotate"))
    #expect(try launch(["redo", photo]).out.contains("redid apply flip"))
    // The migrated history undoes one step at a time, as version 1 did.
    for filter in ["flip", "rotate", "vignette", "sepia"] {
      #expect(try launch(["undo", photo]).out.contains("undid apply \(filter) ("))
    }
    #expect(bytes(photo) == original)
  }

  /// revert --force past a sidecar that cannot be read puts PHOTO.original back, saying what it
  /// installed and removed; without --force the refusal says how.
  @Test(arguments: ["{ torn", #"{"formatIdentifier": "com.other.tool", "formatVersion": 1}"#, "newer"])
  func revertForcePastADamagedSidecar(sidecar: String) throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    let path = photo + ".photoedit.json"
    var text = sidecar
    if sidecar == "newer" {
      text = try String(contentsOfFile: path, encoding: .utf8)
        .replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 9")
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let refused = runCLI(["revert", photo])
    #expect(refused.status == 65)
    #expect(
      refused.err.contains("'photoedit revert --force' puts its preserved original \(photo).original back"))
    let check = runCLI(["check", photo])
    #expect(check.status == 1)
    #expect(check.err.contains("revert --force"))
    let forced = runCLI(["revert", "--force", photo])
    #expect(forced.status == 0, "\(forced.err)")
    #expect(forced.out.hasPrefix("\(photo): put \(photo).original (6412 bytes, modified "))
    #expect(forced.out.contains("unverified"))
    #expect(forced.out.hasSuffix("removed h.jpg.photoedit.json, h.jpg.original\n"))
    #expect(folder.names() == ["h.jpg"])
    #expect(bytes(photo) == original)
  }

  /// Exports are idempotent: the same command again gives the same bytes and a one-step recipe,
  /// with or without --force, and reports the output as current.
  @Test func exportsAreIdempotent() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let out = folder.path("out.jpg")
    let command = ["apply", "-f", "vignette", "-o", out, photo]
    #expect(runCLI(command).status == 0)
    let first = bytes(out)
    for extra in [[], ["--force"]] {
      let again = runCLI(command + extra)
      #expect(again.status == 0)
      #expect(again.out == "\(photo): \(out) is current (1 operation); nothing to do\n")
      #expect(bytes(out) == first)
    }
    let json = runCLI(command + ["--json"])
    #expect(json.out.contains("\"current\": true"))
    // Another request replaces the output only with --force (what it hid could be lost), and
    // then makes it again: still one step, never two vignettes.
    let another = ["apply", "-f", "vignette:intensity=0.5", "-o", out, photo]
    #expect(runCLI(another).status == 73)
    #expect(bytes(out) == first)
    #expect(runCLI(another + ["--force"]).status == 0)
    let sidecar =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".photoedit.json")))
      as! [String: Any]
    #expect((sidecar["operations"] as! [Any]).count == 1)
    // To build on an output, edit the output itself.
    #expect(runCLI(["apply", "-f", "sepia", out]).status == 0)
    #expect(runCLI(["show", out]).out.contains("2 operations"))
    // A file that is not photoedit's output of this input needs --force.
    let other = try folder.copy("jpeg/testorig.jpg", as: "other.jpg")
    #expect(runCLI(["apply", "-f", "vignette", "-o", out, other]).status == 73)
  }

  /// Names that are one file are done once per command; a second name of it (a hard link),
  /// which an edit in place leaves showing the photo as it was, is reported and fails the run.
  @Test func oneFileIsDoneOncePerCommand() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "a.jpg")
    try FileManager.default.linkItem(atPath: photo, toPath: folder.path("hard.jpg"))
    try FileManager.default.createSymbolicLink(
      atPath: folder.path("dir"), withDestinationPath: folder.url.path)
    let run = try launch(
      ["apply", "-f", "sepia", "a.jpg", "./a.jpg", "a.jpg", "hard.jpg", "dir/a.jpg", "--json"], in: folder.url
    )
    #expect(run.status == 1, "\(run.err)")
    let lines = run.out.split(separator: "\n")
    #expect(lines.count == 5)
    #expect(lines.filter { $0.contains("\"duplicateOf\": \"a.jpg\"") }.count == 3)
    #expect(run.err.components(separatedBy: "the same file as a.jpg, done once").count == 4)
    #expect(run.err.contains("photoedit: hard.jpg: not edited: a hard link to 'a.jpg'"), "\(run.err)")
    // Counted apart, not as done; a writer's later mention repeats nothing of what it did.
    #expect(
      run.err.hasSuffix("photoedit: 5 files: 1 done, 0 current, 1 failed, 3 duplicates\n"), "\(run.err)")
    #expect(lines.filter { $0.contains("\"duplicateOf\"") }.allSatisfy { !$0.contains("operations") })
    let sidecar =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))) as! [String: Any]
    #expect((sidecar["operations"] as! [Any]).count == 1)
  }

  /// status of a photo named twice reads it once: the summary counts the second mention as a
  /// duplicate, not as done, and its JSON line gives the state beside `duplicateOf`.
  @Test func statusOfAPhotoNamedTwiceCountsADuplicate() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: folder.path("tree/a"), withIntermediateDirectories: true)
    let photo = try folder.copy("faces/hopper.jpg", as: "tree/a/hopper.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    let text = runCLI(["status", "-r", folder.path("tree/a"), photo])
    #expect(text.status == 0)
    #expect(text.out == "\(photo): edited (1 operation)\n")
    #expect(
      text.err
        == "photoedit: \(photo): warning: the same file as \(photo), done once\n"
        + "photoedit: 2 files: 1 done, 0 current, 0 failed, 1 duplicate\n")
    let json = runCLI(["status", "-r", folder.path("tree/a"), photo, "--json"])
    let lines = try json.out.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
    #expect(lines.count == 2)
    #expect(lines.map { $0["state"] as? String } == ["edited", "edited"])
    #expect(lines.map { $0["operations"] as? Int } == [1, 1])
    #expect(lines[1]["duplicateOf"] as? String == photo)
    #expect(lines[0]["duplicateOf"] == nil)
  }
}
