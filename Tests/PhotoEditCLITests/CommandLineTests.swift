import Foundation
import PhotoCore
import Testing

import Recipe

@testable import PhotoEditCLI

@Suite struct ArgumentScannerTests {
  static let options = [
    OptionSpec(long: "output", short: "o", valueName: "FILE", help: ""),
    OptionSpec(long: "filter", short: "f", valueName: "F", repeatable: true, help: ""),
    OptionSpec(long: "recursive", short: "r", help: ""),
    OptionSpec(long: "null", short: "0", help: ""),
    OptionSpec(long: "jobs", short: "j", valueName: "N", help: ""),
  ]

  @Test func optionsBeforeAndAfterFiles() throws {
    let p = try ArgumentScanner.scan(
      ["a.jpg", "--filter", "sepia", "b.jpg", "-f", "vignette", "--output=x.png"], command: "apply",
      options: Self.options)
    #expect(p.operands == ["a.jpg", "b.jpg"])
    #expect(p.allValues("filter") == ["sepia", "vignette"])
    #expect(p.value("output") == "x.png")
  }

  @Test func doubleDashEndsOptions() throws {
    let p = try ArgumentScanner.scan(
      ["-r", "--", "--json", "-x.jpg"], command: "show", options: Self.options)
    #expect(p.flag("recursive"))
    #expect(p.operands == ["--json", "-x.jpg"])
  }

  @Test func bundledShortFlagsAndAttachedValues() throws {
    let p = try ArgumentScanner.scan(
      ["-r0", "-j4", "-", "-oout.jpg"], command: "apply", options: Self.options)
    #expect(p.flag("recursive") && p.flag("null"))
    #expect(p.value("jobs") == "4")
    #expect(p.value("output") == "out.jpg")
    #expect(p.operands == ["-"])
  }

  @Test func unknownOptionAndMissingValueAreUsageErrors() {
    #expect(throws: UsageError("unknown option '--bogus' for 'apply'", command: "apply")) {
      try ArgumentScanner.scan(["--bogus"], command: "apply", options: Self.options)
    }
    #expect(throws: UsageError("-o needs a value (FILE)", command: "apply")) {
      try ArgumentScanner.scan(["x.jpg", "-o"], command: "apply", options: Self.options)
    }
    #expect(throws: UsageError("--recursive takes no value", command: "apply")) {
      try ArgumentScanner.scan(["--recursive=yes"], command: "apply", options: Self.options)
    }
  }

  @Test func integerRangesAreChecked() throws {
    let p = try ArgumentScanner.scan(["-j", "0"], command: "apply", options: Self.options)
    #expect(throws: UsageError("--jobs must be a whole number from 1 to 8, not '0'", command: "apply")) {
      try p.integer("jobs", in: 1...8)
    }
  }
}

@Suite struct JSONLineTests {
  @Test func leadingKeysComeFirstThenSorted() {
    let line = JSONLine.encode([
      "zeta": .number(1), "status": .string("ok"), "file": .string("a \"b\".jpg"), "alpha": .bool(true),
      "seconds": .number(0.25),
    ])
    #expect(line == #"{"file": "a \"b\".jpg", "status": "ok", "seconds": 0.25, "alpha": true, "zeta": 1}"#)
  }

  @Test func controlCharactersAreEscapedAndOutputParses() throws {
    let line = JSONLine.encode([
      "file": .string("tab\there\nnew\u{1}"), "faces": .array([.object(["x": .number(3)])]),
    ])
    let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(parsed?["file"] as? String == "tab\there\nnew\u{1}")
    #expect(!line.contains("\n"))
  }
}

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
    (["render", "-o", "a.gif", "x.jpg"], "the output 'a.gif' must end in .jpg, .jpeg or .png"),
    (["render", "--subsampling", "411", "x.jpg"], "--subsampling must be 444, 422 or 420, not '411'"),
    (["apply", "x.jpg"], "give at least one --filter or --recipe"),
    (
      ["detect", "--scale-factor", "1", "x.jpg"], "--scale-factor must be a number from 1.01 to 4.0, not '1'"
    ),
    (
      ["detect", "--min-face", "80", "--max-face", "40", "x.jpg"],
      "--max-face (40) must be at least --min-face (80)"
    ),
    (["show"], "no files given"),
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
