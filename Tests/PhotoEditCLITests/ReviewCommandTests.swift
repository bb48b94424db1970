import Codecs
import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// `photoedit review`: the page's contract (one `data-photo` element per photo, one `data-face`
/// per face with its state), its previews, and how it is written and replaced.
@Suite struct ReviewCommandTests {
  @Test func onePhotoElementPerPhotoAndOneFaceElementPerFace() throws {
    let f = try ReviewFixture()
    try FileManager.default.createDirectory(atPath: f.path("sub"), withIntermediateDirectories: true)
    try f.folder.copy("faces/hopper.jpg", as: "photos/sub/hopper.jpg")
    #expect(runCLI(["apply", "--filter", "sepia", f.path("sub/hopper.jpg")]).status == 0)
    // Face 1 of the group excluded, and a box added: numbered after the 7 found.
    let edit = runCLI([
      "edit", f.path("opencv-group1.jpg"), "--step", "1", "--set", "exclude=1,add=1%:2%:5%:6%",
    ])
    #expect(edit.status == 0, "\(edit.err)")
    let r = f.review()
    #expect(r.status == 0, "\(r.err)")
    let page = PageMarkup(f.html)
    #expect(
      Set(page.sections.map(\.name))
        == ["ultralytics-bus.jpg", "opencv-group1.jpg", "astronaut.png", "sub/hopper.jpg"])
    #expect(page.count(" data-photo=\"") == 4)
    let bus = page.faces(of: "ultralytics-bus.jpg")
    #expect(bus.map(\.number) == Array(0..<(try f.faceblur("ultralytics-bus.jpg").faces.count)))
    #expect(bus.allSatisfy { $0.state == "hidden" })
    let group = page.faces(of: "opencv-group1.jpg")
    #expect(group.count == 8)
    #expect(group.first { $0.number == 1 }?.state == "excluded")
    #expect(group.first { $0.number == 7 }?.state == "added")
    #expect(group.filter { $0.state == "hidden" }.count == 6)
    #expect(page.count(" data-face=\"") == bus.count + group.count)
    // Each face is one element, though its box is drawn on both previews.
    let groupMarkup = page.sections.first { $0.name == "opencv-group1.jpg" }!.markup
    #expect(groupMarkup.components(separatedBy: "class=\"box\"").count - 1 == 16)
    #expect(groupMarkup.contains("<span>7+</span>"))
    // Photos without faceblur are shown plainly, their other edits listed.
    #expect(page.faces(of: "astronaut.png").isEmpty && page.faces(of: "sub/hopper.jpg").isEmpty)
    let hopper = page.sections.first { $0.name == "sub/hopper.jpg" }!.markup
    #expect(hopper.contains("1. sepia v1 intensity=1"))
    #expect(hopper.contains("No faceblur step"))
    // The warning about the unredacted previews, at the top.
    #expect(f.html.contains("Unredacted previews"))
    #expect(f.html.range(of: "Unredacted")!.lowerBound < f.html.range(of: "<main")!.lowerBound)
  }

  /// Up to 50 photos the page opens with one photo per row; above, as the grid. Every photo starts
  /// unreviewed, with its Approve and Flag buttons.
  @Test(arguments: [50, 51])
  func aPageOfMoreThan50PhotosOpensAsAGrid(count: Int) throws {
    let root = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: root.path("photos"), withIntermediateDirectories: false)
    for i in 0..<count { try root.copy("photos/coffee.png", as: "photos/p\(i).png") }
    let r = runCLI(["review", root.path("photos"), "-o", root.path("review.html"), "-q"])
    #expect(r.status == 0, "\(r.err)")
    let html = try String(contentsOfFile: root.path("review.html"), encoding: .utf8)
    let grid = count > 50
    #expect(html.contains(grid ? "<body class=\"layout-both view-grid\">" : "<body class=\"layout-both\">"))
    #expect(html.contains(grid ? "<option value=\"grid\" selected>" : "<option value=\"list\" selected>"))
    let markup = PageMarkup(html)
    #expect(markup.sections.count == count)
    #expect(markup.count(" data-review=\"unreviewed\"") == count)
    #expect(markup.count("data-review-to=\"approved\"") == count)
    #expect(markup.count("data-review-to=\"flagged\"") == count)
  }

  @Test func thePageIsSelfContained() throws {
    let f = try ReviewFixture()
    #expect(f.review().status == 0)
    let html = f.html
    #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("//cdn"))
    #expect(!html.contains("<link") && !html.contains("<script src") && !html.contains("@import"))
    #expect(html.contains("default-src 'none'"))
    // Every image the page names is in its folder, at most --max-size on its longest side.
    let sources = html.components(separatedBy: " src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
    #expect(sources.count == 5)  // two group photos with two previews, one unedited photo
    // The sizes of the photos sorted by path: the astronaut, the group, the bus.
    let longest = ["00001": 512, "00002": 640, "00003": 1024]
    for source in sources {
      #expect(source.hasPrefix("review_files/"))
      let image = try decodeFile(f.folder.path(String(source)))
      let stem = String(source.dropFirst("review_files/".count).prefix(5))
      #expect(max(image.width, image.height) == longest[stem], "\(source)")  // never enlarged
    }
  }

  @Test func previewsShowTheRenderAndTheOriginal() throws {
    let f = try ReviewFixture(unedited: [])
    #expect(f.review(["--max-size", "400"]).status == 0)
    // (The loupe's details of each face, `-face3.jpg`, `-seen0.jpg`: ReviewDetailTests.)
    let names = try FileManager.default.contentsOfDirectory(atPath: f.previews).sorted()
      .filter { !$0.contains("-face") && !$0.contains("-seen") }
    #expect(
      names == [
        ".photoedit-review", "00001-original.jpg", "00001-render.jpg", "00002-original.jpg",
        "00002-render.jpg",
      ])
    // 00002 is the bus (sorted by path): its faces are pixelated in the render only.
    let render = try decodeFile(f.previews + "/00002-render.jpg")
    let original = try decodeFile(f.previews + "/00002-original.jpg")
    #expect(max(render.width, render.height) == 400)
    let face = try f.faceblur("ultralytics-bus.jpg").faces[1]
    #expect(meanDifference(render, original, inside: face) > 8)
    #expect(meanDifference(render, original, inside: [0.05, 0.7, 0.3, 0.25]) < 2)
  }

  @Test func noOriginalsLeavesOutTheUnredactedPreviews() throws {
    let f = try ReviewFixture()
    let r = f.review(["--no-originals"])
    #expect(r.status == 0)
    let names = try FileManager.default.contentsOfDirectory(atPath: f.previews)
    #expect(!names.contains { $0.contains("original") })
    #expect(names.filter { $0.hasSuffix("-render.jpg") }.count == 3)
    #expect(!f.html.contains("Unredacted previews"))
    // The boxes are drawn on the render, the one preview there is.
    let page = PageMarkup(f.html)
    let bus = page.sections.first { $0.name == "ultralytics-bus.jpg" }!.markup
    #expect(
      bus.components(separatedBy: "class=\"box\"").count - 1 == page.faces(of: "ultralytics-bus.jpg").count)
  }

  @Test func aRerunReplacesThePageAndItsPreviews() throws {
    let f = try ReviewFixture()
    #expect(f.review().status == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: f.previews).count == 6)
    #expect(f.review(operands: [f.path("astronaut.png")]).status == 0)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: f.previews).sorted() == [
        ".photoedit-review", "00001-render.jpg",
      ])
    #expect(PageMarkup(f.html).sections.count == 1)
    // Nothing else is left beside the page: no staging folder, no old folder, no temporary page.
    #expect(f.folder.names() == ["photos", "review.html", "review_files"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: f.folder.url.path).sorted() == [
        "photos", "review.html", "review_files",
      ])
  }

  @Test func refusesToReplaceWhatIsNotAReview() throws {
    let f = try ReviewFixture(blurred: [])
    f.folder.write("review.html", Array("<html>my notes</html>".utf8))
    let r = f.review()
    #expect(r.status == 73)
    #expect(
      r.err == "photoedit: \(f.page): exists and is not a photoedit review page; use --force to replace it\n")
    #expect(f.html == "<html>my notes</html>")
    #expect(!f.folder.exists("review_files"))
    #expect(f.review(["--force"]).status == 0)
    #expect(f.html.contains("photoedit review"))
    // A previews folder photoedit did not make is never replaced or removed.
    try FileManager.default.removeItem(atPath: f.previews)
    try FileManager.default.createDirectory(atPath: f.previews, withIntermediateDirectories: false)
    f.folder.write("review_files/mine.jpg", [1, 2, 3])
    let again = f.review(["--force"])
    #expect(again.status == 73)
    #expect(again.err.contains("is not a review's previews folder"))
    #expect(f.folder.read("review_files/mine.jpg") == [1, 2, 3])
  }

  @Test func refusesAPageInsideTheReviewedFolder() throws {
    let f = try ReviewFixture(blurred: [])
    let r = runCLI(["review", f.photos, "-o", f.path("out/review.html")])
    #expect(r.status == 64)
    #expect(r.err.contains("write the page elsewhere"))
    let file = runCLI(["review", f.path("astronaut.png"), "-o", f.path("review.html")])
    #expect(file.status == 64)
    #expect(!FileManager.default.fileExists(atPath: f.path("review.html")))
    #expect(runCLI(["review", f.photos, "-o", f.folder.path("review.txt")]).status == 64)
    #expect(runCLI(["review", f.photos]).status == 64)
    // Through a link to the reviewed folder, into a folder that does not exist yet.
    try FileManager.default.createSymbolicLink(atPath: f.folder.path("elsewhere"), withDestinationPath: f.photos)
    let linked = runCLI(["review", f.photos, "-o", f.folder.path("elsewhere/new/review.html")])
    #expect(linked.status == 64, "\(linked.err)")
    #expect(linked.err.contains("write the page elsewhere"))
    #expect(!FileManager.default.fileExists(atPath: f.photos + "/new"))
  }

  @Test func whatNeedsALookComesFirst() throws {
    // coffee.png has no face; hopper.jpg's one face is small at 128 px wide.
    let f = try ReviewFixture(
      blurred: ["groundtruth/opencv-group1.jpg", "photos/coffee.png"], unedited: ["faces/astronaut.png"])
    try f.folder.copy("groundtruth/ultralytics-bus.jpg", as: "photos/bus.jpg")
    #expect(runCLI(["apply", "--filter", "faceblur", f.path("bus.jpg")]).status == 0)
    // A render changed by another program is a problem to look at first.
    try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: f.path("bus.jpg")))
    #expect(f.review().status == 0)
    let page = PageMarkup(f.html)
    // The Haar cascade misses faces of the group that CenterFace's second look finds: it comes
    // before the cup, where no face was found and none shows (a weaker signal).
    #expect(page.sections.map(\.name) == ["bus.jpg", "astronaut.png", "opencv-group1.jpg", "coffee.png"])
    let flags = page.sections.map { PageMarkup.attribute("data-flags", in: $0.markup) ?? "?" }
    #expect(flags[0].hasPrefix("problem"))
    #expect(flags[1] == "unedited")
    #expect(flags[2].hasPrefix("face-visible"))
    #expect(flags[3] == "no-faces")
    #expect(page.sections[0].markup.contains("modified"))
  }

  @Test func theSecondLookFlagsAFaceOutsideEveryBox() throws {
    // The Haar cascade finds neither face of the tilted photo (no box at all); CenterFace, on the
    // render's preview, finds them: the photo comes first, flagged, with the regions dotted.
    let f = try ReviewFixture(
      blurred: ["groundtruth/facetorch-rotated.jpg", "photos/coffee.png"], unedited: [])
    let r = runCLI(["review", f.photos, "-o", f.page])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains("2 photos, 0 faces, 1 to look at first"), "\(r.out)")
    let page = PageMarkup(f.html)
    #expect(page.sections.map(\.name) == ["facetorch-rotated.jpg", "coffee.png"])
    let tilted = page.sections[0].markup
    #expect(PageMarkup.attribute("data-flags", in: tilted) == "face-visible no-faces")
    #expect((Double(PageMarkup.attribute("data-visible", in: tilted) ?? "") ?? 0) >= 0.9)
    #expect(tilted.components(separatedBy: "class=\"seen\"").count - 1 >= 2)
    #expect(tilted.contains("Second look: CenterFace finds"))
    // No face found in the cup either, but nothing face-like: a weaker signal, not "first".
    #expect(PageMarkup.attribute("data-flags", in: page.sections[1].markup) == "no-faces")

    // Hidden by CenterFace, the same photo has nothing outside its boxes: no flag, no dotted box.
    let g = try ReviewFixture(blurred: [], unedited: ["groundtruth/facetorch-rotated.jpg"])
    #expect(runCLI(["apply", "--filter", "faceblur", "-q", g.path("facetorch-rotated.jpg")]).status == 0)
    #expect(g.review().status == 0)
    let hidden = PageMarkup(g.html).sections[0].markup
    #expect(PageMarkup.attribute("data-flags", in: hidden) == "")
    #expect(!hidden.contains("class=\"seen\""))
  }

  @Test func aFaceNearTheSmallestSearchedSizeIsFlagged() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    #expect(f.review().status == 0)
    let bus = PageMarkup(f.html).sections[0].markup
    // The bus's faces are 47 and 58 px wide: under twice the cascade's 24 px window. minFace=20
    // searches no smaller than that window.
    // (The cascade misses faces of the bus that the second look finds: `face-visible` first.)
    #expect(PageMarkup.attribute("data-flags", in: bus) == "face-visible small-faces")
    #expect(bus.contains("47 px"))
    let edit = runCLI(["edit", f.path("ultralytics-bus.jpg"), "--step", "1", "--set", "minFace=20"])
    #expect(edit.status == 0)
    #expect(f.review().status == 0)
    #expect(
      PageMarkup.attribute("data-flags", in: PageMarkup(f.html).sections[0].markup)
        == "face-visible small-faces")
  }

  @Test func aDamagedPhotoIsShownWithItsProblem() throws {
    let f = try ReviewFixture(unedited: [])
    try FileManager.default.removeItem(atPath: f.path("opencv-group1.jpg.original"))
    let r = f.review()
    #expect(r.status == 0, "\(r.err)")
    let page = PageMarkup(f.html)
    let group = page.sections.first { $0.name == "opencv-group1.jpg" }!.markup
    #expect(group.contains("data-status=\"damaged\""))
    #expect(group.contains("is missing; restore it from a backup"))
    #expect(group.contains("data-correctable=\"false\""))
    #expect(page.faces(of: "opencv-group1.jpg").isEmpty)
    #expect(page.sections.first?.name == "opencv-group1.jpg")
  }

  @Test func aPhotoThatCannotBeReadFailsItsLineAndTheRestIsReviewed() throws {
    let f = try ReviewFixture(blurred: [])
    f.folder.write("photos/broken.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0])
    let r = f.review()
    #expect(r.status == 1)
    #expect(r.err.contains("photoedit: \(f.path("broken.jpg")): "))
    #expect(PageMarkup(f.html).sections.count == 2)
  }

  /// With one photo, the status is that photo's, as with every command: 66 when it is missing,
  /// 65 when it is not an image. A page with nothing to check is not written, and one already
  /// there stays.
  @Test func onePhotoThatFailsGivesItsOwnStatus() throws {
    let f = try ReviewFixture(blurred: [])
    f.folder.write("photos/broken.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0])
    for (name, status) in [("missing.jpg", Int32(66)), ("broken.jpg", 65)] {
      let r = runCLI(["review", f.path(name), "-o", f.folder.path("one.html")])
      #expect(r.status == status, "\(name): \(r.err)")
      let lines = r.err.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].hasPrefix("photoedit: \(f.path(name)): "), "\(r.err)")
    }
    #expect(
      runCLI(["review", f.path("missing.jpg"), "-o", f.folder.path("one.html")]).err.hasSuffix(
        ": no such file\n"))
    #expect(!FileManager.default.fileExists(atPath: f.folder.path("one.html")))
    #expect(!FileManager.default.fileExists(atPath: f.folder.path("one_files")))
    // Several photos that all fail: one line each and a summary; a page already there stays.
    _ = f.review()
    let before = f.html
    #expect(before.contains("<html"))
    let r = runCLI(["review", f.path("missing.jpg"), f.path("broken.jpg"), "-o", f.page])
    #expect(r.status == 1)
    #expect(
      r.err.hasSuffix("photoedit: none of the 2 photos could be previewed; no page written\n"), "\(r.err)")
    #expect(r.err.split(separator: "\n").count == 3)
    #expect(f.html == before)
  }
}

