import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

@Suite struct CommandFrameTests {
  @Test func versionPrintsAndSucceeds() {
    let r = runCLI(["--version"])
    #expect(r.status == 0)
    #expect(r.out == "photoedit \(PhotoEditCLI.version)\n")
  }

  @Test func noCommandIsUsageError() {
    let r = runCLI([])
    #expect(r.status == 64)
    #expect(r.err.hasPrefix("photoedit: error: no command given\nusage: photoedit"))
    #expect(r.out.isEmpty)
  }

  @Test func unknownCommandIsUsageError() {
    let r = runCLI(["frobnicate", "x.jpg"])
    #expect(r.status == 64)
    #expect(r.err.contains("photoedit: error: unknown command 'frobnicate'"))
  }

  @Test(arguments: [
    (["render", "--quality", "0", "x.jpg"], "--quality must be a whole number from 1 to 100, not '0'"),
    (
      ["render", "-o", "a.jpg", "x.jpg", "y.jpg"],
      "-o/--output takes exactly one input; use --output-dir for many"
    ),
    (
      ["render", "-o", "a.gif", "x.jpg"],
      "the output 'a.gif' must end in .jpg, .jpeg, .png, .heic, .heif, .hif, .avif, .webp, .tif or .tiff"
    ),
    (["render", "--subsampling", "411", "x.jpg"], "--subsampling must be 444, 422 or 420, not '411'"),
    (["apply", "x.jpg"], "give at least one --filter or --recipe"),
    (
      ["detect", "--detector", "haar", "--scale-factor", "1", "x.jpg"],
      "--scale-factor must be a number from 1.01 to 4.0, not '1'"
    ),
    (
      ["detect", "--min-face", "80", "--max-face", "40", "x.jpg"],
      "--max-face (40) must be at least --min-face (80)"
    ),
    (["show"], "no files given"),
    (["filters", "--json", "--markdown"], "--json and --markdown cannot be used together"),
    // The option's bad value is the error, whatever the operands that are left.
    (
      ["apply", "--filter", "sepia", "-j", "x.jpg"],
      "--jobs must be a whole number from 1 to 256, not 'x.jpg'"
    ),
  ])
  func usageErrorsExit64WithOneMessageAndTheUsageLine(arguments: [String], message: String) {
    let r = runCLI(arguments)
    #expect(r.status == 64)
    let lines = r.err.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.first.map(String.init) == "photoedit: error: \(message)")
    #expect(lines.last?.hasPrefix("usage: photoedit \(arguments[0])") == true)
  }

  @Test func everyCommandHasHelp() {
    for command in PhotoEditCLI.commands {
      let r = runCLI(["help", command.name])
      #expect(r.status == 0)
      #expect(r.out.hasPrefix("usage: \(command.usage)\n"), "\(command.name)")
      let viaFlag = runCLI([command.name, "--help"])
      #expect(viaFlag.out == r.out)
    }
  }

  @Test func overviewListsEveryCommand() {
    let r = runCLI(["help"])
    #expect(r.status == 0)
    for command in PhotoEditCLI.commands {
      #expect(r.out.contains("  \(command.name) "), "\(command.name)")
    }
  }

  @Test func aMissingFileGetsOneLineAndStatus66() throws {
    let r = runCLI(["show", "/nonexistent/photo.jpg"])
    #expect(r.status == 66)
    #expect(r.err.hasPrefix("photoedit: /nonexistent/photo.jpg: "))
    #expect(r.err.split(separator: "\n").count == 1)
  }

  @Test func aFolderWithoutRecursiveIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let r = runCLI(["show", folder.url.path])
    #expect(r.status == 66)
    #expect(r.err == "photoedit: \(folder.url.path): is a folder (use -r to walk it)\n")
  }

  @Test func fileListsFromStandardInput() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let a = try folder.copy("faces/hopper.jpg", as: "a.jpg")
    let b = try folder.copy("faces/hopper.jpg", as: "b b.jpg")
    let lines = runCLI(["status", "--json", "-"], input: "\(a)\n\(b)\n")
    let nul = runCLI(["status", "--json", "-0", "-"], input: "\(a)\0\(b)\0")
    for r in [lines, nul] {
      #expect(r.status == 0)
      let files = r.out.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["file"] as? String
      }
      #expect(files == [a, b])
    }
  }

  /// status lists a folder named on standard input as it lists one named as an operand (it was
  /// "is a folder", 66); the editing commands still refuse one without -r.
  @Test func statusListsAFolderNamedOnStandardInput() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: true)
    let a = try folder.copy("faces/hopper.jpg", as: "sub/a.jpg")
    let b = try folder.copy("faces/hopper.jpg", as: "b.jpg")
    let sub = folder.path("sub")
    let listed = runCLI(["status", "-"], input: "\(sub)\n\(b)\n")
    #expect(listed.status == 0)
    #expect(listed.out == "\(a): unedited\n\(b): unedited\n")
    #expect(listed.out == runCLI(["status", sub, b]).out)
    let apply = runCLI(["apply", "-f", "sepia", "-"], input: "\(sub)\n")
    #expect(apply.status == 66)
    #expect(apply.err == "photoedit: \(sub): is a folder (use -r to walk it)\n")
  }

  @Test func recursiveWalkSkipsStoreFilesAndOtherFormats() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: true)
    try folder.copy("faces/hopper.jpg", as: "a.jpg")
    try folder.copy("faces/hopper.jpg", as: "sub/b.JPEG")
    try folder.copy("faces/hopper.jpg", as: "a.jpg.original")
    try Data("{}".utf8).write(to: URL(fileURLWithPath: folder.path("a.jpg.photoedit.json")))
    try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path("notes.txt")))
    let found = PhotoFolder.photos(in: folder.url.path, recursive: true).map(\.path)
    #expect(found == [folder.path("a.jpg"), folder.path("sub/b.JPEG")])
  }
}
