import Codecs
import Foundation
import PhotoCore
import Synchronization
import Testing

@testable import Recipe
@testable import Store

/// Which route a JPEG render takes (`render.route`): lossless while every step is local and no
/// `--quality` or `--subsampling` pinned the re-encoding route, re-encoding otherwise; recorded
/// in the sidecar, so that a re-render gives the same bytes.
@Suite struct RenderRouteTests {
  let folder = try! TemporaryFolder()

  func request(_ filter: String, _ values: [String: ParameterValue] = [:]) throws -> StepRequest {
    try Filters.request(filter, values: values)
  }

  func copy(_ relative: String, as name: String) -> String {
    folder.write(name, Array(FileManager.default.contents(atPath: fixturePath(relative))!))
    return folder.path(name)
  }

  func sidecar(_ photo: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func render(_ photo: String) throws -> [String: Any] {
    try #require(try sidecar(photo)["render"] as? [String: Any])
  }

  var pixelate: StepRequest {
    get throws {
      try request(
        "pixelate",
        [
          "x": .length(.pixels(40)), "y": .length(.pixels(30)), "width": .length(.pixels(50)),
          "height": .length(.pixels(40)),
        ])
    }
  }

  /// A 64x50 crop at (x, 32).
  func crop(x: Double) throws -> StepRequest {
    try request(
      "crop",
      [
        "x": .length(.pixels(x)), "y": .length(.pixels(32)), "width": .length(.pixels(64)),
        "height": .length(.pixels(50)),
      ])
  }

  /// Rows of the decoded file from `y` on, all columns.
  func rows(_ bytes: [UInt8], from y: Int) throws -> ArraySlice<UInt8> {
    let image = try ImageCodec.decode(bytes).image
    return image.bytes[(y * image.width * 4)...]
  }

  @Test func aLocalStepKeepsTheRowsItDoesNotTouch() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    let original = folder.read("t.jpg")!
    _ = try EditStore().apply([try pixelate], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "lossless")
    #expect(try render(photo)["pinned"] == nil)
    // The pixelated rows end at 70, their iMCUs at 80; 32 rows below, every pixel is the original's.
    #expect(try rows(folder.read("t.jpg")!, from: 112) == rows(original, from: 112))
    #expect(folder.read("t.jpg")! != original)
    // A re-render makes the same bytes, and so writes nothing.
    #expect(try EditStore().render(photo).changed == false)
  }

  /// faceblur's lossless render cuts its patches from the pixels its detection searched rather
  /// than decoding the original again: a later render, which must decode them, makes the same bytes.
  @Test func faceblurRendersFromTheDetectionsPixelsTheBytesARerenderMakes() throws {
    let photo = copy("photos/seeding_by_Clements_Engelhardt.jpg", as: "s.jpg")
    let original = folder.read("s.jpg")!
    // Haar finds 3 (false) faces on these dandelions, CenterFace none: the route needs faces.
    _ = try EditStore().apply(
      [try request("faceblur", ["detector": .choice("haar")])], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "lossless")
    #expect(folder.read("s.jpg")! != original)
    #expect(try EditStore().render(photo).changed == false)
  }

  /// The same with the original's scan walked ahead during the detection (`JPEGScanIndex`) and
  /// without: the splice's jumps to the walk's checkpoints change no byte. Each stage's time is
  /// recorded.
  @Test(arguments: [true, false])
  func faceblurWithTheScanWalkedAheadMakesTheSameBytes(_ ahead: Bool) throws {
    let photo = copy("photos/seeding_by_Clements_Engelhardt.jpg", as: "s.jpg")
    let stages = Mutex<[String]>([])
    var settings = StoreSettings()
    settings.scansAhead = ahead
    settings.recordTiming = { stage, _ in stages.withLock { $0.append(stage) } }
    _ = try EditStore(settings: settings).apply([try request("faceblur")], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "lossless")
    #expect(stages.withLock { $0 } == ["decode", "detect", "splice"])
    settings.scansAhead = false
    #expect(try EditStore(settings: settings).render(photo).changed == false)
  }

  /// When the splice refuses a file after the route chose it (as libjpeg may refuse one
  /// `LosslessJPEG.accepts` allowed), the route is chosen again from the steps already made: the
  /// photo is searched once, and the re-encoded render is the one a later render makes.
  @Test func aRefusedSpliceReencodesWithoutDetectingAgain() throws {
    let photo = copy("photos/seeding_by_Clements_Engelhardt.jpg", as: "s.jpg")
    let stages = Mutex<[String]>([])
    var settings = StoreSettings()
    settings.refusesSplice = true
    settings.recordTiming = { stage, _ in stages.withLock { $0.append(stage) } }
    let faceblur = try request("faceblur", ["detector": .choice("haar")])
    let outcome = try EditStore(settings: settings).apply([faceblur], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "reencode")
    #expect(try render(photo)["pinned"] == nil)
    #expect(stages.withLock { $0 }.filter { $0 == "detect" } == ["detect"])
    #expect(stages.withLock { $0 }.contains("splice") == false)
    // The faces the one search found are the step's (Haar finds 3 on these dandelions).
    #expect(outcome.added.first?.typed(FaceblurFilter.self)?.derived.faces.count == 3)
    settings.recordTiming = { _, _ in }
    #expect(try EditStore(settings: settings).render(photo).changed == false)
  }

