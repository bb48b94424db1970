import Foundation
import Synchronization
import Testing

@testable import PhotoEditCLI

/// The small things users hit, each as they hit it.
@Suite struct UserFindingsTests {
  @Test func progressBarIsClearedBeforeAResultLine() throws {
    let folder = try TemporaryFolder()
    let photos = try (0..<3).map { try folder.copy("faces/hopper.jpg", as: "p\($0).jpg") }
    let log = Mutex<[String]>([])
    let console = Console(
      out: { s in log.withLock { $0.append("out:" + s) } },
      err: { s in log.withLock { $0.append("err:" + s) } },
      errorIsTerminal: true)
    #expect(PhotoEditCLI.run(arguments: ["status", "-j", "1"] + photos, console: console) == 0)
    let events = log.withLock { $0 }
    var barShown = false
    for event in events {
      if event.hasPrefix("err:\r\u{1B}[K[") { barShown = true }
      if event == "err:\r\u{1B}[K" { barShown = false }
      if event.hasPrefix("out:") { #expect(!barShown, "a result line printed over the bar: \(events)") }
    }
  }

  @Test func recursiveOverAMissingOrEmptyFolder() throws {
    let folder = try TemporaryFolder()
    let missing = runCLI(["apply", "-f", "sepia", "-r", folder.path("nowhere")])
    #expect(missing.status == 66)
    #expect(missing.err == "photoedit: \(folder.path("nowhere")): no such file\n")
    try FileManager.default.createDirectory(atPath: folder.path("empty"), withIntermediateDirectories: false)
    let empty = runCLI(["apply", "-f", "sepia", "-r", folder.path("empty")])
    #expect(empty.status == 0)
    #expect(empty.err == "photoedit: nothing to do: no photos found\n")
  }

  @Test func recipeThatIsNotJSONSaysWhatItIs() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let jpeg = runCLI(["apply", "--recipe", fixturePath("faces/hopper.jpg"), photo])
    #expect(jpeg.status == 65)
    #expect(jpeg.err.contains("this is a JPEG image, not a JSON recipe"))
    folder.write("r.webp", try FormatTools.webp(fromFixture: "faces/hopper.jpg"))
    let webp = runCLI(["apply", "--recipe", folder.path("r.webp"), photo])
    #expect(webp.status == 65)
    #expect(webp.err.contains("this is a WebP image, not a JSON recipe"), "\(webp.err)")
    let xml = runCLI([
      "apply", "--recipe", "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml", photo,
    ])
    #expect(xml.status == 65)
    #expect(xml.err.contains("an XML file"))
    #expect(folder.names() == ["h.jpg", "r.webp"])
  }

