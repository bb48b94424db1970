import Codecs
import Foundation
import PhotoCore
import Testing

@testable import PhotoEditCLI

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

  /// `exclude=K` naming no face of the step is refused for the photo as a corrections file
  /// refuses it (65, one line naming the photo, nothing written), by apply and by edit. Added
  /// faces are numbered after the found ones, so K may name an added face.
  @Test func excludeOfAFaceTheStepDoesNotHaveIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")  // one face, #0
    let original = folder.read("h.jpg")
    for output in [[], ["-o", folder.path("out.jpg")]] {
      let r = runCLI(["apply", "-f", "faceblur:exclude=9", photo] + output)
      #expect(r.status == 65)
      #expect(
        r.err
          == "photoedit: \(photo): faceblur: exclude=9 names no face (the step has 1 face, numbered from 0)\n"
      )
      #expect(folder.names() == ["h.jpg"])
      #expect(folder.read("h.jpg") == original)
    }
    let pastAdded = runCLI(["apply", "-f", "faceblur:add=0:0:20:20,exclude=0/2", photo])
    #expect(pastAdded.status == 65)
    #expect(
      pastAdded.err
        == "photoedit: \(photo): faceblur: exclude=2 names no face "
        + "(the step has 2 faces, numbered from 0: 1 found, then 1 added)\n")
    #expect(folder.names() == ["h.jpg"])
    // Face 1 is the added one.
    let added = runCLI(["apply", "-f", "faceblur:add=0:0:20:20,exclude=1", photo])
    #expect(added.status == 0, "\(added.err)")
    #expect(added.out == "\(photo): applied faceblur (1 operation): 1 face hidden (1 excluded)\n")
    let sidecar = folder.read("h.jpg.photoedit.json")
    // edit refuses the same: a new exclude, or an add that takes away the face excluded.
    for set in ["exclude=5", "add="] {
      let r = runCLI(["edit", photo, "--step", "1", "--set", set])
      #expect(r.status == 65, "\(set): \(r.err)")
      let faces =
        set == "add=" ? "1 face, numbered from 0" : "2 faces, numbered from 0: 1 found, then 1 added"
      let face = set == "add=" ? 1 : 5
      #expect(
        r.err
          == "photoedit: \(photo): step 1: faceblur: exclude=\(face) names no face (the step has \(faces))\n")
      #expect(folder.read("h.jpg.photoedit.json") == sidecar)
    }
    #expect(runCLI(["edit", photo, "--step", "1", "--set", "exclude=0/1"]).status == 0)
  }
}

/// One fact, one exit status: a cascade that is missing or unreadable is an input that is
/// missing (66) from every command that needs it; one that is not a cascade is bad data (65).
@Suite struct CascadeStatusTests {
  @Test func missingCascadeIs66FromEveryCommand() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let before = try Data(contentsOf: URL(fileURLWithPath: photo))
    let missing = folder.path("none.xml")
    for arguments in [
      ["detect", "--detector", "haar", photo], ["apply", "-f", "faceblur:detector=haar", photo],
      ["apply", "-f", "sepia", "-f", "faceblur:detector=haar", photo],
      ["apply", "-f", "faceblur:detector=haar", "-o", folder.path("out.jpg"), photo],
    ] {
      let run = runCLI(arguments + ["--cascade", missing])
      #expect(run.status == 66, "\(arguments): \(run.err)")
      #expect(run.err.contains("face cascade \(missing) not found"), "\(run.err)")
      let env = try launch(arguments, environment: ["PHOTOEDIT_CASCADE": missing])
      #expect(env.status == 66, "\(arguments): \(env.err)")
    }
    // Nothing was written by any of them.
    #expect(folder.names() == ["h.jpg"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before)
    // A recipe with a faceblur step, applied elsewhere, needs the cascade too.
    let recipe = fixturePath("recipes/redact.json")
    #expect(runCLI(["apply", "--recipe", recipe, "--cascade", missing, photo]).status == 66)
    // A file that is not a cascade is bad data.
    let junk = folder.path("junk.xml")
    try Data("<opencv_storage><x></opencv_storage>".utf8).write(to: URL(fileURLWithPath: junk))
    #expect(runCLI(["detect", "--detector", "haar", photo, "--cascade", junk]).status == 65)
    #expect(runCLI(["apply", "-f", "faceblur:detector=haar", photo, "--cascade", junk]).status == 65)
  }

  /// A sidecar whose render record cannot be (quality 500, a subsampling photoedit does not
  /// write) is damage `check` reports, and no command renders with it.
  @Test func impossibleRenderRecordIsDamage() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    let sidecar = photo + ".photoedit.json"
    let good = try String(contentsOfFile: sidecar, encoding: .utf8)
    for (from, to, shown) in [
      ("\"quality\" : [0-9]+", "\"quality\" : 500", "'render.quality' is 500, not a quality in 1...100"),
      ("\"subsampling\" : \"420\"", "\"subsampling\" : \"411\"", "'render.subsampling' cannot be \"411\""),
    ] {
      let planted = good.replacingOccurrences(of: from, with: to, options: .regularExpression)
      #expect(planted != good)
      try planted.write(
        toFile: sidecar, atomically: true, encoding: .utf8)
      let check = runCLI(["check", photo])
      #expect(check.status == 1)
      #expect(check.err.contains("damaged: the recipe is invalid: \(shown)"), "\(check.err)")
      let status = runCLI(["status", "--json", photo])
      #expect(status.out.contains("\"state\": \"damaged\""))
      let render = runCLI(["render", photo])
      #expect(render.status == 65, "\(render.err)")
    }
  }
}