/// The boxes on a render whose later steps turn or crop the image.
@Suite struct ReviewGeometryTests {
  @Test func aTurnedRenderHasItsBoxesTurnedToo() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    try f.folder.copy("groundtruth/ultralytics-bus.jpg", as: "photos/turned.jpg")
    #expect(runCLI(["apply", "--filter", "rotate:angle=90", f.path("ultralytics-bus.jpg")]).status == 0)
    #expect(runCLI(["apply", "--filter", "rotate:angle=90", f.path("turned.jpg")]).status == 0)
    #expect(f.review().status == 0)
    let page = PageMarkup(f.html)
    let markup = page.sections.first { $0.name == "ultralytics-bus.jpg" }!.markup
    #expect(markup.contains("data-transform=\"0 1 -1 0 1 0\""))
    // Face 1's box as drawn on the render, against the same photo turned without faceblur.
    let face = try f.faceblur("ultralytics-bus.jpg").faces[1]
    let turned = [1 - face[1] - face[3], face[0], face[3], face[2]]
    let render = markup.components(separatedBy: "data-kind=\"render\"")[1].components(
      separatedBy: "</figure>")[0]
    let style = render.components(separatedBy: "data-box=\"1\"")[1].components(separatedBy: "\"")[3]
    let numbers = style.split(separator: ";").map { Double($0.split(separator: ":")[1].dropLast())! / 100 }
    for (a, b) in zip(numbers, turned) { #expect(abs(a - b) < 1e-4, "\(style) against \(turned)") }
    let blurred = try decodeFile(f.previews + "/00002-render.jpg")
    let plain = try decodeFile(f.previews + "/00001-render.jpg")
    #expect(blurred.width > blurred.height)  // turned: landscape now
    #expect(meanDifference(blurred, plain, inside: turned) > 8)
    #expect(meanDifference(blurred, plain, inside: [0, 0, 0.3, 0.3]) < 2)
  }

