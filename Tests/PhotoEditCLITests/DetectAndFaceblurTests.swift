import Codecs
import Foundation
import PhotoCore
import Testing

@testable import PhotoEditCLI

private func jsonLines(_ text: String) throws -> [[String: Any]] {
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
    let r = try launch(["detect", "--json", fixtures.appendingPathComponent("faces/astronaut.png").path])
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
    let r = try launch(["detect", "--timings", photo])
    #expect(r.status == 0)
    #expect(r.out == "\(photo): 1 face (512x512)\n  #0  x=177 y=66 width=95 height=95\n")
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
    #expect(errors.last == "photoedit: 2 of 3 files failed")
  }

  @Test func missingCascadeSaysHowToInstallOrNameOne() throws {
    let photo = fixtures.appendingPathComponent("faces/hopper.jpg").path
    let r = try launch(["detect", photo], environment: ["PHOTOEDIT_CASCADE": "/nonexistent/cascade.xml"])
    #expect(r.status == 66)
    #expect(r.err.hasPrefix("photoedit: \(photo): face cascade /nonexistent/cascade.xml not found"))
    #expect(r.err.contains("--cascade FILE"))
  }
}

@Suite struct FiltersCommandTests {
  @Test func jsonListsEveryFilterWithItsParameters() throws {
    let r = runCLI(["filters", "--json"])
    #expect(r.status == 0)
    let filters = try jsonLines(r.out)
    let names = filters.compactMap { $0["name"] as? String }
    for expected in ["sepia", "vignette", "pixelate", "crop", "brush", "rotate", "flip", "faceblur"] {
      #expect(names.contains(expected), "\(expected)")
    }
    let sepia = try #require(filters.first { $0["name"] as? String == "sepia" })
    let parameters = try #require(sepia["parameters"] as? [[String: Any]])
    #expect(parameters.first?["name"] as? String == "intensity")
  }

  @Test func helpApplyShowsTheCatalogue() {
    let r = runCLI(["help", "apply"])
    #expect(r.status == 0)
    #expect(r.out.contains("faceblur"))
    #expect(r.out.contains("intensity"))
  }
}

@Suite struct FaceblurEndToEndTests {
  /// faceblur changes the pixels inside the face's circle and no pixel far outside it; revert
  /// gives back the original's bytes.
  @Test func blursTheFaceAndRevertRestoresTheBytes() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/astronaut.png", as: "astronaut.png")
    let originalBytes = try Data(contentsOf: URL(fileURLWithPath: photo))

    let applied = try launch(["apply", "--filter", "faceblur", photo])
    #expect(applied.status == 0, "\(applied.err)")
    let before = try ImageCodec.decode([UInt8](originalBytes)).image
    let after = try ImageCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))).image
    #expect((after.width, after.height) == (512, 512))
    // The face box is (177, 66, 95, 95): its centre must change, a far corner must not.
    var changed = 0
    for y in 100..<130 { for x in 210..<240 where before[x, y] != after[x, y] { changed += 1 } }
    #expect(changed > 600)
    for (x, y) in [(10, 10), (500, 500), (10, 500), (450, 400)] {
      #expect(before[x, y] == after[x, y])
    }
    let sidecar = try String(contentsOfFile: photo + ".photoedit.json", encoding: .utf8)
    #expect(sidecar.contains("\"faces\""))

    let reverted = try launch(["revert", photo])
    #expect(reverted.status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == originalBytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["astronaut.png"])
  }

  /// No face: the render's pixels equal the original's.
  @Test func noFaceLeavesPixelsUnchanged() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("photos/chelsea.png", as: "chelsea.png")
    let out = folder.path("out.png")
    let r = try launch(["apply", "--filter", "faceblur", "-o", out, photo])
    #expect(r.status == 0, "\(r.err)")
    let a = try ImageCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))).image
    let b = try ImageCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: out)))).image
    #expect(a == b)
  }
}
