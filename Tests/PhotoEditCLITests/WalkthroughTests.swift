import Foundation
import Testing

/// The README's walkthrough, run as written: each `$ ` line in a shell (in a fresh folder where
/// `Fixtures` is the repository's), its standard output and error compared with the lines the
/// README prints under it, checksums and timings masked. So the README cannot drift from what
/// photoedit prints.
@Suite struct WalkthroughTests {
  static let readme = fixtures.deletingLastPathComponent().appendingPathComponent("README.md")

  /// Each command with the lines the README shows it printing.
  static func steps() throws -> [(command: String, output: [String])] {
    let text = try String(contentsOf: readme, encoding: .utf8)
    let marker = try #require(text.range(of: "<!-- walkthrough -->\n```console\n"), "no walkthrough in the README")
    let block = try #require(text[marker.upperBound...].range(of: "\n```")).lowerBound
    var steps: [(command: String, output: [String])] = []
    for line in text[marker.upperBound..<block].split(separator: "\n") {
      if line.hasPrefix("$ ") {
        steps.append((String(line.dropFirst(2)), []))
      } else if !steps.isEmpty {
        steps[steps.count - 1].output.append(String(line))
      }
    }
    return steps
  }

  /// A line with what differs between runs or machines masked: hexadecimal checksums of 12 or
  /// more digits, and JSON's seconds.
  static func masked(_ line: String) -> String {
    line.replacingOccurrences(of: #"[0-9a-f]{12,}"#, with: "<sha>", options: .regularExpression)
      .replacingOccurrences(of: #""seconds": [0-9.e-]+"#, with: #""seconds": <t>"#, options: .regularExpression)
  }

  @Test func theWalkthroughPrintsWhatTheReadmeSays() throws {
    let steps = try Self.steps()
    #expect(steps.count >= 10)
    let folder = try TemporaryFolder()
    try FileManager.default.createSymbolicLink(atPath: folder.path("Fixtures"), withDestinationPath: fixtures.path)
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = photoeditBinary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["LC_ALL"] = "C"
    for step in steps {
      let r = try runProcess(["bash", "-c", "{ \(step.command)\n} 2>&1"], in: folder.url.path, environment: env)
      let printed = r.out.split(separator: "\n").map { Self.masked(String($0)) }
      #expect(printed == step.output.map(Self.masked), "$ \(step.command)\n\(r.out)")
      #expect(r.status == 0, "$ \(step.command): \(r.status)")
    }
  }
}
