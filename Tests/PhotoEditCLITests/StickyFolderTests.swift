import Foundation
import Testing

/// Another user's photo in a shared sticky folder (mode 1777, as /tmp): the sticky bit forbids
/// renaming over or removing it, which a commit needs. That is proven before the journal is
/// written, so the command exits 73 and leaves every file as it was, with no journal, temporary
/// file, `.original` or sidecar. Reproduced on the code before this change (issue 35, finding 5):
/// `apply` exited 65 "interrupted edit" and left a journal, a temporary file, `.original` and a
/// sidecar that neither user could clear.
///
/// The second user is a uid with no account, through `setpriv`: only root can switch to it, so
/// the test needs root and is skipped (and says so) otherwise.
@Suite(.enabled(if: geteuid() == 0, "needs root to run photoedit as a second user (setpriv --reuid)"))
struct StickyFolderTests {
  static let otherUser = "54321"

  /// Runs photoedit as the second user.
  static func asOtherUser(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    try launch(
      ["--reuid=\(otherUser)", "--regid=\(otherUser)", "--clear-groups", photoeditBinary.path] + arguments,
      executable: "/usr/bin/setpriv", deadline: 60)
  }

  /// A sticky shared folder holding root's photo `p.jpg`, edited by root when `edited`.
  struct Scene {
    let root = try! TemporaryFolder()
    var shared: String { root.path("shared") }
    var photo: String { root.path("shared/p.jpg") }

    init(edited: Bool) throws {
      #expect(chmod(root.path(""), 0o755) == 0)
      try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
      #expect(chmod(shared, 0o1777) == 0)
      try root.copy("faces/hopper.jpg", as: "shared/p.jpg")
      #expect(chmod(photo, 0o644) == 0)
      if edited { #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0) }
    }

    /// Every file of the folder and its bytes.
    func snapshot() throws -> [String: Data] {
      var out: [String: Data] = [:]
      for name in try FileManager.default.contentsOfDirectory(atPath: shared) {
        out[name] = try Data(contentsOf: URL(fileURLWithPath: shared + "/" + name))
      }
      return out
    }
  }

  @Test(arguments: [
    (false, ["apply", "-f", "sepia"]), (true, ["apply", "-f", "vignette"]), (true, ["undo"]),
    (true, ["revert"]), (true, ["edit", "--step", "1", "--set", "intensity=0.5"]),
  ])
  func anotherUsersPhotoIsRefusedBeforeTheCommit(edited: Bool, command: [String]) throws {
    let scene = try Scene(edited: edited)
    let before = try scene.snapshot()
    let run = try Self.asOtherUser(command + [scene.photo])
    #expect(run.status == 73, "\(command): \(run.err)")
    #expect(
      run.err.hasPrefix("photoedit: \(scene.photo): cannot write '\(scene.photo)")
        && run.err.hasSuffix(
          "': Operation not permitted (the folder is sticky and the file is another user's); nothing was changed\n"),
      "\(command): \(run.err)")
    #expect(try scene.snapshot() == before, "\(command)")
    // The photo's owner finds nothing to repair, and can still edit it.
    let check = try launch(["check", scene.photo])
    #expect(check.status == 0, "\(check.out)\(check.err)")
    #expect(runCLI(["apply", "-f", "sepia", scene.photo]).status == 0)
  }
}
