import Codecs
import Foundation
import PhotoCore
import Testing

@testable import PhotoEditCLI

/// The review page in a real browser (headless Chromium through Selenium,
/// Tests/Browser/review_browser.py): the page counted as a person's browser builds it, a face
/// clicked, a box drawn, the corrections exported by the page and applied by the CLI, checked in
/// the sidecars and the renders' pixels. `make test` installs chromium, chromium-driver and
/// python3-selenium; without them this test fails and says so.
@Suite struct ReviewBrowserTests {
  static let repository = fixtures.deletingLastPathComponent()
  static let script = repository.appendingPathComponent("Tests/Browser/review_browser.py").path
  /// Where the run's screenshot goes (the README's docs/review.png is a copy of one).
  static let screenshot = repository.appendingPathComponent(".build/test-output/review.png")

  struct Run: Decodable {
    struct State: Decodable {
      struct Photo: Decodable {
        var faces: [String: String]
        var boxes: Int
      }
      var photos: [String: Photo]
      var photoElements: Int
      var faceElements: Int
      var commands: String
      var notice: String
    }
    var openSeconds: Double
    var before: State
    var after: State
    var corrections: String?
    var console: [String]
  }

  func browse(_ arguments: [String]) throws -> Run {
    for tool in ["/usr/bin/python3", "/usr/bin/chromium", "/usr/bin/chromedriver"] {
      try #require(
        FileManager.default.isExecutableFile(atPath: tool),
        "\(tool) is missing: apt-get install chromium chromium-driver python3-selenium (make test does)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [Self.script] + arguments
    let out = Pipe()
    let err = Pipe()
    (process.standardOutput, process.standardError) = (out, err)
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(
      process.terminationStatus == 0, "review_browser.py failed: \(String(decoding: errors, as: UTF8.self))")
    return try JSONDecoder().decode(Run.self, from: output)
  }

  @Test func aPersonChecksAndCorrectsThePageInChromium() throws {
    let f = try ReviewFixture()
    let r = f.review()
    try #require(r.status == 0, "\(r.err)")
    let downloads = f.folder.path("downloads")
    try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Face 0 of the bus is spared; a box is drawn over the left man's tie in the group photo.
    let tie = [0.08, 0.38, 0.2, 0.7]
    let run = try browse([
      f.page, "--downloads", downloads, "--screenshot", Self.screenshot.path, "--size", "1280,860",
      "--click", "ultralytics-bus.jpg:0", "--draw",
      "opencv-group1.jpg:" + tie.map { "\($0)" }.joined(separator: ","),
      "--export", "--screenshot-at", "opencv-group1.jpg",
    ])
    // What the browser built: one element per photo, one per face, in their states.
    let bus = try f.faceblur("ultralytics-bus.jpg")
    let group = try f.faceblur("opencv-group1.jpg")
    #expect(run.before.photoElements == 3)
    #expect(run.before.faceElements == bus.faces.count + group.faces.count)
    #expect(run.before.photos["astronaut.png"]?.faces.isEmpty == true)
    #expect(run.before.photos["opencv-group1.jpg"]?.boxes == 2 * group.faces.count)
    #expect(run.before.photos.values.allSatisfy { $0.faces.values.allSatisfy { $0 == "hidden" } })
    #expect(run.before.notice.contains("Unredacted previews"))
    #expect(run.after.photos["ultralytics-bus.jpg"]?.faces["0"] == "excluded")
    #expect(run.after.photos["ultralytics-bus.jpg"]?.faces["1"] == "hidden")
    #expect(run.after.photos["opencv-group1.jpg"]?.faces["\(group.faces.count)"] == "added")
    #expect(run.after.faceElements == run.before.faceElements + 1)
    #expect(run.console.isEmpty, "the browser reported: \(run.console)")
    let exported = try #require(run.corrections)

    // Applied by the CLI, through the store: sidecars and pixels.
    let originalBus = try decodeFile(f.path("ultralytics-bus.jpg.original"))
    let originalGroup = try decodeFile(f.path("opencv-group1.jpg.original"))
    let applied = runCLI(["apply", "--corrections", exported, f.photos])
    #expect(applied.status == 0, "\(applied.err)")
    #expect(try f.faceblur("ultralytics-bus.jpg").exclude == [0])
    let drawn = try #require(try f.faceblur("opencv-group1.jpg").add.first)
    let asked = [tie[0], tie[1], tie[2] - tie[0], tie[3] - tie[1]]
    for (a, b) in zip(drawn, asked) { #expect(abs(a - b) < 0.01, "drawn \(drawn), asked \(asked)") }
    #expect(
      meanDifference(try decodeFile(f.path("ultralytics-bus.jpg")), originalBus, inside: bus.faces[0]) < 3)
    #expect(
      meanDifference(try decodeFile(f.path("ultralytics-bus.jpg")), originalBus, inside: bus.faces[1]) > 8)
    #expect(meanDifference(try decodeFile(f.path("opencv-group1.jpg")), originalGroup, inside: drawn) > 8)

    // The page's command lines do the same to a second copy of the photos.
    let copy = try ReviewFixture()
    let lines = run.after.commands.split(separator: "\n")
    #expect(lines.count == 2)
    for line in lines {
      var words = line.split(separator: " ").map(String.init)
      #expect(words.removeFirst() == "photoedit")
      words = words.map { $0.replacingOccurrences(of: f.photos, with: copy.photos) }
      let r = runCLI(words)
      #expect(r.status == 0, "\(line): \(r.err)")
    }
    #expect(try copy.faceblur("ultralytics-bus.jpg").exclude == [0])
    for (a, b) in zip(try copy.faceblur("opencv-group1.jpg").add[0], drawn) { #expect(abs(a - b) < 1e-6) }

    // The screenshot a person would see.
    let shot = try Data(contentsOf: Self.screenshot)
    #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }
}