  @Test func aCroppedRenderHasNoBoxesButTheOriginalDoes() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    #expect(runCLI(["apply", "--filter", "crop:aspect=1:1", f.path("ultralytics-bus.jpg")]).status == 0)
    #expect(f.review().status == 0)
    let markup = PageMarkup(f.html).sections[0].markup
    let render = markup.components(separatedBy: "data-kind=\"render\"")[1].components(
      separatedBy: "</figure>")[0]
    #expect(!render.contains("class=\"box\"") && !render.contains("data-transform"))
    #expect(render.contains("boxes not drawn"))
    let original = markup.components(separatedBy: "data-kind=\"original\"")[1]
    #expect(original.contains("data-transform=\"1 0 0 1 0 0\""))
    #expect(markup.contains("2. crop v1"))
  }

  @Test func stepsBeforeFaceblurMakeTheSecondPreviewWhatFaceblurSaw() throws {
    let f = try ReviewFixture(blurred: [], unedited: ["groundtruth/ultralytics-bus.jpg"])
    #expect(
      runCLI(["apply", "--filter", "sepia", "--filter", "faceblur", f.path("ultralytics-bus.jpg")]).status
        == 0)
    #expect(f.review().status == 0)
    let markup = PageMarkup(f.html).sections[0].markup
    #expect(markup.contains("data-step=\"2\""))
    #expect(markup.contains("data-kind=\"before\""))
    #expect(markup.contains("before faceblur: the original with steps 1–1 (unredacted)"))
    // The second preview is sepia-toned, like the render outside the faces.
    let render = try decodeFile(f.previews + "/00001-render.jpg")
    let before = try decodeFile(f.previews + "/00001-original.jpg")
    #expect(meanDifference(render, before, inside: [0, 0.7, 0.5, 0.3]) < 2)
  }
}