/// faceblur's `exclude=K` and `detect`'s `#K` name the same face.
@Suite struct ExcludeNumberingTests {
  /// For each K, `exclude=K` leaves the face detect lists as #K as it was (where no other face's
  /// circle reaches it) and hides every other face.
  @Test func excludeKSparesExactlyDetectsFaceK() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("groundtruth/opencv-group1.jpg", as: "g.jpg")
    let listed = try launch(["detect", "--json", photo])
    #expect(listed.status == 0, "\(listed.err)")
    let faces = (try jsonLines(listed.out).first?["faces"] as? [[String: Any]] ?? []).map { f in
      ["x", "y", "width", "height"].map { (f[$0] as? NSNumber)?.doubleValue ?? 0 }
    }
    #expect(faces.count >= 3)
    let original = try ImageCodec.decode(try fixture("groundtruth/opencv-group1.jpg")).image
    /// The centre of face `k` and the radius of its circle (scale 1: half the box's diagonal).
    func circle(_ k: Int) -> (x: Int, y: Int, r: Double) {
      let f = faces[k]
      return (Int(f[0] + f[2] / 2), Int(f[1] + f[3] / 2), (f[2] * f[2] + f[3] * f[3]).squareRoot() / 2)
    }
    /// Pixels that differ from the original in the 9x9 square around face `k`'s centre.
    func changed(_ image: Image, _ k: Int) -> Int {
      let c = circle(k)
      var n = 0
      for y in c.y - 4...c.y + 4 { for x in c.x - 4...c.x + 4 where image[x, y] != original[x, y] { n += 1 } }
      return n
    }
    var checked = 0
    for k in faces.indices {
      let c = circle(k)
      // A face whose centre another face's circle covers stays hidden by that circle.
      let reached = faces.indices.contains { j in
        let o = circle(j)
        return j != k && Double((o.x - c.x) * (o.x - c.x) + (o.y - c.y) * (o.y - c.y)).squareRoot() <= o.r + 8
      }
      if reached { continue }
      checked += 1
      let out = folder.path("out\(k).png")
      let r = try launch(["apply", "-f", "faceblur:exclude=\(k)", "-o", out, photo])
      #expect(r.status == 0, "\(r.err)")
      #expect(r.out.contains("\(faces.count - 1) faces hidden (1 excluded"), "\(r.out)")
      let render = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))).image
      #expect(changed(render, k) == 0, "exclude=\(k) changed face #\(k)")
      for j in faces.indices where j != k {
        #expect(changed(render, j) > 20, "exclude=\(k) left face #\(j) sharp")
      }
    }
    #expect(checked >= 3)
  }
}
