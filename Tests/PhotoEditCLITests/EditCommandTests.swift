import Foundation
import Testing

/// `photoedit edit`: changing, removing and moving an earlier step, as the vignette extension
/// restores its slider and lets it move. Every check is on the bytes on disk.
@Suite struct EditCommandTests {
  /// The render a fresh `apply` of these words makes of hopper.jpg.
  static func freshRender(_ words: [String]) throws -> Data {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let run = runCLI(["apply"] + words.flatMap { ["-f", $0] } + [photo])
    try #require(run.status == 0, "\(run.err)")
    return try Data(contentsOf: URL(fileURLWithPath: photo))
  }

  func sidecar(_ photo: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json")))
      as! [String: Any]
  }

  func filters(_ photo: String) throws -> [String] {
    (try sidecar(photo)["operations"] as! [[String: Any]]).map { $0["filter"] as! String }
  }

  @Test func setRemoveAndMoveRenderAsAFreshApplyWould() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let words = ["sepia:intensity=0.8", "vignette", "pixelate:x=10,y=20,width=50,height=40,block=6"]
    #expect(runCLI(["apply"] + words.flatMap { ["-f", $0] } + [photo]).status == 0)

    // --set: the slider moves; the new value replaces the old one.
    let set = runCLI(["edit", photo, "--step", "2", "--set", "intensity=0.4,radius=0.8"])
    #expect(set.status == 0, "\(set.err)")
    #expect(set.out == "\(photo): changed step 2 (vignette) (3 operations)\n")
    let setBytes = try Data(contentsOf: URL(fileURLWithPath: photo))
    #expect(setBytes == (try Self.freshRender([words[0], "vignette:intensity=0.4,radius=0.8", words[2]])))
    #expect(try filters(photo) == ["sepia", "vignette", "pixelate"])