/// `review --shard K/N`: one page per part, the parts disjoint and together every photo.
@Suite struct ReviewShardTests {
  @Test func theShardsPagesCoverEveryPhotoOnce() throws {
    let f = try ReviewFixture()
    var seen: [String] = []
    for k in 1...2 {
      let page = f.folder.path("review-\(k).html")
      let r = runCLI(["review", f.photos, "-o", page, "-q", "--shard", "\(k)/2"])
      #expect(r.status == 0, "\(r.err)")
      if FileManager.default.fileExists(atPath: page) {
        let names = PageMarkup(try String(contentsOfFile: page, encoding: .utf8)).sections.map(\.name)
        #expect(!names.isEmpty)
        for name in names {
          #expect(PhotoFolder.shard(of: name, count: 2) == k, "\(name) on page \(k)")
        }
        seen += names
      } else {
        #expect(r.err.isEmpty)
      }
    }
    #expect(seen.sorted() == ["astronaut.png", "opencv-group1.jpg", "ultralytics-bus.jpg"])
  }

  @Test func anEmptyShardWritesNoPage() throws {
    let f = try ReviewFixture(blurred: [], unedited: ["faces/astronaut.png"])
    let k = PhotoFolder.shard(of: "astronaut.png", count: 2) == 1 ? 2 : 1
    let r = runCLI(["review", f.photos, "-o", f.page, "--shard", "\(k)/2"])
    #expect(r.status == 0)
    #expect(r.err == "photoedit: nothing to do: shard \(k)/2 holds none of the 1 photo; no page written\n")
    #expect(!FileManager.default.fileExists(atPath: f.page))
    #expect(!FileManager.default.fileExists(atPath: f.previews))
  }
}