  /// A recipe with no steps names itself and says so (65), with or without --filter beside it,
  /// before any photo is touched: a sidecar whose changes were all undone, or a recipe file.
  @Test func recipeWithNoStepsSaysSo() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let other = try folder.copy("faces/hopper.jpg", as: "o.jpg")
    #expect(runCLI(["apply", "-f", "sepia", other]).status == 0)
    #expect(runCLI(["undo", other]).status == 0)
    let undone = other + ".photoedit.json"
    folder.write(
      "empty.json",
      Array(#"{"formatIdentifier": "org.photoedit.adjustments", "formatVersion": 1, "operations": []}"#.utf8))
    for recipe in [undone, folder.path("empty.json")] {
      for extra in [[], ["-f", "sepia"]] {
        let r = runCLI(["apply", "--recipe", recipe, photo] + extra)
        #expect(r.status == 65, "\(r.err)")
        #expect(r.err == "photoedit: \(recipe): the recipe has no steps, so there is nothing to apply\n")
      }
    }
    #expect(folder.names() == ["empty.json", "h.jpg", "o.jpg", "o.jpg.original", "o.jpg.photoedit.json"])
  }

  @Test func checkRepairNamesTheFileOnEveryLine() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    // What a crash before the journal leaves: a temporary file.
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.path("h.jpg.photoedit-tmp-0123456789abcdef")))
    let run = runCLI(["check", "--repair", photo])
    #expect(run.status == 0, "\(run.err)")
    let lines = run.out.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.allSatisfy { $0.hasPrefix("\(photo): ") }, "\(lines)")
  }

  @Test func controlCharactersInNamesAreShownEscaped() throws {
    let folder = try TemporaryFolder()
    let name = "evil\nphotoedit: x.jpg: applied sepia\u{1B}[2J.jpg"
    let photo = try folder.copy("faces/hopper.jpg", as: name)
    let run = runCLI(["status", photo])
    #expect(run.out == "\(folder.url.path)/evil\\nphotoedit: x.jpg: applied sepia\\x1B[2J.jpg: unedited\n")
    let json = runCLI(["status", "--json", photo])
    #expect(json.out.contains("evil\\nphotoedit"))
  }

  @Test func versionTakesNoArgument() {
    #expect(runCLI(["--version"]).status == 0)
    let extra = runCLI(["--version", "extra"])
    #expect(extra.status == 64)
    #expect(extra.err.hasPrefix("photoedit: error: --version takes no arguments, not 'extra'"))
  }

  /// An -o output whose folder moved says its original is not at the recorded path.
  @Test func movedOutputSaysWhereItsOriginalShouldBe() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: false)
    #expect(runCLI(["apply", "-f", "sepia", "-o", folder.path("out/o.jpg"), photo]).status == 0)
    try FileManager.default.createDirectory(atPath: folder.path("moved"), withIntermediateDirectories: false)
    try FileManager.default.createDirectory(
      atPath: folder.path("moved/deeper"), withIntermediateDirectories: false)
    for name in ["o.jpg", "o.jpg.photoedit.json"] {
      try FileManager.default.moveItem(
        atPath: folder.path("out/\(name)"), toPath: folder.path("moved/deeper/\(name)"))
    }
    let run = runCLI(["undo", folder.path("moved/deeper/o.jpg")])
    #expect(run.status == 66)
    #expect(run.err.contains("its original cannot be found at the recorded path"))
    #expect(!run.err.contains("backup"))
  }

  @Test func showListsStrokesAndEveryControl() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("jpeg/testorig.jpg", as: "t.jpg")
    let strokes = fixturePath("recipes/strokes.json")
    #expect(
      runCLI(["apply", "-f", "brush:pen=red,size=3,strokes=\(strokes)", "-f", "vignette", photo]).status == 0)
    let text = runCLI(["show", photo]).out.split(separator: "\n").map(String.init)
    let brush = try #require(text.firstIndex { $0.hasPrefix("1. brush v1") })
    #expect(text[brush].contains("strokes=2 strokes"))
    #expect(text[brush + 1].hasPrefix("     stroke 1: ") && text[brush + 1].contains("/"))
    #expect(text[brush + 2].hasPrefix("     stroke 2: 10%:80%/90%:80%"))
    // --json: each step's number, filter, version and every parameter, set or not.
    let json =
      try JSONSerialization.jsonObject(with: Data(runCLI(["show", "--json", photo]).out.utf8))
      as! [String: Any]
    let steps = json["steps"] as! [[String: Any]]
    #expect(steps.map { $0["step"] as! Int } == [1, 2])
    #expect(steps[1]["filter"] as? String == "vignette" && steps[1]["version"] as? Int == 1)
    let intensity = (steps[1]["parameters"] as! [String: Any])["intensity"] as! [String: Any]
    #expect(intensity["value"] as? Double == 1)
    #expect(intensity["default"] as? String == "1")
    #expect(intensity["range"] as? String == "0...1")
    let brushParameters = steps[0]["parameters"] as! [String: Any]
    #expect(Set(brushParameters.keys) == ["pen", "color", "size", "hardness", "points", "strokes"])
    #expect((brushParameters["points"] as! [String: Any])["value"] is NSNull)
  }
}
