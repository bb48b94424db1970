import Foundation
import Testing

@testable import PhotoEditCLI

/// The README's exit-status table, row by row: each example the table gives ends with its
/// status, and the table lists exactly the statuses `photoedit help` documents.
@Suite struct ExitStatusTableTests {
  static let readme = fixtures.deletingLastPathComponent().appendingPathComponent("README.md")

  @Test func theTableListsEveryDocumentedStatus() throws {
    let text = try String(contentsOf: Self.readme, encoding: .utf8)
    let start = try #require(text.range(of: "| exit status | meaning | for example |"))
    let rows = text[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| ") }
    let statuses = rows.compactMap { Int32($0.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? "") }
    #expect(statuses == ExitStatus.documented.map(\.0))
  }

  @Test func eachRowsExamplesEndWithItsStatus() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let plain = try folder.copy("faces/hopper.jpg", as: "plain.jpg")
    folder.write("existing.jpg", [1, 2, 3])
    folder.write("corrupt.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array(repeating: 0x41, count: 40))
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    let rows: [(Int32, [[String]])] = [
      (0, [["undo", plain], ["redo", photo], ["render", plain], ["revert", plain], ["undo", "-r", folder.url.path]]),
      (1, [["undo", photo, folder.path("none.jpg")]]),
      (64, [
        ["apply", "-f", "nosuch", photo], ["edit", photo, "--step", "9", "--remove"],
        ["apply", "-f", "sepia", "-o", plain, plain], ["undo", photo + ".original"],
        ["undo", photo + ".photoedit.json"],
      ]),
      (65, [["apply", "-f", "sepia", folder.path("corrupt.jpg")]]),
      (66, [["apply", "-f", "sepia", folder.path("none.jpg")], ["render", folder.path("none.jpg")]]),
      (73, [["apply", "-f", "sepia", "-o", folder.path("existing.jpg"), plain]]),
    ]
    for (status, examples) in rows {
      for arguments in examples {
        let r = runCLI(arguments)
        #expect(r.status == status, "\(arguments): \(r.err)")
      }
    }
    // Nothing to do says so on the photo's line, and in JSON as current.
    let json = runCLI(["render", "--json", plain])
    #expect(json.out.contains("\"status\": \"ok\"") && json.out.contains("\"current\": true"), "\(json.out)")
  }
}

/// Defaults a demanding user expects of the command line.
@Suite struct CommandLineDefaultsTests {
  @Test func aSingleValuedOptionGivenTwiceIsAUsageError() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    for arguments in [
      ["apply", "-f", "sepia", "--quality", "80", "--quality", "90", photo],
      ["apply", "-f", "sepia", "-o", folder.path("a.jpg"), "--output", folder.path("b.jpg"), photo],
    ] {
      let r = runCLI(arguments)
      #expect(r.status == 64 && r.err.contains("is given twice"), "\(arguments): \(r.err)")
    }
    #expect(folder.names() == ["h.jpg"])
    // Repeatable options stay repeatable.
    #expect(runCLI(["apply", "-f", "sepia", "-f", "vignette", photo]).status == 0)
  }

  @Test func dashOMakesAMissingFolderAndTakesItBackOnFailure() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let made = runCLI(["apply", "-f", "sepia", "-o", folder.path("out/deep/x.jpg"), photo])
    #expect(made.status == 0, "\(made.err)")
    #expect(folder.exists("out/deep/x.jpg") && folder.exists("out/deep/x.jpg.photoedit.json"))
    folder.write("bad.jpg", [0xFF, 0xD8, 0xFF])
    let failed = runCLI(["apply", "-f", "sepia", "-o", folder.path("other/x.jpg"), folder.path("bad.jpg")])
    #expect(failed.status == 65)
    #expect(!folder.exists("other"))
  }
}
