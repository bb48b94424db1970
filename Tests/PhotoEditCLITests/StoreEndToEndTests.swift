import Foundation
import Testing

/// The edit store through the real `photoedit` binary: the edit cycle, a crash (SIGKILL through
/// `PHOTOEDIT_CRASH_AT`) at every step of every command, two processes racing on one photo, and
/// processes killed at random moments. Every check is on the bytes on disk.
@Suite struct StoreEndToEndTests {
  static let crashPoints = [
    "after-lock", "mid-temp", "after-temps", "after-journal", "after-original", "after-sidecar",
    "after-render", "after-commit",
  ]

  /// Every file in a folder and its bytes, without lock files (a killed process leaves its lock
  /// file; the next command removes it).
  static func state(_ folder: TemporaryFolder) -> [String: Data] {
    var state: [String: Data] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []
    where !name.hasSuffix(".photoedit.lock") {
      state[name] = FileManager.default.contents(atPath: folder.path(name))
    }
    return state
  }

  static func leftovers(_ folder: TemporaryFolder) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).filter {
      $0.contains(".photoedit-tmp-") || $0.hasSuffix(".photoedit.lock") || $0.hasSuffix(".photoedit.journal")
    }
  }

  let originalBytes = FileManager.default.contents(
    atPath: fixtures.appendingPathComponent("faces/hopper.jpg").path)!

  @Test func applyApplyUndoRedoRevertGivesTheOriginalBack() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(try launch(["apply", "--filter", "sepia:intensity=0.8", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo + ".original") == originalBytes)
    #expect(try launch(["apply", "--filter", "vignette", photo]).status == 0)
    let twoEdits = FileManager.default.contents(atPath: photo)
    #expect(twoEdits != originalBytes)
    #expect(try launch(["undo", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo) != twoEdits)
    #expect(try launch(["redo", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo) == twoEdits)
    let sidecar = try String(contentsOfFile: photo + ".photoedit.json", encoding: .utf8)
    #expect(sidecar.contains("\"formatIdentifier\" : \"org.photoedit.adjustments\""))
    #expect(try launch(["revert", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo) == originalBytes)
    #expect(Self.state(folder).keys.sorted() == ["h.jpg"])
  }

  @Test func newerSidecarIsRefusedWithStatus65AndNothingChanges() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(try launch(["apply", "--filter", "sepia", photo]).status == 0)
    let text = try String(contentsOfFile: photo + ".photoedit.json", encoding: .utf8)
      .replacingOccurrences(of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 4")
    try text.write(toFile: photo + ".photoedit.json", atomically: true, encoding: .utf8)
    let before = Self.state(folder)
    let result = try launch(["apply", "--filter", "vignette", photo])
    #expect(result.status == 65)
    #expect(
      result.err.contains(
        "photoedit: \(photo): the sidecar has format version 4, newer than this photoedit's 3"))
    #expect(Self.state(folder) == before)
    #expect(Self.leftovers(folder) == [])
  }

  @Test func refusedInputsSayWhatToDo() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(try launch(["apply", "--filter", "sepia", photo]).status == 0)
    let original = try launch(["apply", "--filter", "sepia", photo + ".original"])
    #expect(original.status == 64)
    #expect(original.err.contains("preserved original of '\(photo)'; edit '\(photo)' instead"))
    let sidecar = try launch(["undo", photo + ".photoedit.json"])
    #expect(sidecar.status == 64)
    try FileManager.default.removeItem(atPath: photo + ".original")
    let missing = try launch(["undo", photo])
    #expect(missing.status == 66)
    #expect(missing.err.contains("is missing; restore it from a backup"))
    // A store file's name that nothing has is missing, not a store file.
    for name in ["nothere.jpg.original", "nothere.jpg.photoedit.json"] {
      let absent = try launch(["apply", "--filter", "flip", folder.path(name)])
      #expect(absent.status == 66, "\(name): \(absent.err)")
      #expect(absent.err == "photoedit: \(folder.path(name)): no such file\n", "\(name)")
    }
  }

  @Test func modifiedRenderIsRefusedWithoutForce() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    #expect(try launch(["apply", "--filter", "sepia", photo]).status == 0)
    try FileManager.default.removeItem(atPath: photo)
    try Data(originalBytes.reversed()).write(to: URL(fileURLWithPath: photo))
    let before = Self.state(folder)
    let refused = try launch(["apply", "--filter", "vignette", photo])
    #expect(refused.status == 73)
    #expect(refused.err.contains("modified by another program"))
    #expect(Self.state(folder) == before)
    #expect(try launch(["status", photo]).out.contains("modified"))
    #expect(try launch(["revert", "--force", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo) == originalBytes)
  }

  @Test func batchWithOneBadFileEditsTheOthers() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let good1 = try folder.copy("faces/hopper.jpg", as: "g1.jpg")
    let bad = try folder.copy("bad/skimage-truncated.jpg", as: "bad.jpg")
    let good2 = try folder.copy("faces/hopper.jpg", as: "g2.jpg")
    let badBytes = FileManager.default.contents(atPath: bad)
    let result = try launch(["apply", "--filter", "sepia", "--json", "-j", "2", good1, bad, good2])
    #expect(result.status == 1)
    let lines = result.out.split(separator: "\n")
    #expect(lines.count == 3)
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      let file = object["file"] as! String
      #expect(object["status"] as? String == (file == bad ? "error" : "ok"))
    }
    #expect(result.err.contains("photoedit: \(bad): "))
    #expect(FileManager.default.contents(atPath: bad) == badBytes)
    #expect(
      Self.state(folder).keys.sorted() == [
        "bad.jpg", "g1.jpg", "g1.jpg.original", "g1.jpg.photoedit.json", "g2.jpg", "g2.jpg.original",
        "g2.jpg.photoedit.json",
      ])
    #expect(FileManager.default.contents(atPath: good1 + ".original") == originalBytes)
  }

  enum Scenario: String, CaseIterable, Sendable {
    case firstApply, secondApply, undo, redo, revert, rerender, export

    func setUp(_ photo: String) throws {
      switch self {
      case .firstApply: break
      case .secondApply, .revert, .rerender, .export:
        _ = try launch(["apply", "--filter", "sepia", photo])
      case .undo:
        _ = try launch(["apply", "--filter", "sepia", "--filter", "vignette", photo])
      case .redo:
        _ = try launch(["apply", "--filter", "sepia", "--filter", "vignette", photo])
        _ = try launch(["undo", photo])
      }
    }

    func arguments(_ photo: String) -> [String] {
      switch self {
      case .firstApply, .secondApply: ["apply", "--filter", "vignette:intensity=0.5", photo]
      case .undo: ["undo", photo]
      case .redo: ["redo", photo]
      case .revert: ["revert", photo]
      case .rerender: ["render", "--quality", "60", photo]
      case .export: ["render", photo, "-o", photo.replacingOccurrences(of: "h.jpg", with: "x.jpg")]
      }
    }

    var target: String { self == .export ? "x.jpg" : "h.jpg" }
  }

  /// The folder's state after the command ran without a crash (renders are deterministic, so
  /// the bytes match across folders).
  func reference(_ scenario: Scenario) throws -> (before: [String: Data], after: [String: Data]) {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    try scenario.setUp(photo)
    let before = Self.state(folder)
    let run = try launch(scenario.arguments(photo))
    #expect(run.status == 0, "\(scenario): \(run.err)")
    return (before, Self.state(folder))
  }

  @Test(arguments: Scenario.allCases)
  func crashAtEveryStep(scenario: Scenario) throws {
    let (before, after) = try reference(scenario)
    #expect(before != after)
    var killedAt: [String] = []
    for point in Self.crashPoints {
      let folder = try TemporaryFolder()
      defer { folder.cleanUp() }
      let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
      try scenario.setUp(photo)
      let crashed = try launch(scenario.arguments(photo), environment: ["PHOTOEDIT_CRASH_AT": point])
      if crashed.status == 9 { killedAt.append(point) } else { #expect(crashed.status == 0) }
      let label = "\(scenario) killed at \(point)"

      // The original is intact whatever the instant.
      let preserved = FileManager.default.contents(atPath: photo + ".original")
      let current = FileManager.default.contents(atPath: photo)
      #expect(preserved == originalBytes || current == originalBytes, "\(label): original lost")
      // A crash never looks like an edit by another program.
      let status = try launch(["status", folder.path(scenario.target)])
      #expect(!status.out.contains("modified"), "\(label): \(status.out)")

      let repair = try launch(["check", "--repair", folder.path(scenario.target)])
      let repaired = Self.state(folder)
      #expect(
        repaired == before || repaired == after, "\(label): neither old nor new \(repaired.keys.sorted())")
      #expect(Self.leftovers(folder) == [], "\(label)")
      if repaired == after || FileManager.default.fileExists(atPath: folder.path(scenario.target)) {
        #expect(repair.status == 0, "\(label): \(repair.err)")
      }
    }
    // Every command passes the points common to all of them (and reverts and first edits the
    // original's too).
    #expect(
      Set(killedAt).isSuperset(of: [
        "after-lock", "after-temps", "after-journal", "after-render", "after-commit",
      ]))
  }

  @Test func twoProcessesOnOnePhotoBothLandInOrderOrOneIsBusy() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/astronaut.png", as: "a.png")
    var landed = 0
    for round in 0..<3 {
      let filters = ["sepia:intensity=0.\(round + 1)", "vignette:intensity=0.\(round + 1)"]
      let processes = filters.map { filter -> (Process, Pipe) in
        let process = Process()
        process.executableURL = photoeditBinary
        process.arguments = ["apply", "--filter", filter, photo]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        return (process, err)
      }
      for (process, _) in processes { try process.run() }
      for (process, err) in processes {
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 0 {
          landed += 1
        } else {
          #expect(process.terminationStatus == 73)
          #expect(message.contains("busy"))
        }
      }
      let sidecar =
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))) as! [String: Any]
      #expect((sidecar["operations"] as! [Any]).count == landed, "round \(round): a lost edit")
      #expect(Self.leftovers(folder) == [])
    }
    #expect(try launch(["check", photo]).status == 0)
  }

  @Test func processesKilledAtRandomMomentsNeverLoseTheOriginal() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/astronaut.png", as: "a.png")
    let original = FileManager.default.contents(atPath: photo)!
    var generator = SystemRandomNumberGenerator()
    let commands: [[String]] = [
      ["apply", "--filter", "sepia:intensity=0.7", photo], ["apply", "--filter", "vignette", photo],
      ["undo", photo], ["redo", photo], ["revert", photo], ["render", "--quality", "80", photo],
      ["check", "--repair", photo],
    ]
    for round in 0..<24 {
      let process = Process()
      process.executableURL = photoeditBinary
      process.arguments = commands.randomElement(using: &generator)!
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      usleep(UInt32.random(in: 0...400_000, using: &generator))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()

      let preserved = FileManager.default.contents(atPath: photo + ".original")
      let current = FileManager.default.contents(atPath: photo)
      #expect(preserved == original || current == original, "round \(round): original lost")
      let status = try launch(["status", photo])
      #expect(!status.out.contains("modified"), "round \(round): \(status.out)")
      let repair = try launch(["check", "--repair", photo])
      #expect(repair.status == 0, "round \(round): \(repair.err)")
      #expect(Self.leftovers(folder) == [], "round \(round)")
    }
    #expect(try launch(["revert", photo]).status == 0)
    #expect(FileManager.default.contents(atPath: photo) == original)
    #expect(Self.state(folder).keys.sorted() == ["a.png"])
  }
}
