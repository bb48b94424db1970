import Foundation
import Testing

@testable import PhotoEditCLI

/// What `make install` puts beside the binary (the manual page and shell completions) and what
/// the Makefile installs for whom.
@Suite struct InstallTests {
  static let root = fixtures.deletingLastPathComponent().path

  /// The environment a child shell gets: the built photoedit first on PATH.
  static var environment: [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = photoeditBinary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["MANPAGER"] = "cat"
    env["MANWIDTH"] = "100"
    return env
  }

  @Test func bashCompletesCommandsOptionsFiltersAndTheirParameters() throws {
    let folder = try TemporaryFolder()
    folder.write("photo one.jpg", [0xFF])
    let script = runCLI(["completion", "bash"])
    #expect(script.status == 0)
    folder.write("completion.bash", Array(script.out.utf8))
    // What bash would offer at each line's end (the cursor), as a completion-aware shell calls it.
    let lines = [
      "photoedit ap", "photoedit apply --filter fa", "photoedit apply -f faceblur:sty",
      "photoedit apply -f faceblur:style=bl", "photoedit apply --filter=faceblur:scale=2,minB",
      "photoedit apply --filter=faceblur:style=pi",
      "photoedit apply --dry", "photoedit render --subsampling 4", "photoedit apply photo",
      "photoedit help re",
    ]
    let probe = """
      source ./completion.bash
      for line in \(lines.map { "'\($0)'" }.joined(separator: " ")); do
        COMP_LINE=$line; COMP_POINT=${#line}; COMPREPLY=(); _photoedit
        printf '%s|' "${COMPREPLY[@]}"; echo
      done
      """
    let r = try runProcess(["bash", "--norc", "-c", probe], in: folder.url.path, environment: Self.environment)
    #expect(r.status == 0, "\(r.err)")
    #expect(
      r.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast() == [
        // bash replaces the text after the word's last '=' or ':' (COMP_WORDBREAKS).
        "apply|", "faceblur|", "style=|", "blur|", "2,minBlock=|", "pixelate|", "--dry-run|",
        "444|422|420|", "photo one.jpg|", "redo|revert|render|review|",
      ], "\(r.out)")
  }

  @Test func candidatesComeFromTheDeclarations() {
    #expect(runCLI(["completion", "candidates", "--", "apply", "--filter", "sepia:"]).out == "words\nsepia:intensity=\n")
    // A parameter already given is not offered again; an unknown filter offers nothing.
    let given = Completion.filterWords("vignette:strength=0.5,")
    #expect(!given.contains("vignette:strength=0.5,strength=") && !given.isEmpty, "\(given)")
    #expect(Completion.filterWords("nosuch:") == [])
    #expect(runCLI(["completion", "candidates", "--", "apply", "--output-dir", "pu"]).out == "dirs\n\npu\n")
    let unknown = runCLI(["completion", "tcsh"])
    #expect(unknown.status == 64 && unknown.err.contains("give one shell: bash, zsh, fish, not 'tcsh'"), "\(unknown.err)")
  }

  @Test func theManualPageRendersWithEveryCommandFilterAndStatus() throws {
    let folder = try TemporaryFolder()
    let page = runCLI(["help", "--man"])
    #expect(page.status == 0)
    folder.write("photoedit.1", Array(page.out.utf8))
    let lint = try runProcess(
      ["groff", "-man", "-ww", "-z", "photoedit.1"], in: folder.url.path, environment: Self.environment)
    #expect(lint.status == 0 && lint.err.isEmpty, "groff: \(lint.err)")
    let shown = try runProcess(["man", "-l", "photoedit.1"], in: folder.url.path, environment: Self.environment)
    #expect(shown.status == 0, "\(shown.err)")
    // Words as the page shows them, whatever the line filling did to the spaces between them.
    let text = shown.out.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(text.contains("PHOTOEDIT(1)"))
    for command in PhotoEditCLI.commands { #expect(text.contains("photoedit \(command.name)"), "\(command.name)") }
    for name in ["faceblur", "sepia", "vignette", "EXIT STATUS", "--strip-identifying", "centerface.onnx"] {
      #expect(text.contains(name), "\(name)")
    }
  }

  @Test func buildInstallsNoTestOnlyPackageAndInstallPlacesEveryFile() throws {
    let makefile = try String(contentsOfFile: Self.root + "/Makefile", encoding: .utf8)
    let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("TEST_PACKAGES :=") })
    let testOnly = line.split(separator: " ").dropFirst(2).map(String.init)
    #expect(testOnly.contains("chromium") && testOnly.contains("openssh-server"))
    for target in ["build", "install", "demo"] {
      let dry = try runProcess(["make", "-n", target], in: Self.root, environment: Self.environment)
      #expect(dry.status == 0, "\(dry.err)")
      let words = Set(dry.out.split(whereSeparator: { " ;\n".contains($0) }).map(String.init))
      #expect(words.isDisjoint(with: testOnly), "make \(target) installs \(words.intersection(testOnly))")
    }
    let install = try runProcess(
      ["make", "-n", "install", "DESTDIR=/stage", "PREFIX=/usr"], in: Self.root, environment: Self.environment)
    for path in [
      "/stage/usr/bin/photoedit", "/stage/usr/share/photoedit/centerface.onnx",
      "/stage/usr/share/man/man1/photoedit.1", "/stage/usr/share/bash-completion/completions/photoedit",
      "/stage/usr/share/zsh/site-functions/_photoedit", "/stage/usr/share/fish/vendor_completions.d/photoedit.fish",
    ] {
      #expect(install.out.contains(path), "\(path)")
    }
  }
}
