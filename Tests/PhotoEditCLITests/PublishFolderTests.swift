import Foundation
import Testing

/// The way from an edited folder to a published one (the publishing issue's findings, each
/// reproduced through the real binary): an output keeps its blur against another request, links
/// never make a walk skip a photo, `--output-dir` keeps trees and never walks into itself, and
/// `render -r --output-dir` exports the renders of a folder edited in place and nothing else.
@Suite struct PublishFolderTests {
  static func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map(Array.init) }

  /// Copies a fixture in under `name`, making the folders on its way.
  @discardableResult
  static func put(_ fixture: String, _ name: String, in folder: TemporaryFolder) throws -> String {
    let path = folder.path(name)
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    return try folder.copy(fixture, as: name)
  }

  static func files(below folder: String) -> [String] {
    (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
      var isFolder: ObjCBool = false
      FileManager.default.fileExists(atPath: folder + "/" + $0, isDirectory: &isFolder)
      return !isFolder.boolValue
    }.sorted()
  }

  /// A faceblurred output is not replaced by another request's render (a sepia that would show
  /// every face) without --force: 73, the refusal names what would be dropped, nothing is
  /// written. The same request again is current; --force replaces.
  @Test func anOutputKeepsItsBlurAgainstAnotherRequest() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("groundtruth/opencv-group1.jpg", as: "x.jpg")
    let out = folder.path("out/x.jpg")
    try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
    let blur = ["apply", "--filter", "faceblur:detector=haar", "-o", out, photo]
    let first = try launch(blur)
    #expect(first.status == 0, "\(first.err)")
    let hidden = try #require(first.out.firstMatch(of: /(\d+) faces hidden/)).1
    let blurred = Self.bytes(out)
    let sidecar = Self.bytes(out + ".photoedit.json")

    let sepia = try launch(["apply", "--filter", "sepia", "-o", out, photo])
    #expect(sepia.status == 73)
    #expect(
      sepia.err
        == "photoedit: \(photo): '\(out)' was made with faceblur (\(hidden) faces hidden); this request has no faceblur; use --force to replace it\n"
    )
    #expect(Self.bytes(out) == blurred && Self.bytes(out + ".photoedit.json") == sidecar)

    // Other settings of the same filter are another request too.
    let other = try launch(["apply", "--filter", "faceblur:detector=haar,blocks=3", "-o", out, photo])
    #expect(other.status == 73)
    #expect(other.err.contains("this request's settings differ; use --force"), "\(other.err)")
    #expect(Self.bytes(out) == blurred)

    let again = try launch(blur)
    #expect(again.status == 0)
    #expect(again.out.contains("is current"))

    let forced = try launch(["apply", "--filter", "sepia", "-o", out, "--force", photo])
    #expect(forced.status == 0, "\(forced.err)")
    #expect(Self.bytes(out) != blurred)
  }

  /// A symbolic link that sorts before the photo it points to cannot make the photo "done
  /// once" and never edited: the photo itself is edited, under its own name, on the first run;
  /// the link is its duplicate. A link to a photo outside the walk is refused (the run exits 1).
  @Test func aLinkNeverMakesAWalkSkipThePhoto() throws {
    let folder = try TemporaryFolder()
    let z = try Self.put("faces/hopper.jpg", "in/z.jpg", in: folder)
    let before = Self.bytes(z)
    try FileManager.default.createSymbolicLink(atPath: folder.path("in/a.jpg"), withDestinationPath: "z.jpg")
    let run = try launch(["apply", "-f", "sepia", "-r", folder.path("in")])
    #expect(run.status == 0, "\(run.err)")
    #expect(run.out == "\(z): applied sepia (1 operation)\n")
    #expect(run.err.contains("\(folder.path("in/a.jpg")): warning: the same file as \(z), done once"))
    #expect(Self.bytes(z) != before)
    #expect(FileManager.default.fileExists(atPath: z + ".photoedit.json"))

    // Alone in its walk, the link is refused, and the run says so with its status.
    let outside = try TemporaryFolder()
    try FileManager.default.createSymbolicLink(atPath: outside.path("link.jpg"), withDestinationPath: z)
    let linkOnly = try launch(["apply", "-f", "sepia", "-r", outside.url.path])
    #expect(linkOnly.status != 0)
    #expect(linkOnly.err.contains("is a symbolic link"), "\(linkOnly.err)")
  }

  /// When the photo a link names fails, the link's mention is not "done once" either.
  @Test func aDuplicateOfAFailedPhotoIsNotDone() throws {
    let folder = try TemporaryFolder()
    folder.write("z.jpg", Array("not a photo".utf8))
    try FileManager.default.createSymbolicLink(atPath: folder.path("a.jpg"), withDestinationPath: "z.jpg")
    let run = try launch(["apply", "-f", "sepia", "-r", folder.url.path])
    #expect(run.status == 1)
    #expect(!run.err.contains("done once"), "\(run.err)")
    #expect(
      run.err.contains("not done: the same file as \(folder.path("z.jpg")), which failed"), "\(run.err)")
    #expect(run.err.hasSuffix("2 files: 0 done, 0 current, 2 failed\n"), "\(run.err)")
  }

  /// Two hard links in one in-place run: one photo, edited once; the other name still holds the
  /// unedited photo, so it is reported and the run exits non-zero, and the edited name warns
  /// of its other name.
  @Test func aHardLinkInTheRunIsReportedNotDone() throws {
    let folder = try TemporaryFolder()
    let b = try folder.copy("faces/hopper.jpg", as: "b.jpg")
    let y = folder.path("y.jpg")
    try FileManager.default.linkItem(atPath: b, toPath: y)
    let before = Self.bytes(b)
    let run = try launch(["apply", "-f", "sepia", "-r", folder.url.path])
    #expect(run.status == 1)
    #expect(
      run.err.contains(
        "photoedit: \(y): not edited: a hard link to '\(b)' (one photo, two names), which was edited there"),
      "\(run.err)")
    #expect(run.err.contains("\(b): warning: the photo has another name (a hard link), which still shows it"))
    #expect(Self.bytes(b) != before)
    #expect(Self.bytes(y) == before)
    #expect(!FileManager.default.fileExists(atPath: y + ".photoedit.json"))
  }

  /// Two camera folders with the same file names: `--output-dir` keeps each photo's path below
  /// the walked folder, and a re-run from inside the walked folder does not walk into its own
  /// output folder: every output is current.
  @Test func treesAreKeptAndARerunFromInsideIsCurrent() throws {
    let folder = try TemporaryFolder()
    let src = folder.path("src")
    try Self.put("faces/hopper.jpg", "src/a/IMG_0001.JPG", in: folder)
    try Self.put("faces/hopper.jpg", "src/b/IMG_0001.JPG", in: folder)
    let arguments = ["apply", "-f", "sepia", "-r", ".", "--output-dir", "public"]
    let first = try launch(arguments, in: URL(fileURLWithPath: src))
    #expect(first.status == 0, "\(first.err)")
    #expect(
      Self.files(below: src + "/public") == [
        "a/IMG_0001.JPG", "a/IMG_0001.JPG.photoedit.json", "b/IMG_0001.JPG", "b/IMG_0001.JPG.photoedit.json",
      ])
    let second = try launch(arguments + ["--json"], in: URL(fileURLWithPath: src))
    #expect(second.status == 0, "\(second.err)")
    let lines = try jsonLines(second.out)
    #expect(lines.count == 2)
    #expect(lines.allSatisfy { $0["current"] as? Bool == true })
    #expect(second.err == "photoedit: 2 files: 0 done, 2 current, 0 failed\n")
    // Photos named directly still go to the folder flat.
    let flat = try launch([
      "apply", "-f", "sepia", "--output-dir", folder.path("flat"), src + "/a/IMG_0001.JPG",
    ])
    #expect(flat.status == 0, "\(flat.err)")
    #expect(FileManager.default.fileExists(atPath: folder.path("flat/IMG_0001.JPG")))
  }

  /// A folder below --output-dir that photoedit would make is its own: a link planted there is
  /// refused, and nothing is written where it points.
  @Test func aLinkPlantedInTheOutputTreeIsNotFollowed() throws {
    let folder = try TemporaryFolder()
    try Self.put("faces/hopper.jpg", "src/a/x.jpg", in: folder)
    try FileManager.default.createDirectory(atPath: folder.path("public"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: folder.path("elsewhere"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: folder.path("public/a"), withDestinationPath: folder.path("elsewhere"))
    let run = try launch([
      "apply", "-f", "sepia", "-r", folder.path("src"), "--output-dir", folder.path("public"),
    ])
    #expect(run.status == 73)
    #expect(run.err.contains("cannot create the output folder '\(folder.path("public/a"))'"), "\(run.err)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("elsewhere")).isEmpty)
  }

  /// A folder edited in place is published with `render -r --output-dir`: each current render at
  /// its path, no sidecar and no original; a photo without an edit is exported with a warning; a
  /// re-run is current. An in-place faceblur batch says where the originals are.
  @Test func renderExportsTheRendersOfAFolderAndNothingElse() throws {
    let folder = try TemporaryFolder()
    try Self.put("faces/hopper.jpg", "src/a/x.jpg", in: folder)
    try Self.put("faces/hopper.jpg", "src/b/y.jpg", in: folder)
    try Self.put("faces/hopper.jpg", "src/b/untouched.jpg", in: folder)
    let edit = try launch([
      "apply", "-f", "faceblur:detector=haar", folder.path("src/a/x.jpg"), folder.path("src/b/y.jpg"),
    ])
    #expect(edit.status == 0, "\(edit.err)")
    #expect(
      edit.err.hasPrefix(
        "photoedit: note: in place, each photo's original (with its faces) is kept beside it"))
    let export = ["render", "-r", folder.path("src"), "--output-dir", folder.path("public")]
    let run = try launch(export)
    #expect(run.status == 0, "\(run.err)")
    #expect(Self.files(below: folder.path("public")) == ["a/x.jpg", "b/untouched.jpg", "b/y.jpg"])
    #expect(Self.bytes(folder.path("public/a/x.jpg")) == Self.bytes(folder.path("src/a/x.jpg")))
    #expect(
      run.err.contains("\(folder.path("src/b/untouched.jpg")): warning: not edited: exported as it is"),
      "\(run.err)")
    #expect(!run.err.contains("x.jpg: warning"))
    let again = try launch(export)
    #expect(again.status == 0)
    #expect(again.err.hasSuffix("3 files: 0 done, 3 current, 0 failed\n"), "\(again.err)")
  }
}
