import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// Each command's options are declared once: the help lists exactly what the parser takes, every
/// line of it fits 100 columns, and a value out of its declared range is refused before any file
/// is touched.
@Suite struct CommandOptionsTests {
  /// A value the option's kind takes.
  static func validValue(_ spec: OptionSpec) -> String? {
    switch spec.kind {
    case .flag: nil
    case .integer(let r): "\(r.lowerBound)"
    case .number(let r): "\(r.upperBound)"
    case .choice(let words): words.last!
    case .file, .folder, .text: "x"
    case .custom: "1/1"
    }
  }

  /// The options a help text lists: each entry's first line starts with `-X, --name` or
  /// `    --name`, and its text goes on below, indented.
  static func listedOptions(_ help: String) -> [(long: String, text: String)] {
    guard let start = help.range(of: "\noptions:\n") else { return [] }
    var entries: [(long: String, text: String)] = []
    for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
      if line.isEmpty { break }
      let trimmed = line.drop { $0 == " " }
      let indent = line.count - trimmed.count
      if indent <= 6, trimmed.hasPrefix("-") {
        let words = trimmed.split(separator: " ")
        let long = words.first { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) } ?? ""
        entries.append((long, words.joined(separator: " ")))
      } else if !entries.isEmpty {
        entries[entries.count - 1].text += " " + trimmed
      }
    }
    return entries
  }

  @Test func everyHelpLineFitsAndEveryListedOptionParses() throws {
    for command in PhotoEditCLI.commands {
      let r = runCLI([command.name, "--help"])
      #expect(r.status == 0, "\(command.name)")
      for line in r.out.split(separator: "\n") {
        #expect(line.count <= 100, "\(command.name) --help: \(line.count) columns: \(line)")
      }
      let listed = Self.listedOptions(r.out)
      // Exactly the options the command takes, each once.
      #expect(listed.map(\.long) == command.options.map(\.long), "\(command.name)")
      for (long, _) in listed {
        let spec = try #require(command.options.first { $0.long == long })
        let words = ["--\(long)"] + (Self.validValue(spec).map { [$0] } ?? [])
        let parsed = try ArgumentScanner.scan(words, command: command.name, options: command.options)
        #expect(parsed.flags.contains(long) || parsed.values[long] != nil, "\(command.name) --\(long)")
        if let short = spec.short {
          let viaShort = try ArgumentScanner.scan(
            ["-\(short)"] + words.dropFirst(), command: command.name, options: command.options)
          #expect(
            viaShort.flags == parsed.flags && viaShort.values == parsed.values, "\(command.name) -\(short)")
        }
      }
    }
    for text in [runCLI(["help"]).out, runCLI(["filters"]).out] {
      for line in text.split(separator: "\n") { #expect(line.count <= 100, "\(line.count) columns: \(line)") }
    }
    // The manual page's source too, but for its usage lines (one `.B` line each, escaped) and its
    // literal commands (between `.nf` and `.fi`).
    var literal = false
    for line in runCLI(["help", "--man"]).out.split(separator: "\n") {
      if line == ".nf" || line == ".fi" { literal = line == ".nf" }
      if literal || line.hasPrefix(".B photoedit ") { continue }
      #expect(line.count <= 100, "photoedit.1: \(line.count) columns: \(line)")
    }
  }

  /// revert, undo, redo and check took options that did nothing there (no detector, no encoding);
  /// they are no longer listed, and given, they are refused.
  @Test func commandsTakeOnlyTheOptionsTheyUse() {
    let takes = Dictionary(
      uniqueKeysWithValues: PhotoEditCLI.commands.map { ($0.name, Set($0.options.map(\.long))) })
    for name in ["revert", "undo", "redo", "check", "render"] {
      #expect(takes[name]?.isDisjoint(with: ["cascade", "model", "threshold"]) == true, "\(name)")
    }
    #expect(
      takes["revert"]?.isDisjoint(with: ["quality", "timings", "max-pixels", "strip-identifying"]) == true)
    #expect(takes["check"]?.isDisjoint(with: ["force", "quality"]) == true)
    #expect(
      takes["undo"]?.contains("strip-identifying") == true && takes["undo"]?.contains("quality") == false)
    for name in ["apply", "edit"] {
      #expect(takes[name]?.isSuperset(of: ["cascade", "model"]) == true, "\(name)")
    }
    let r = runCLI(["revert", "--cascade", "x.xml", "x.jpg"])
    #expect(r.status == 64)
    #expect(
      r.err.hasPrefix("photoedit: error: unknown option '--cascade' for 'revert'\nusage: photoedit revert"))
    // status reads one photo at a time unless asked: its help says so.
    #expect(runCLI(["status", "--help"]).out.contains("parallel workers (1...256, default 1)"))
  }

  /// Every whole-number and number option of every command refuses a value outside its declared
  /// range: exit 64, one line naming the option, the value and the range (then the usage line),
  /// and the photo named is not touched.
  @Test func outOfRangeValuesAreRefusedBeforeAnyFileIsTouched() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let before = try Data(contentsOf: URL(fileURLWithPath: photo))
    var checked = 0
    for command in PhotoEditCLI.commands {
      for spec in command.options {
        let bad: String
        let message: String
        switch spec.kind {
        case .integer(let r):
          bad = "\(r.upperBound + 1)"
          message =
            "--\(spec.long) must be a whole number from \(r.lowerBound) to \(r.upperBound), not '\(bad)'"
        case .number(let r):
          bad = "\(r.lowerBound / 2)"
          message = "--\(spec.long) must be a number from \(r.lowerBound) to \(r.upperBound), not '\(bad)'"
        default: continue
        }
        let r = runCLI([command.name, "--\(spec.long)", bad, photo])
        #expect(r.status == 64, "\(command.name) --\(spec.long) \(bad)")
        let lines = r.err.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines.first == "photoedit: error: \(message)", "\(r.err)")
        #expect(lines.last?.hasPrefix("usage: photoedit \(command.name)") == true)
        checked += 1
      }
    }
    #expect(checked >= 25)
    #expect(folder.names() == ["h.jpg"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before)
  }

  @Test func aMistypedCommandOrOptionGetsTheNearestOne() {
    for (arguments, message) in [
      (["aply", "-f", "sepia", "x.jpg"], "unknown command 'aply'; did you mean 'apply'?"),
      (["revret", "x.jpg"], "unknown command 'revret'; did you mean 'revert'?"),
      (
        ["apply", "--recusrive", "x"], "unknown option '--recusrive' for 'apply'; did you mean '--recursive'?"
      ),
      (
        ["detect", "--min-faces", "20", "x.jpg"],
        "unknown option '--min-faces' for 'detect'; did you mean '--min-face'?"
      ),
      (["render", "--dryrun", "x.jpg"], "unknown option '--dryrun' for 'render'; did you mean '--dry-run'?"),
      (["help", "stauts"], "no help for unknown command 'stauts'; did you mean 'status'?"),
      (
        ["detect", "--detector", "centreface", "x.jpg"],
        "--detector must be haar, haar+profile, centerface, centerface+haar or centerface+haar+profile, not 'centreface'; did you mean 'centerface'?"
      ),
      // Nothing near: no guess.
      (["frobnicate", "x.jpg"], "unknown command 'frobnicate'"),
      (["apply", "--bogus", "x.jpg"], "unknown option '--bogus' for 'apply'"),
    ] {
      let r = runCLI(arguments)
      #expect(r.status == 64, "\(arguments)")
      let lines = r.err.split(separator: "\n").map(String.init)
      #expect(lines.count == 2 && lines.first == "photoedit: error: \(message)", "\(r.err)")
      #expect(lines.last?.hasPrefix("usage: photoedit") == true)
      #expect(r.out.isEmpty)
    }
  }

  /// detect's detector options are faceblur's parameters (`minFace` is `--min-face`): the help
  /// `detect --help` gives each is what `photoedit filters --json` says of faceblur's, and detect
  /// searches with faceblur's defaults and checks.
  @Test func detectsOptionsAreFaceblursParameters() throws {
    let filters = try jsonLines(runCLI(["filters", "--json"]).out)
    let faceblur = try #require(filters.first { $0["name"] as? String == "faceblur" })
    let parameters = try #require(faceblur["parameters"] as? [[String: Any]])
    let help = runCLI(["detect", "--help"]).out
    let listed = Self.listedOptions(help)
    let flags: [String: String] = [
      "detector": "detector", "threshold": "threshold", "scaleFactor": "scale-factor",
      "minNeighbors": "min-neighbors", "minFace": "min-face", "maxFace": "max-face",
    ]
    #expect(Set(DetectCommand.settings.map(\.key)) == Set(flags.keys))
    for (name, flag) in flags {
      let parameter = try #require(parameters.first { $0["name"] as? String == name }, "\(name)")
      let entry = try #require(listed.first { $0.long == flag }, "--\(flag)").text
      for fact in [parameter["help"], parameter["range"]].compactMap({ $0 as? String }) {
        #expect(entry.contains(fact), "--\(flag): '\(fact)' not in '\(entry)'")
      }
      #expect(entry.contains("default \(parameter["default"] as? String ?? "none")"), "\(entry)")
    }
    // The same ranges refuse the same values, and the defaults are faceblur's.
    #expect(try DetectCommand.detection([:]) == FaceblurFilter.Parameters().detection)
    let far = runCLI(["detect", "--threshold", "0.99", "x.jpg"])
    #expect(far.err.hasPrefix("photoedit: error: --threshold must be a number from 0.05 to 0.95, not '0.99'"))
    let conflict = runCLI(["detect", "--detector", "haar", "--threshold", "0.5", "x.jpg"])
    #expect(conflict.status == 64)
    #expect(
      conflict.err.hasPrefix(
        "photoedit: error: --threshold changes nothing with --detector haar, which does not run the detector it is for"
      ),
      "\(conflict.err)")
    let options = try DetectCommand.detection([
      "detector": .choice("centerface+haar"), "minFace": .integer(20), "threshold": .number(0.5),
    ])
    #expect(options.detector == .centerfaceHaar && options.minFace == 20 && options.threshold == 0.5)
  }

  /// docs/contributing.md ("Adding a command") shows `check`'s source as it is.
  @Test func theDocumentShowsCheckCommandAsItIs() throws {
    let root = fixtures.deletingLastPathComponent()
    let source = try String(
      contentsOf: root.appendingPathComponent("Sources/PhotoEditCLI/Commands/CheckCommand.swift"),
      encoding: .utf8)
    let code = try #require(source.range(of: "enum CheckCommand {")).lowerBound
    let doc = try String(contentsOf: root.appendingPathComponent("docs/contributing.md"), encoding: .utf8)
    #expect(doc.contains("```swift\n" + source[code...] + "```"))
  }

  /// Completion offers what each option's kind says: its words, files or folders.
  @Test func completionFollowsTheKinds() {
    #expect(
      runCLI(["completion", "candidates", "--", "render", "--subsampling", "42"]).out == "words\n422\n420\n")
    #expect(
      runCLI(["completion", "candidates", "--", "detect", "--detector=centerface+"]).out.contains(
        "--detector=centerface+haar\n"))
    #expect(runCLI(["completion", "candidates", "--", "review", "-o", "pa"]).out == "files\n\npa\n")
    #expect(runCLI(["completion", "candidates", "--", "revert", "--ca"]).out == "words\n")
  }
}
