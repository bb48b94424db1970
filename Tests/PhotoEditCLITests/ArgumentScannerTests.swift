import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

@Suite struct ArgumentScannerTests {
  static let output = Option.file("output", short: "o", help: "")
  static let filter = Option.text("filter", short: "f", valueName: "F", repeatable: true, help: "")
  static let recursive = Flag("recursive", short: "r", help: "")
  static let null = Flag("null", short: "0", help: "")
  static let jobs = Option.integer("jobs", short: "j", 1...8, help: "")
  static let depth = Option.integer("depth", 1...9, default: 3, help: "how deep")
  static let options: [OptionSpec] =
    ([output, filter, recursive, null, jobs, depth] as [any OptionDeclaration])
    .map(\.spec)

  @Test func optionsBeforeAndAfterFiles() throws {
    let p = try ArgumentScanner.scan(
      ["a.jpg", "--filter", "sepia", "b.jpg", "-f", "vignette", "--output=x.png"], command: "apply",
      options: Self.options)
    #expect(p.operands == ["a.jpg", "b.jpg"])
    #expect(p.all(Self.filter) == ["sepia", "vignette"])
    #expect(p[Self.output] == "x.png")
  }

  @Test func doubleDashEndsOptions() throws {
    let p = try ArgumentScanner.scan(
      ["-r", "--", "--json", "-x.jpg"], command: "show", options: Self.options)
    #expect(p[Self.recursive])
    #expect(p.operands == ["--json", "-x.jpg"])
  }

  @Test func bundledShortFlagsAndAttachedValues() throws {
    let p = try ArgumentScanner.scan(
      ["-r0", "-j4", "-", "-oout.jpg"], command: "apply", options: Self.options)
    #expect(p[Self.recursive] && p[Self.null])
    #expect(p[Self.jobs] == 4)
    #expect(p[Self.output] == "out.jpg")
    #expect(p.operands == ["-"])
  }

  /// An option not given reads as its declared default, and `has` tells the two apart.
  @Test func defaultsComeFromTheDeclaration() throws {
    let none = try ArgumentScanner.scan([], command: "apply", options: Self.options)
    #expect(none[Self.depth] == 3 && !none.has(Self.depth))
    #expect(none[Self.jobs] == nil && !none[Self.recursive])
    let given = try ArgumentScanner.scan(["--depth", "7"], command: "apply", options: Self.options)
    #expect(given[Self.depth] == 7 && given.has(Self.depth))
    #expect(Self.depth.spec.description == "how deep (1...9, default 3)")
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

  /// Values are checked against their declared range as the line is scanned, in the order given.
  @Test func integerRangesAreChecked() throws {
    #expect(throws: UsageError("--jobs must be a whole number from 1 to 8, not '0'", command: "apply")) {
      try ArgumentScanner.scan(["-j", "0"], command: "apply", options: Self.options)
    }
    #expect(throws: UsageError("--depth must be a whole number from 1 to 9, not 'x'", command: "apply")) {
      try ArgumentScanner.scan(["--depth=x", "-j", "0"], command: "apply", options: Self.options)
    }
    // --help shows the help whatever the values say.
    let help = try ArgumentScanner.scan(
      ["-j", "0", "--help"], command: "apply", options: Self.options + [CommonOptions.help.spec])
    #expect(help[CommonOptions.help])
  }

  @Test func aMistypedOptionGetsTheNearestOne() {
    #expect(
      throws: UsageError(
        "unknown option '--recusrive' for 'apply'; did you mean '--recursive'?", command: "apply")
    ) {
      try ArgumentScanner.scan(["--recusrive"], command: "apply", options: Self.options)
    }
    #expect(
      throws: UsageError("unknown option '--outptu' for 'apply'; did you mean '--output'?", command: "apply")
    ) {
      try ArgumentScanner.scan(["--outptu=a.jpg"], command: "apply", options: Self.options)
    }
  }
}

@Suite struct SuggestionTests {
  @Test func editDistanceCountsEachSlipOnce() {
    #expect(Suggestion.distance("apply", "apply") == 0)
    #expect(Suggestion.distance("aply", "apply") == 1)
    #expect(Suggestion.distance("recusrive", "recursive") == 1)  // two letters swapped
    #expect(Suggestion.distance("revret", "revert") == 1)
    #expect(Suggestion.distance("kitten", "sitting") == 3)
    #expect(Suggestion.distance("", "abc") == 3)
  }

  @Test func onlyNearWordsAreSuggested() {
    let commands = PhotoEditCLI.commands.map(\.name)
    #expect(Suggestion.closest(to: "aply", among: commands) == "apply")
    #expect(Suggestion.closest(to: "rendr", among: commands) == "render")
    #expect(Suggestion.closest(to: "stauts", among: commands) == "status")
    #expect(Suggestion.closest(to: "frobnicate", among: commands) == nil)
    #expect(Suggestion.closest(to: "x", among: commands) == nil)
  }
}