  @Test func aStepThatChangesEveryPixelReencodesAndUndoingItIsLosslessAgain() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    _ = try EditStore().apply([try pixelate], to: photo, output: nil)
    let lossless = folder.read("t.jpg")!
    _ = try EditStore().apply([try request("sepia")], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "reencode")
    #expect(try rows(folder.read("t.jpg")!, from: 112) != rows(lossless, from: 112))
    _ = try EditStore().undo(photo)
    #expect(try render(photo)["route"] as? String == "lossless")
    #expect(folder.read("t.jpg") == lossless)
  }

  @Test func anExplicitQualityPinsTheReencodingRoute() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    var settings = StoreSettings()
    settings.quality = 80
    _ = try EditStore(settings: settings).apply([try pixelate], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "reencode")
    #expect(try render(photo)["pinned"] as? Bool == true)
    #expect(try render(photo)["quality"] as? Int == 80)
    // Later commands without --quality keep it.
    let points: [Point] = [Point(x: .pixels(10), y: .pixels(10)), Point(x: .pixels(60), y: .pixels(60))]
    _ = try EditStore().apply([try request("brush", ["points": .points(points)])], to: photo, output: nil)
    #expect(try render(photo)["route"] as? String == "reencode")
    #expect(try render(photo)["pinned"] as? Bool == true)
  }

  @Test func aSidecarFromBeforeRoutesReencodesOnlyWhenItsQualityWasAskedFor() throws {
    for (quality, route) in [(90, "lossless"), (75, "reencode")] {
      let photo = copy("jpeg/testorig.jpg", as: "t\(quality).jpg")
      var settings = StoreSettings()
      settings.quality = quality
      _ = try EditStore(settings: settings).apply([try pixelate], to: photo, output: nil)
      // As a photoedit before routes wrote it: no route, no pin.
      var json = try sidecar(photo)
      var record = try render(photo)
      record["route"] = nil
      record["pinned"] = nil
      json["render"] = record
      try JSONSerialization.data(withJSONObject: json).write(
        to: URL(fileURLWithPath: photo + ".photoedit.json"))
      _ = try EditStore().render(photo)
      #expect(try render(photo)["route"] as? String == route, "quality \(quality)")
    }
  }

  @Test func turnsMirrorsAndCropsOnWholeBlocksAreLossless() throws {
    // hopper is 128x128, 4:2:0: every turn and mirror moves whole 16x16 iMCUs.
    let cases: [(String, [StepRequest], String)] = [
      ("faces/hopper_orientation_6.jpg", [try pixelate], "lossless"),  // turned upright first
      ("faces/hopper.jpg", [try request("rotate", ["angle": .choice("90")])], "lossless"),
      (
        "faces/hopper.jpg", [try request("flip", ["direction": .choice("vertical")]), try pixelate],
        "lossless"
      ),
      (
        "faces/hopper.jpg",
        [try crop(x: 16)], "lossless"
      ),
      // A crop that does not start on an iMCU, a turn that would move the partial iMCUs of
      // testorig's 227x149 edges, a transform after a local step: re-encoded.
      (
        "faces/hopper.jpg",
        [try crop(x: 10)], "reencode"
      ),
      ("jpeg/testorig.jpg", [try request("rotate", ["angle": .choice("90")])], "reencode"),
      ("faces/hopper.jpg", [try pixelate, try request("rotate", ["angle": .choice("90")])], "reencode"),
    ]
    for (k, (file, steps, route)) in cases.enumerated() {
      let photo = copy(file, as: "p\(k).jpg")
      _ = try EditStore().apply(steps, to: photo, output: nil)
      #expect(try render(photo)["route"] as? String == route, "case \(k)")
      // Either route renders the same picture, to within requantisation.
      let lossless = try ImageCodec.decode(folder.read("p\(k).jpg")!).image
      let original =
        folder.read("p\(k).jpg.original") ?? Array(FileManager.default.contents(atPath: fixturePath(file))!)
      var settings = StoreSettings()
      settings.quality = 100
      let reference = copy(file, as: "q\(k).jpg")
      _ = try EditStore(settings: settings).apply(steps, to: reference, output: nil)
      let reencoded = try ImageCodec.decode(folder.read("q\(k).jpg")!).image
      #expect((lossless.width, lossless.height) == (reencoded.width, reencoded.height), "case \(k)")
      let error = zip(lossless.bytes, reencoded.bytes).map { abs(Int($0) - Int($1)) }.reduce(0, +)
      // (The re-encoding route keeps the original's quality, 75 for testorig.jpg.)
      #expect(Double(error) / Double(lossless.bytes.count) < 3.5, "case \(k)")
      #expect(!original.isEmpty)
    }
  }

  @Test func aPNGRenderHasNoRoute() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    _ = try EditStore().apply([try pixelate], to: photo, output: folder.path("out.png"))
    #expect(try render(folder.path("out.png"))["route"] == nil)
  }
}
