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
  /// The event run's screenshot of the grid (docs/review-grid.png is a copy of one).
  /// The loupe run's screenshot: the loupe on a face's detail.
  static let loupeScreenshot = repository.appendingPathComponent(".build/test-output/review-loupe.png")
  static let gridScreenshot = repository.appendingPathComponent(".build/test-output/review-grid.png")

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

  /// What the event run (`review_browser.py --event`) saw.
  struct EventRun: Decodable {
    struct Photo: Decodable, Equatable {
      var faces: [String: String]
      var boxes: Int
      var review: String
    }
    struct State: Decodable {
      var photos: [String: Photo]
      var photoElements: Int
      var faceElements: Int
      var order: [String]
    }
    struct Grid: Decodable {
      var grid: Bool
      var scrollHeight: Double
      var scrollHeightScrolled: Double
      var innerHeight: Double
      var innerWidth: Double
      var images: Int
      var imagesLoaded: Int
      var columns: Int
    }
    struct Step: Decodable, Equatable {
      var key: String
      var current: String?
      var face: Int?
    }
    struct Loupe: Decodable {
      var open: Bool
      var zoom: Double
      var shownWidth: Double
      var face: [Double]
      var faceBoxes: Int
      var faceFromMiddle: [Double]
      var src: String
    }
    var before: State
    var grid: Grid
    var loupe: Loupe
    var loupeDrawn: [Double]
    var loupeOpenAfterEscape: Bool
    var steps: [Step]
    var afterKeys: State
    var asksBeforeLeaving: Bool
    var asksAfterExport: Bool
    var afterReload: State
    var saved: String
    var corrections: String?
    var savedAfterExport: String
    var undoAllQuestion: String
    var afterUndoAllDeclined: State
    var afterUndoAll: State
    var storedAfterUndoAll: String?
    var console: [String]
    var resources: [String]
  }

  func run<T: Decodable>(_ arguments: [String], as: T.Type) throws -> T {
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
    return try JSONDecoder().decode(T.self, from: output)
  }

  func browse(_ arguments: [String]) throws -> Run { try run(arguments, as: Run.self) }

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

  /// An event of 500 small photos (one group photo of 400x266 with its 7 faces found by Haar,
  /// copied with its original and sidecar under 500 names), reviewed: the page opens as a grid
  /// that holds them in at most 40 window heights at 1400x900, loading its previews lazily; keys
  /// move between photos and faces, toggle a face, approve, flag and undo; a click that moves 3 px
  /// toggles a face and a drag adds one; a reload asks first and keeps everything; the export
  /// carries the corrections and approvals; `apply --corrections` applies them with one photo
  /// made stale, skipping only that one (exit 1); "Undo all" asks, and starts afresh.
  @Test func anEventOf500PhotosIsReviewedByKeyboardInTheGrid() throws {
    let folder = try TemporaryFolder()
    let photos = folder.path("photos")
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let source = fixtures.appendingPathComponent("groundtruth/opencv-group1.jpg").path
    let first = folder.path("photos/p000.jpg")
    let small = runCLI(["render", source, "-o", first, "--max-size", "400", "-q"])
    try #require(small.status == 0, "\(small.err)")
    let blurred = runCLI(["apply", "--filter", "faceblur:detector=haar", "-q", first])
    try #require(blurred.status == 0, "\(blurred.err)")
    let sidecar = try String(contentsOfFile: first + ".photoedit.json", encoding: .utf8)
    for i in 1..<500 {
      let name = String(format: "p%03d.jpg", i)
      try FileManager.default.copyItem(atPath: first, toPath: folder.path("photos/\(name)"))
      try FileManager.default.copyItem(
        atPath: first + ".original", toPath: folder.path("photos/\(name).original"))
      try sidecar.replacingOccurrences(of: "p000.jpg", with: name).write(
        toFile: folder.path("photos/\(name).photoedit.json"), atomically: false, encoding: .utf8)
    }
    let page = folder.path("review.html")
    let reviewed = runCLI(["review", photos, "-o", page, "-q"])
    try #require(reviewed.status == 0, "\(reviewed.err)")
    let faceCount = try Self.faceblur(first).faces.count
    try #require(faceCount == 7)

    let downloads = folder.path("downloads")
    try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: Self.gridScreenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
    let run = try run(
      [
        page, "--event", "--downloads", downloads, "--screenshot", Self.gridScreenshot.path, "--size",
        "1400,900",
      ],
      as: EventRun.self)
    #expect(run.console.isEmpty, "the browser reported: \(run.console)")
    // The contract: one element per photo, one per face, all hidden and unreviewed at first.
    #expect(run.before.photoElements == 500)
    #expect(run.before.faceElements == 500 * faceCount)
    #expect(
      run.before.photos.values.allSatisfy { p in
        p.review == "unreviewed" && p.faces.values.allSatisfy { $0 == "hidden" }
      })

    // The grid: the default above 50 photos, several per row, 500 photos in at most 40 window
    // heights, and not every preview loaded at once.
    #expect(run.grid.grid)
    #expect(run.grid.innerWidth == 1400 && run.grid.innerHeight == 900)
    #expect(run.grid.columns >= 4, "\(run.grid)")
    #expect(run.grid.scrollHeightScrolled <= 40 * run.grid.innerHeight, "\(run.grid)")
    #expect(run.grid.scrollHeight <= 40 * run.grid.innerHeight, "\(run.grid)")
    #expect(run.grid.images == 1000)
    #expect(run.grid.imagesLoaded < 250, "\(run.grid)")
    // Only the page's own files were read.
    #expect(!run.resources.isEmpty)
    #expect(
      run.resources.allSatisfy {
        $0.hasPrefix("file://" + folder.path("review_files") + "/")
      }, "\(run.resources)")

    // The keys.
    let o = run.before.order
    typealias Step = EventRun.Step
    let expected: [Step] = [
      Step(key: "j", current: o[0], face: nil), Step(key: "j", current: o[1], face: nil),
      Step(key: "k", current: o[0], face: nil), Step(key: "n", current: o[0], face: 0),
      Step(key: "n", current: o[0], face: 1), Step(key: "p", current: o[0], face: 0),
      Step(key: "x", current: o[0], face: 0), Step(key: "a", current: o[1], face: nil),
      Step(key: "f", current: o[2], face: nil), Step(key: "u", current: o[2], face: nil),
      // After the click on o[2] and the drag on o[3]:
      Step(key: "a", current: o[4], face: nil), Step(key: "k", current: o[3], face: nil),
      Step(key: "k", current: o[2], face: nil), Step(key: "a", current: o[3], face: nil),
      Step(key: "j", current: o[4], face: nil), Step(key: "n", current: o[4], face: 0),
      Step(key: "z", current: o[4], face: 0), Step(key: "Escape", current: o[4], face: 0),
    ]
    #expect(run.steps == expected)
    let after = run.afterKeys
    #expect(after.photos[o[0]]?.faces["0"] == "excluded")
    #expect(after.photos[o[0]]?.faces.values.filter { $0 == "hidden" }.count == faceCount - 1)
    #expect(after.photos[o[0]]?.review == "approved")
    #expect(after.photos[o[1]] == run.before.photos[o[1]], "the flag was undone")
    #expect(after.photos[o[2]]?.faces["3"] == "excluded", "a 3 px press is a click")
    #expect(after.photos[o[2]]?.faces.count == faceCount, "and adds no box")
    #expect(after.photos[o[3]]?.faces["\(faceCount)"] == "added")
    #expect(after.photos[o[3]]?.review == "approved")
    #expect(after.faceElements == run.before.faceElements + 2)
    #expect(after.photos[o[2]]?.review == "approved")
    #expect(after.photos.filter { $0.value.review != "unreviewed" }.keys.sorted() == [o[0], o[2], o[3]])

    // The loupe ('z') on the fifth photo's face 0: the render at 4 times its size on the page,
    // centred on the face, with every face's box; a drag in it of 60x72 loupe pixels around the
    // face draws a box a quarter of that on the preview, where the face is.
    #expect(run.loupe.open)
    #expect(run.loupe.zoom >= 4 - 1e-6, "\(run.loupe)")
    #expect(run.loupe.src.hasSuffix("-render.jpg"), "\(run.loupe.src)")
    #expect(run.loupe.faceBoxes == faceCount)
    #expect(abs(run.loupe.faceFromMiddle[0]) < 2 && abs(run.loupe.faceFromMiddle[1]) < 2, "\(run.loupe)")
    let face = run.loupe.face
    let drawn = run.loupeDrawn
    let width = 60 / (4 * run.loupe.shownWidth)
    #expect(abs(drawn[0] + drawn[2] / 2 - (face[0] + face[2] / 2)) < 0.01, "drawn \(drawn), face \(face)")
    #expect(abs(drawn[2] - width) < 0.15 * width, "drawn \(drawn), expected width \(width)")
    #expect(after.photos[o[4]]?.faces["\(faceCount)"] == "added")
    #expect(!run.loupeOpenAfterEscape)

    // Leaving asks first while nothing is exported; a reload keeps every correction and
    // approval; after the export, leaving does not ask.
    #expect(run.asksBeforeLeaving)
    #expect(!run.asksAfterExport)
    #expect(run.afterReload.photos == after.photos)
    #expect(run.saved.contains("Restored 4 photos"), "\(run.saved)")
    #expect(run.savedAfterExport.contains("exported"), "\(run.savedAfterExport)")

    // "Undo all" asks; declined, nothing changes; accepted, the page starts afresh.
    #expect(run.undoAllQuestion.contains("Undo every correction and approval"))
    #expect(run.afterUndoAllDeclined.photos == after.photos)
    #expect(run.afterUndoAll.photos == run.before.photos)
    #expect(run.storedAfterUndoAll == nil)

    // The export carries the corrections and the approvals.
    let exported = try #require(run.corrections)
    let file =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported)))
      as! [String: Any]
    let entries = file["photos"] as! [[String: Any]]
    #expect(entries.map { $0["photo"] as! String }.sorted() == [o[0], o[2], o[3], o[4]])
    let approvals = (file["reviewed"] as! [[String: String]]).map { [$0["photo"]!, $0["state"]!] }
    #expect(
      approvals.sorted { $0[0] < $1[0] } == [[o[0], "approved"], [o[2], "approved"], [o[3], "approved"]])

    // o[2] edited since the review (its faces found again with a larger smallest face): applying
    // skips it by name, applies the others, exits 1.
    let stale = folder.path("photos/\(o[2])")
    let edited = runCLI(["edit", stale, "--step", "1", "--set", "minFace=60"])
    try #require(edited.status == 0, "\(edited.err)")
    let staleFaces = try Self.faceblur(stale)
    try #require(staleFaces.faces.count != faceCount, "minFace=60 found the same \(faceCount) faces")
    let original0 = try decodeFile(folder.path("photos/\(o[0]).original"))
    let applied = runCLI(["apply", "--corrections", exported, photos])
    #expect(applied.status == 1, "\(applied.err)")
    let skipped = applied.err.split(separator: "\n").filter { $0.hasSuffix("; skipped") }
    // Its correction and its approval, each on its own line.
    #expect(
      skipped.count == 2 && skipped[0].contains("photo '\(o[2])': step 1's faces are not the ones reviewed")
        && skipped[1].contains("photo '\(o[2])' was edited since the page was made"),
      "\(applied.err)")
    // Each approval exported names the render the page showed; the others are recorded in their
    // sidecars with the render their correction made, in the same store operation.
    #expect((file["reviewed"] as! [[String: String]]).allSatisfy { $0["render"]?.count == 64 })
    for name in [o[0], o[3]] {
      let sidecar =
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: URL(fileURLWithPath: folder.path("photos/\(name).photoedit.json"))))
        as! [String: Any]
      let review = sidecar["review"] as? [String: Any]
      #expect(review?["state"] as? String == "approved")
      #expect(review?["render"] as? String == (sidecar["render"] as? [String: Any])?["sha256"] as? String)
    }
    let staleSidecar = try String(contentsOfFile: stale + ".photoedit.json", encoding: .utf8)
    #expect(!staleSidecar.contains("\"review\""))
    #expect(try Self.faceblur(folder.path("photos/\(o[0])")).exclude == [0])
    #expect(try Self.faceblur(folder.path("photos/\(o[3])")).add.count == 1)
    #expect(try Self.faceblur(folder.path("photos/\(o[4])")).add.count == 1)
    #expect(try Self.faceblur(stale).exclude == [])
    let faces0 = try Self.faceblur(folder.path("photos/\(o[0])")).faces
    let render0 = try decodeFile(folder.path("photos/\(o[0])"))
    #expect(meanDifference(render0, original0, inside: faces0[0]) < 3)
    #expect(meanDifference(render0, original0, inside: faces0[1]) > 8)
    let shot = try Data(contentsOf: Self.gridScreenshot)
    #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }

  /// What the loupe run (`review_browser.py --loupe`) saw.
  struct LoupeRun: Decodable {
    struct Loupe: Decodable {
      var open: Bool
      var shown: Bool
      var src: String
      var naturalSize: [Int]
      var zoom: Double
      var previewNaturalWidth: Int
      var shownWidth: Double
      var rect: [Double]
      var detailSize: [Int]
      var detailInLoupe: [Double]
      var loupeSize: [Double]
      var face: [Double]
      var faceFromMiddle: [Double]
      var caption: String
      var previewSrc: String
      var detailImages: Int
    }
    struct State: Decodable {
      var shown: Bool
      var src: String
      var zoom: Double
    }
    var detailImagesBefore: Int
    var loupe: Loupe
    var loupeDrawn: [Double]
    var pointerAway: State
    var pointerOnFace: State
    var console: [String]
  }

  /// The loupe on a face of a photo whose previews (256 px here) show less than the photo has:
  /// it loads that face's detail (its region cut from the full-size render, and nothing before
  /// it was asked for), with more pixels across the region than the preview, zooms until the
  /// region fills it, centred on the face; a drag in it still draws a box exactly where it is on
  /// the photo; away from every face it shows the preview at 4x, and on the face the detail again.
  @Test func theLoupeShowsAFaceFromItsFullSizeDetail() throws {
    let f = try ReviewFixture()
    let r = f.review(["--max-size", "256"])
    try #require(r.status == 0, "\(r.err)")
    try FileManager.default.createDirectory(
      at: Self.loupeScreenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
    let run = try run(
      [
        f.page, "--loupe", "ultralytics-bus.jpg:1", "--screenshot", Self.loupeScreenshot.path, "--size",
        "1280,860",
      ],
      as: LoupeRun.self)
    #expect(run.console.isEmpty, "the browser reported: \(run.console)")
    #expect(run.detailImagesBefore == 0, "details load only in the loupe")
    let l = run.loupe
    #expect(l.open && l.shown, "\(l)")
    #expect(l.src.hasPrefix("review_files/") && l.src.hasSuffix("-render-face1.jpg"), "\(l.src)")
    #expect(l.previewSrc.hasSuffix("-render.jpg"), "\(l.previewSrc)")
    #expect(l.detailImages == 1, "only the loupe's detail is loaded")
    // The detail file is what the page says it is, and has more pixels across the face's
    // region than the preview (at least 1.5 times: here the photo's 810 against 192).
    #expect(l.naturalSize == l.detailSize, "\(l)")
    let file = try decodeFile(f.folder.path(l.src))
    #expect([file.width, file.height] == l.naturalSize)
    #expect(Double(l.naturalSize[0]) >= 1.5 * l.rect[2] * Double(l.previewNaturalWidth), "\(l)")
    // The region fills the loupe (one side exactly), laid where the preview has it: the face in
    // the middle.
    let fill = max(l.detailInLoupe[2] / l.loupeSize[0], l.detailInLoupe[3] / l.loupeSize[1])
    #expect(abs(fill - 1) < 0.01, "\(l)")
    #expect(l.zoom > 4, "\(l)")
    #expect(abs(l.detailInLoupe[2] - l.rect[2] * l.shownWidth * l.zoom) < 1, "\(l)")
    #expect(abs(l.faceFromMiddle[0]) < 2 && abs(l.faceFromMiddle[1]) < 2, "\(l)")
    #expect(l.caption.contains("detail of \(l.naturalSize[0])x\(l.naturalSize[1]) px"), "\(l.caption)")
    // A drag of 60x72 loupe pixels centred on the face: a box centred on it, 60 / (zoom x the
    // preview's width on the page) of the photo wide.
    let (face, drawn) = (l.face, run.loupeDrawn)
    let width = 60 / (l.zoom * l.shownWidth)
    #expect(abs(drawn[0] + drawn[2] / 2 - (face[0] + face[2] / 2)) < 0.005, "drawn \(drawn), face \(face)")
    #expect(abs(drawn[1] + drawn[3] / 2 - (face[1] + face[3] / 2)) < 0.005, "drawn \(drawn), face \(face)")
    #expect(abs(drawn[2] - width) < 0.15 * width, "drawn \(drawn), expected width \(width)")
    // The pointer: away from the faces, the preview at 4x; on the face, its detail.
    #expect(!run.pointerAway.shown && abs(run.pointerAway.zoom - 4) < 1e-9, "\(run.pointerAway)")
    #expect(run.pointerOnFace.shown && run.pointerOnFace.src == l.src, "\(run.pointerOnFace)")
    #expect(try Data(contentsOf: Self.loupeScreenshot).starts(with: [0x89, 0x50, 0x4E, 0x47]))
  }

  /// A photo's faceblur step (the first) from its sidecar.
  static func faceblur(_ photo: String) throws -> (exclude: [Int], add: [Any], faces: [[Double]]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json"))
    let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    let step = (json["operations"] as! [[String: Any]])[0]
    let parameters = step["parameters"] as! [String: Any]
    let faces = (step["derived"] as! [String: Any])["faces"] as! [[String: Double]]
    return (
      parameters["exclude"] as? [Int] ?? [], parameters["add"] as? [Any] ?? [],
      faces.map { [$0["x"]!, $0["y"]!, $0["width"]!, $0["height"]!] }
    )
  }
}