    // --move: step 3 becomes step 1, the others shift by one.
    #expect(runCLI(["edit", photo, "--step", "3", "--move", "1"]).status == 0)
    #expect(try filters(photo) == ["pixelate", "sepia", "vignette"])
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: photo))
        == (try Self.freshRender([words[2], words[0], "vignette:intensity=0.4,radius=0.8"])))

    // --remove.
    #expect(runCLI(["edit", photo, "--step", "2", "--remove"]).status == 0)
    #expect(try filters(photo) == ["pixelate", "vignette"])
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: photo))
        == (try Self.freshRender([words[2], "vignette:intensity=0.4,radius=0.8"])))

    // undo takes back one change at a time: the removal, the move, the edit.
    #expect(runCLI(["undo", photo]).out.contains("undid removal of step 2 (sepia)"))
    #expect(try filters(photo) == ["pixelate", "sepia", "vignette"])
    #expect(runCLI(["undo", photo]).out.contains("undid move of step 3 to 1"))
    #expect(runCLI(["undo", photo]).out.contains("undid edit of step 2 (vignette)"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == (try Self.freshRender(words)))
    #expect(runCLI(["redo", photo]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == setBytes)
    #expect(runCLI(["check", photo]).status == 0)
  }

  @Test func mistakesAreRefusedAndChangeNothing() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "sepia", "-f", "vignette", photo]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))
    // Usage errors, before any file is touched.
    for (arguments, message) in [
      (["--step", "1", "--set", "amount=1"], "unknown parameter 'amount'"),
      (["--step", "1", "--set", "intensity=5"], "intensity=5 is out of range (allowed: 0...1)"),
      (["--step", "1", "--set", "intensity=0x1"], "intensity='0x1' is not a number"),
      (["--step", "1"], "give exactly one of --set, --remove and --move"),
      (["--set", "intensity=1"], "give --step N"),
      (["--step", "0", "--remove"], "--step must be a whole number from 1"),
      (["--step", "1", "--remove", "--move", "2"], "give exactly one of"),
    ] {
      let run = runCLI(["edit", photo] + arguments)
      #expect(run.status == 64, "\(arguments)")
      #expect(run.err.contains(message), "\(arguments): \(run.err)")
    }
    // A step or key this photo's recipe does not have is a usage error of this photo (64), naming
    // both.
    let missing = runCLI(["edit", photo, "--step", "3", "--remove"])
    #expect(missing.status == 64)
    #expect(
      missing.err
        == "photoedit: \(photo): has no step 3: its recipe has 2 steps (numbered from 1, as 'photoedit show' lists them)\n"
    )
    let key = runCLI(["edit", photo, "--step", "1", "--set", "radius=2"])
    #expect(key.status == 65)
    #expect(key.err.contains("step 1: sepia: unknown parameter 'radius' (known: intensity)"))
    #expect(runCLI(["edit", photo, "--step", "1", "--move", "3"]).status == 64)
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json")) == before)
    // A photo with no recipe has no step.
    let plain = try folder.copy("faces/hopper.jpg", as: "plain.jpg")
    #expect(runCLI(["edit", plain, "--step", "1", "--remove"]).status == 64)
    #expect(folder.names() == ["h.jpg", "h.jpg.original", "h.jpg.photoedit.json", "plain.jpg"])
  }

  /// faceblur's corrections change without detecting again; a detector setting detects again
  /// and carries each exclusion to its face.
  @Test func faceblurCorrectionsAndDetectorSettings() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/astronaut.png", as: "a.png")
    #expect(runCLI(["apply", "-f", "faceblur:detector=haar", photo]).status == 0)
    func faces() throws -> [[String: Double]] {
      let ops = try sidecar(photo)["operations"] as! [[String: Any]]
      return (ops[0]["derived"] as! [String: Any])["faces"] as! [[String: Double]]
    }
    let found = try faces()
    #expect(found.count == 1)
    // No cascade at all: exclude and add need no detector.
    let noCascade = ["--cascade", folder.path("none.xml")]
    let excluded = runCLI(["edit", photo, "--step", "1", "--set", "exclude=0"] + noCascade)
    #expect(excluded.status == 0, "\(excluded.err)")
    let excludedParameters =
      (try sidecar(photo)["operations"] as! [[String: Any]])[0]["parameters"] as! [String: Any]
    #expect(excludedParameters["exclude"] as? [Int] == [0])
    let added = runCLI(
      ["edit", photo, "--step", "1", "--set", "add=10:10:50:50/60%:60%:10%:10%"] + noCascade)
    #expect(added.status == 0, "\(added.err)")
    let withAdded = try faces()
    #expect(withAdded.count == 3)
    #expect(withAdded[0] == found[0])
    let first: [String: Double] = [
      "x": 10.0 / 512, "y": 10.0 / 512, "width": 50.0 / 512, "height": 50.0 / 512,
    ]
    let second: [String: Double] = ["x": 0.6, "y": 0.6, "width": 0.1, "height": 0.1]
    #expect(withAdded[1] == first)
    #expect(withAdded[2] == second)
    // A detector setting detects again, which needs the cascade, and keeps the exclusion on the
    // same face.
    #expect(runCLI(["edit", photo, "--step", "1", "--set", "minNeighbors=4"] + noCascade).status == 66)
    let again = runCLI(["edit", photo, "--step", "1", "--set", "minNeighbors=4", "--json"])
    #expect(again.status == 0, "\(again.err)")
    let ops = try sidecar(photo)["operations"] as! [[String: Any]]
    let parameters = ops[0]["parameters"] as! [String: Any]
    #expect(parameters["exclude"] as? [Int] == [0])
    #expect(parameters["minNeighbors"] as? Int == 4)
    #expect(try faces().count == 3)
    // The render is what a fresh apply of that recipe gives.
    let fresh = try TemporaryFolder()
    let copy = try fresh.copy("faces/astronaut.png", as: "a.png")
    #expect(
      runCLI([
        "apply", "-f", "faceblur:detector=haar,minNeighbors=4,exclude=0,add=10:10:50:50/60%:60%:10%:10%", copy,
      ])
        .status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: copy)) == (try Data(contentsOf: URL(fileURLWithPath: photo))))
  }

  /// Setting values a step already has, or moving a step to its own place, writes nothing and
  /// leaves nothing to undo: the next undo takes back the apply.
  @Test func anEditThatChangesNothingWritesNothing() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "vignette:intensity=0.5", photo]).status == 0)
    let sidecarBytes = try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))
    let render = try Data(contentsOf: URL(fileURLWithPath: photo))
    let set = runCLI(["edit", photo, "--step", "1", "--set", "intensity=0.5"])
    #expect(set.status == 0, "\(set.err)")
    #expect(
      set.out == "\(photo): step 1 (vignette) already has these values; nothing changed (1 operation)\n")
    let move = runCLI(["edit", photo, "--step", "1", "--move", "1", "--json"])
    #expect(move.status == 0, "\(move.err)")
    #expect(move.out.contains("\"current\": true"), "\(move.out)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json")) == sidecarBytes)
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == render)
    let undo = runCLI(["undo", photo])
    #expect(undo.out.contains("undid apply vignette"), "\(undo.out)")
  }

  /// An edit that changes no value still does what its metadata flag asks: `--strip-identifying`
  /// re-renders without identifying metadata (it was told success and kept the serial numbers),
  /// and `--keep-identifying` puts it back. In a batch, an edit that changes nothing counts as
  /// current.
  @Test func anEditThatChangesNoValueStillStripsAndCountsAsCurrent() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("jpeg/xmp_test.jpg", as: "x.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    func hasXMP() throws -> Bool {
      try Data(contentsOf: URL(fileURLWithPath: photo)).range(of: Data("http://ns.adobe.com/xap/1.0/".utf8))
        != nil
    }
    #expect(try hasXMP())
    let strip = runCLI(["edit", photo, "--step", "1", "--set", "intensity=1", "--strip-identifying"])
    #expect(strip.status == 0, "\(strip.err)")
    // It says what it did: no value changed, the render was made again (not "changed step 1").
    #expect(
      strip.out
        == "\(photo): step 1 (sepia) already has these values; rendered again as asked, without identifying metadata (1 operation)\n",
      "\(strip.out)")
    #expect(try !hasXMP())
    #expect(runCLI(["show", photo]).out.contains("metadata: identifying metadata stripped"))
    // Asked again, it is current.
    let again = runCLI(["edit", photo, "--step", "1", "--set", "intensity=1", "--strip-identifying"])
    #expect(again.out.hasSuffix("already has these values; nothing changed (1 operation)\n"), "\(again.out)")
    let keep = runCLI(["edit", photo, "--step", "1", "--move", "1", "--keep-identifying"])
    #expect(
      keep.out == "\(photo): step 1 is already there; rendered again as asked (1 operation)\n", "\(keep.out)")
    #expect(try hasXMP())
    let other = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(runCLI(["apply", "-f", "sepia", other]).status == 0)
    let batch = runCLI(["edit", photo, other, "--step", "1", "--set", "intensity=1"])
    #expect(batch.err == "photoedit: 2 files: 0 done, 2 current, 0 failed\n", "\(batch.err)")
    // Undoing every step of a stripping photo says the photo is not the original's exact bytes.
    #expect(
      runCLI(["edit", photo, "--step", "1", "--set", "intensity=1", "--strip-identifying"]).status == 0)
    let undo = runCLI(["undo", photo])
    #expect(
      undo.out.hasSuffix(
        "no step left: the photo is its original without identifying metadata (render --keep-identifying, or revert, gives back its exact bytes)\n"
      ), "\(undo.out)")
    #expect(runCLI(["render", "--keep-identifying", photo]).status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: photo))
        == Data(contentsOf: URL(fileURLWithPath: photo + ".original")))
  }

  /// An added box with no pixel on the photo would hide nothing and still count as a hidden face,
  /// so it is refused (65), in pixels or in percentages, and nothing changes; one that reaches
  /// past an edge is taken.
  @Test func addedBoxOffThePhotoIsRefused() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/astronaut.png", as: "a.png")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
    for box in ["600:600:10:10", "150%:150%:10%:10%", "512:0:20:20", "-30:10:30:30"] {
      let run = runCLI(["apply", "-f", "faceblur:add=\(box)", photo])
      #expect(run.status == 65, "\(box): \(run.err)")
      #expect(
        run.err.hasPrefix("photoedit: \(photo): ") && run.err.contains("leaves the 512x512 image"),
        "\(run.err)")
      #expect(folder.names() == ["a.png"], "\(box)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == bytes)
    }
    let edge = runCLI(["apply", "-f", "faceblur:add=500:500:40:40", photo])
    #expect(edge.status == 0, "\(edge.err)")
    #expect(edge.out.contains("2 faces hidden"), "\(edge.out)")
    let ops = try sidecar(photo)["operations"] as! [[String: Any]]
    #expect(((ops[0]["derived"] as! [String: Any])["faces"] as! [[String: Double]]).count == 2)
  }

  /// An exclusion whose face is not found again is dropped with a warning: it never spares
  /// another face.
  @Test func exclusionWithoutItsFaceIsDroppedWithAWarning() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/astronaut.png", as: "a.png")
    #expect(runCLI(["apply", "-f", "faceblur:exclude=0", photo]).status == 0)
    // A minimum face larger than the photo finds nothing.
    let run = runCLI(["edit", photo, "--step", "1", "--set", "minFace=600"])
    #expect(run.status == 0, "\(run.err)")
    #expect(run.err.contains("warning: exclude=0 matches no face found again, so it was dropped"))
    let ops = try sidecar(photo)["operations"] as! [[String: Any]]
    #expect((ops[0]["parameters"] as! [String: Any])["exclude"] == nil)
  }
}
