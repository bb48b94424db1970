import Foundation
import Testing

/// File names that are not UTF-8 (an old camera card, a Windows zip) through the real binary:
/// argv and `-r` reach the file by its own bytes, messages and JSON show the bytes as \xHH.
@Suite struct FileNameTests {
  /// Runs a shell script with the binary as $P inside `folder` (Foundation's Process can only
  /// pass UTF-8 arguments; the shell's printf makes the raw bytes).
  static func shell(_ script: String, in folder: TemporaryFolder) throws -> (
    status: Int32, out: String, err: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "P=\"$1\"; cd \"$2\" || exit 99; " + script, "sh", photoeditBinary.path, folder.url.path,
    ]
    let (outPipe, errPipe) = (Pipe(), Pipe())
    process.standardOutput = outPipe
    process.standardError = errPipe
    try process.run()
    let out = outPipe.fileHandleForReading.readDataToEndOfFile()
    let err = errPipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)
    )
  }

  /// `find -print0 | photoedit revert -` without -0: one line holding NULs. Cut at the first NUL
  /// it would name a.jpg, and the lock file's name a.jpg too, whose release removed the photo.
  @Test func namesHoldingNULAreRefusedAndTouchNothing() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let a = try folder.copy("faces/hopper.jpg", as: "a.jpg")
    let b = try folder.copy("faces/hopper.jpg", as: "b.jpg")
    let before = FileManager.default.contents(atPath: a)
    for command in ["revert", "undo", "render", "apply"] {
      let extra = command == "apply" ? ["--filter", "sepia"] : []
      let result = runCLI([command] + extra + ["-"], input: "\(a)\0\(b)\0")
      #expect(result.status == 66, "\(command): \(result.err)")
      #expect(result.err.contains("give -0 for NUL-separated names"), "\(command): \(result.err)")
      #expect(FileManager.default.contents(atPath: a) == before, "\(command) changed a.jpg")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["a.jpg", "b.jpg"])
    }
  }

  /// "café.jpg" in NFC and in NFD are two files on Linux: --output-dir writes both, and neither
  /// is taken for the other's output.
  @Test func namesDifferingOnlyInNormalisationAreTwoFiles() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    try FileManager.default.createDirectory(atPath: folder.path("one"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder.path("two"), withIntermediateDirectories: true)
    let nfc = "caf\u{E9}.jpg"
    let nfd = "cafe\u{301}.jpg"
    let a = try folder.copy("faces/hopper.jpg", as: "one/" + nfc)
    let b = try folder.copy("jpeg/testorig.jpg", as: "two/" + nfd)
    let result = runCLI(["apply", "--filter", "sepia", "--output-dir", folder.path("out"), a, b])
    #expect(result.status == 0, "\(result.err)")
    let written = try FileManager.default.contentsOfDirectory(atPath: folder.path("out"))
      .filter { $0.hasSuffix(".jpg") }.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    #expect(written == [Array(nfd.utf8), Array(nfc.utf8)].sorted { $0.lexicographicallyPrecedes($1) })
  }

  @Test func latin1NamesAreEditedRevertedAndShownAsHex() throws {
    let folder = try TemporaryFolder()
    defer {
      _ = try? Self.shell("rm -rf ./*", in: folder)
      folder.cleanUp()
    }
    try folder.copy("jpeg/testorig.jpg", as: "ok.jpg")
    try folder.copy("jpeg/testorig.jpg", as: "pristine.bin")
    let name = "n=$(printf 'caf\\351.jpg'); "
    _ = try Self.shell(name + "cp ok.jpg \"$n\"", in: folder)

    let applied = try Self.shell("$P apply --filter sepia -r --json .", in: folder)
    #expect(applied.status == 0, "\(applied.err)")
    let lines = applied.out.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(applied)")
    #expect(lines.contains { $0.hasPrefix(#"{"file": "caf\\xE9.jpg", "status": "ok""#) }, "\(lines)")
    for line in lines {
      #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
    }

    let files = try Self.shell(
      name + "ls \"$n\" \"$n.photoedit.json\" \"$n.original\" && cmp pristine.bin \"$n.original\"", in: folder
    )
    #expect(files.status == 0, "\(files.err)")

    let reverted = try Self.shell(
      name + "$P revert \"$n\" && cmp pristine.bin \"$n\" && ! ls \"$n.photoedit.json\" 2>/dev/null",
      in: folder)
    #expect(reverted.status == 0, "\(reverted.err)")
    #expect(reverted.out.hasPrefix("caf\\xE9.jpg: reverted to the original"), "\(reverted.out)")

    let missing = try Self.shell("$P show \"$(printf 'gone\\351.jpg')\"", in: folder)
    #expect(missing.status == 66)
    #expect(missing.err == "photoedit: gone\\xE9.jpg: no such file\n")
  }

  /// A name holding a terminal's escape sequence, or a carriage return, is shown as bytes, never
  /// sent to the terminal: on standard output, on standard error and in `--json`.
  @Test func controlCharactersInNamesAreShownAsHex() throws {
    let folder = try TemporaryFolder()
    defer {
      _ = try? Self.shell("rm -rf ./*", in: folder)
      folder.cleanUp()
    }
    try folder.copy("jpeg/testorig.jpg", as: "ok.jpg")
    let name = "n=$(printf 'x\\033[2Jy\\rz.jpg'); "
    _ = try Self.shell(name + "cp ok.jpg \"$n\"", in: folder)
    let applied = try Self.shell(name + "$P apply --filter sepia \"$n\"", in: folder)
    #expect(applied.status == 0, "\(applied.err)")
    #expect(applied.out.hasPrefix("x\\x1B[2Jy\\rz.jpg: applied sepia"), "\(applied.out)")
    let json = try Self.shell(name + "$P show --json \"$n\"", in: folder)
    #expect(json.out.hasPrefix(#"{"file": "x\u001b[2Jy\rz.jpg""#), "\(json.out)")
    let missing = try Self.shell("$P show \"$(printf 'gone\\033]0;title\\007.jpg')\"", in: folder)
    #expect(missing.status == 66)
    #expect(missing.err == "photoedit: gone\\x1B]0;title\\x07.jpg: no such file\n")
    for text in [applied.out, applied.err, json.out, json.err, missing.err] {
      #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D || $0.value == 0x07 })
    }
  }
}
