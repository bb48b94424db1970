import Foundation
import PhotoCore
import Recipe
import Testing

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
