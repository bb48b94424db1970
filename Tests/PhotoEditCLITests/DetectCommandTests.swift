import Codecs
import Foundation
import PhotoCore
import Testing

@testable import PhotoEditCLI

func jsonLines(_ text: String) throws -> [[String: Any]] {
  try text.split(separator: "\n").map { line in
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }
}

private func boxes(_ object: [String: Any]) -> [[Int]] {
  (object["faces"] as? [[String: Any]] ?? []).map { f in
    ["x", "y", "width", "height"].map { (f[$0] as? NSNumber)?.intValue ?? -1 }
  }
}

@Suite struct DetectCommandTests {
  /// OpenCV 4.14 finds exactly this box on astronaut.png at (1.1, 3) (Fixtures/faces/opencv-reference.json).
  @Test func jsonLineHasSizeAndOpenCVsBox() throws {
    let r = try launch([
      "detect", "--detector", "haar", "--json", fixtures.appendingPathComponent("faces/astronaut.png").path,
    ])
    #expect(r.status == 0)
    #expect(r.err.isEmpty)
    let lines = try jsonLines(r.out)
    #expect(lines.count == 1)
    #expect(lines[0]["status"] as? String == "ok")
    #expect((lines[0]["width"] as? NSNumber)?.intValue == 512)
    #expect((lines[0]["height"] as? NSNumber)?.intValue == 512)
    #expect(boxes(lines[0]) == [[177, 66, 95, 95]])
    #expect(lines[0]["seconds"] is NSNumber)
  }

  @Test func humanOutputNumbersFacesAndTimingsGoToStandardError() throws {
    let photo = fixtures.appendingPathComponent("faces/astronaut.png").path
    let r = try launch(["detect", "--detector", "haar", "--timings", photo])
    #expect(r.status == 0)
    #expect(r.out == "\(photo): 1 face (512x512, haar)\n  #0  x=177 y=66 width=95 height=95\n")
    // CenterFace, the default, gives scores to three decimals.
    let centerface = try launch(["detect", photo])
    #expect(centerface.out.hasPrefix("\(photo): 1 face (512x512, centerface)\n  #0  x="), "\(centerface.out)")
    #expect(centerface.out.contains(" score=0."))
    #expect(r.err.contains("timing: detect "))
  }

  /// A photo with no face, a missing file and a corrupt one: one JSON line each, in order.
  @Test func batchKeepsGoingPastBadFiles() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let good = try folder.copy("photos/coffee.png", as: "coffee.png")
    let bad = try folder.copy("bad/skimage-truncated.jpg", as: "bad.jpg")
    let missing = folder.path("missing.jpg")
    let r = try launch(["detect", "--json", "-j", "2", good, missing, bad])
    #expect(r.status == 1)
    let lines = try jsonLines(r.out)
    #expect(lines.map { $0["file"] as? String } == [good, missing, bad])
    #expect(lines.map { $0["status"] as? String } == ["ok", "error", "error"])
    #expect(boxes(lines[0]).isEmpty)
    let errors = r.err.split(separator: "\n").map(String.init)
    #expect(errors.contains("photoedit: \(missing): no such file"))
    #expect(errors.contains { $0.hasPrefix("photoedit: \(bad): ") })
    #expect(errors.last == "photoedit: 3 files: 1 done, 0 current, 2 failed; 1 photo with no face found")
  }

  @Test func missingCascadeSaysHowToInstallOrNameOne() throws {
    let photo = fixtures.appendingPathComponent("faces/hopper.jpg").path
    let r = try launch(
      ["detect", "--detector", "haar", photo], environment: ["PHOTOEDIT_CASCADE": "/nonexistent/cascade.xml"])
    #expect(r.status == 66)
    // Found before the first photo: one line for the run, naming the cascade.
    #expect(r.err.hasPrefix("photoedit: face cascade /nonexistent/cascade.xml not found"), "\(r.err)")
    #expect(r.err.split(separator: "\n").count == 1)
    #expect(r.err.contains("--cascade FILE"))
  }
}
