import Foundation
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// Inputs a careless script or an unlucky folder produces: each gets one clear line and a
/// documented status, and no file changes.
@Suite struct AwkwardInputTests {
  @Test func recursiveWalkDoesNotFollowFolderLinks() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try folder.copy("faces/hopper.jpg", as: "a.jpg")
    try FileManager.default.createSymbolicLink(atPath: folder.path("loop"), withDestinationPath: ".")
    let found = PhotoFolder.photos(in: folder.url.path, recursive: true).map(\.path)
    #expect(found == [folder.path("a.jpg")])
  }

  @Test func aPipeNamedLikeAPhotoIsRefusedNotRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let fifo = folder.path("f.jpg")
    #expect(mkfifo(fifo, 0o644) == 0)
    let r = runCLI(["apply", "--filter", "sepia", fifo])
    #expect(r.status == 65)
    #expect(r.err == "photoedit: \(fifo): not a regular file (a device, pipe or socket)\n")
    let walked = runCLI(["detect", "-r", folder.url.path])
    #expect(walked.status == 65)
  }

  @Test func outputDirCollisionsAreRefusedBeforeAnythingIsWritten() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: true)
    let a = try folder.copy("faces/hopper.jpg", as: "a.jpg")
    let b = try folder.copy("faces/hopper.jpg", as: "sub/a.jpg")
    let out = folder.path("pub")
    let r = runCLI(["apply", "--filter", "sepia", "--output-dir", out, a, b])
    #expect(r.status == 64)
    #expect(r.err.hasPrefix("photoedit: error: '\(a)' and '\(b)' would both be written to '\(out)/a.jpg'"))
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// A run whose photos fail leaves no folder `--output-dir` made (the folder nor its missing
  /// parents), never removes one that was there before, and keeps one that holds a result.
  @Test func failedOutputDirRunLeavesNoFolderItMade() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let bad = try folder.copy("bad/truncated_jpeg.jpg", as: "bad.jpg")
    let good = try folder.copy("faces/hopper.jpg", as: "good.jpg")
    for command in [["apply", "--filter", "sepia"], ["render"]] {
      let r = runCLI(command + ["--output-dir", folder.path("new/out"), bad])
      #expect(r.status == 65, "\(r.err)")
      #expect(r.err == "photoedit: \(bad): truncated JPEG (the file ends early)\n")
      #expect(folder.names() == ["bad.jpg", "good.jpg"])
    }
    // A folder that was there stays, empty as it was; only the one this run made goes.
    try FileManager.default.createDirectory(atPath: folder.path("kept"), withIntermediateDirectories: false)
    let inKept = runCLI(["apply", "--filter", "sepia", "--output-dir", folder.path("kept/out"), bad])
    #expect(inKept.status == 65)
    #expect(folder.names() == ["bad.jpg", "good.jpg", "kept"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("kept")).isEmpty)
    // A failure beside a success, in parallel: the folder holds the success's output and stays.
    let mixed = runCLI([
      "apply", "--filter", "sepia", "--output-dir", folder.path("pub"), "-j", "2", bad, good,
    ])
    #expect(mixed.status == 1)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path("pub")).sorted()
        == ["good.jpg", "good.jpg.photoedit.json"])
    // A dry run makes no folder at all.
    let dry = runCLI([
      "apply", "--filter", "sepia", "--output-dir", folder.path("dry/out"), "--dry-run", good,
    ])
    #expect(dry.status == 0, "\(dry.err)")
    #expect(folder.names() == ["bad.jpg", "good.jpg", "kept", "pub"])
  }

  @Test func anOutputThatIsAFolderIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    try FileManager.default.createDirectory(atPath: folder.path("out.jpg"), withIntermediateDirectories: true)
    let r = runCLI(["apply", "--filter", "sepia", "--force", "-o", folder.path("out.jpg"), photo])
    #expect(r.status == 73)
    #expect(r.err == "photoedit: \(photo): the output '\(folder.path("out.jpg"))' is a folder\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["h.jpg", "out.jpg"])
  }

  @Test func statusOfAMissingFileIsAnError() {
    let r = runCLI(["status", "/nonexistent/typo.jpg"])
    #expect(r.status == 66)
    #expect(r.err == "photoedit: /nonexistent/typo.jpg: no such file\n")
  }

  /// An edited photo's pixels are a render: exporting an edit of it with -o would take the render
  /// for the original.
  @Test func applyWithOutputRefusesAnEditedInput() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "--filter", "sepia", photo]).status == 0)
    let before = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    let r = runCLI(["apply", "--filter", "vignette", "-o", folder.path("pub.jpg"), photo])
    #expect(r.status == 65)
    #expect(r.err.contains("this photo is already edited"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == before)
  }

  /// In place, a link's "original" would be the link, not the photo's bytes.
  @Test func inPlaceEditOfALinkIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let link = folder.path("link.jpg")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "h.jpg")
    let r = runCLI(["apply", "--filter", "sepia", link])
    #expect(r.status == 65)
    #expect(r.err.contains("is a symbolic link"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["h.jpg", "link.jpg"])
    #expect(runCLI(["apply", "--filter", "sepia", "-o", folder.path("out.jpg"), link]).status == 0)
    _ = photo
  }
}
