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

/// The README stays a short guide, and every relative link of the README and docs/ reaches a
/// file, and a heading of it when it names one.
@Suite struct DocumentationTests {
  static let root = fixtures.deletingLastPathComponent()

  @Test func theReadmeIsAtMost300Lines() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count <= 301)
  }

  /// GitHub's anchor for a heading: lower case, punctuation dropped, blanks as hyphens.
  static func anchor(_ heading: String) -> String {
    String(
      heading.lowercased().compactMap { c -> Character? in
        c == " " ? "-" : (c.isLetter || c.isNumber || c == "-" || c == "_") ? c : nil
      })
  }

  static func anchors(_ text: String) -> Set<String> {
    Set(text.split(separator: "\n").filter { $0.hasPrefix("#") }.map {
      anchor(String($0.drop(while: { $0 == "#" }).dropFirst()))
    })
  }

  @Test func everyRelativeLinkReachesItsFileAndHeading() throws {
    let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
    var broken: [String] = []
    var checked = 0
    for file in ["README.md"] + docs {
      let url = Self.root.appendingPathComponent(file)
      var text = try String(contentsOf: url, encoding: .utf8)
      // Code blocks hold no links.
      text = text.replacingOccurrences(of: "(?s)```.*?```", with: "", options: .regularExpression)
      let links = try Regex(#"\]\(([^)\s]+)\)"#)
      for match in text.matches(of: links) {
        let link = String(text[match.range]).dropFirst(2).dropLast()
        if link.hasPrefix("http") || link.hasPrefix("mailto:") { continue }
        checked += 1
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let target = parts[0].isEmpty ? url : url.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardized
        guard FileManager.default.fileExists(atPath: target.path) else { broken.append("\(file): \(link)"); continue }
        if parts.count == 2, target.pathExtension == "md" {
          let targetText = try String(contentsOf: target, encoding: .utf8)
          if !Self.anchors(targetText).contains(String(parts[1])) { broken.append("\(file): \(link)") }
        }
      }
    }
    #expect(broken == [], "\(broken)")
    #expect(checked > 50, "only \(checked) links found: is the pattern right?")
  }
}
