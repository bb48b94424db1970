import Codecs
import Foundation
import PhotoCore
import Synchronization
import Testing

/// The loupe's details (issue 38, item 2): `review` writes, for each face of each photo's
/// faceblur step, its region (the box and half its size around it) cut from the full-size render
/// and original, at most `ReviewItem.detailSize` (384) pixels on its longest side, beside the
/// previews and as private as they are.
@Suite struct ReviewDetailTests {
  /// A detail as the page names it: the photo, the view (`render`, `original`), the face, its
  /// URL, the fractions of the view it covers and its size in pixels.
  struct Detail {
    var photo: String, kind: String, face: Int, url: String
    var rect: [Double], size: [Int]
  }

  /// Every face box's detail on the page.
  static func details(_ html: String) -> [Detail] {
    var out: [Detail] = []
    let box = try! NSRegularExpression(
      pattern:
        #"<div class="box" data-box="(\d+)"[^>]*? data-detail="([^"]+)" data-detail-rect="([^"]+)" data-detail-size="([^"]+)""#
    )
    for section in html.components(separatedBy: "<section").dropFirst() {
      guard let photo = PageMarkup.attribute("data-photo", in: section) else { continue }
      for figure in section.components(separatedBy: "<figure").dropFirst() {
        let kind = PageMarkup.attribute("data-kind", in: figure) ?? "?"
        let ns = figure as NSString
        for m in box.matches(in: figure, range: NSRange(location: 0, length: ns.length)) {
          let group = { (i: Int) in ns.substring(with: m.range(at: i)) }
          out.append(
            Detail(
              photo: photo, kind: kind, face: Int(group(1))!, url: group(2),
              rect: group(3).split(separator: " ").map { Double($0)! },
              size: group(4).split(separator: " ").map { Int($0)! }))
        }
      }
    }
    return out
  }

  /// The pixels of `image` a detail's rectangle covers.
  static func cut(_ image: Image, _ rect: [Double]) -> Image {
    let (w, h) = (Double(image.width), Double(image.height))
    let x0 = Int((rect[0] * w).rounded())
    let y0 = Int((rect[1] * h).rounded())
    let x1 = Int(((rect[0] + rect[2]) * w).rounded())
    let y1 = Int(((rect[1] + rect[3]) * h).rounded())
    return image.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// Two photos faceblurred (Haar), one with a box added over 40% of it, reviewed with
  /// 256-pixel previews under umask 000: every face has a detail on the render and on the
  /// original, each the size of its region at full size, or 384 pixels on its longest side when
  /// that is more; the render's hidden faces are as hidden in its details as in the render (its
  /// pixels, not the original's); every file is 0600 in a 0700 folder.
  @Test func eachFaceHasAFullSizeDetailOnTheRenderAndTheOriginal() throws {
    let f = try ReviewFixture()
    let bus = f.path("ultralytics-bus.jpg")
    let added = runCLI(["edit", bus, "--step", "1", "--set", "add=30%:30%:40%:40%", "-q"])
    try #require(added.status == 0, "\(added.err)")
    let run = try launch(
      [
        "-c", "umask 000 && exec \"$0\" \"$@\"", photoeditBinary.path, "review", f.photos, "-o", f.page,
        "--max-size", "256", "-q",
      ],
      executable: "/bin/sh", deadline: 120)
    try #require(run.status == 0, "\(run.err)")
    let details = Self.details(f.html)
    var capped = 0
    for name in ["ultralytics-bus.jpg", "opencv-group1.jpg"] {
      let faces = try f.faceblur(name).faces
      try #require(faces.count >= 3, "\(name)")
      let render = try decodeFile(f.path(name))
      let original = try decodeFile(f.path(name + ".original"))
      for (k, face) in faces.enumerated() {
        let mine = details.filter { $0.photo == name && $0.face == k }
        #expect(Set(mine.map(\.kind)) == ["render", "original"], "\(name) face \(k): \(mine.map(\.kind))")
        for d in mine {
          #expect(d.url.hasPrefix("review_files/") && d.url.hasSuffix("-\(d.kind)-face\(k).jpg"), "\(d.url)")
          let file = f.folder.path(d.url)
          let detail = try decodeFile(file)
          let size: [Int] = [detail.width, detail.height]
          #expect(size == d.size)
          // The region: the face's box with half its size on each side, within the photo.
          let b = face
          let expected = [
            max(0, b[0] - b[2] / 2), max(0, b[1] - b[3] / 2), min(1, b[0] + 1.5 * b[2]),
            min(1, b[1] + 1.5 * b[3]),
          ]
          let got = [d.rect[0], d.rect[1], d.rect[0] + d.rect[2], d.rect[1] + d.rect[3]]
          for (g, e) in zip(got, expected) { #expect(abs(g - e) < 2 / Double(render.width), "\(name) \(k)") }
          let full = Self.cut(d.kind == "render" ? render : original, d.rect)
          let sameSize: Bool = detail.width == full.width && detail.height == full.height
          if max(full.width, full.height) <= 384 {
            #expect(sameSize, "\(name) \(k): full size \(full.width)x\(full.height), not \(d.size)")
            guard sameSize else { continue }
          } else {
            #expect(max(detail.width, detail.height) == 384, "\(name) \(k): capped")
            capped += 1
            continue
          }
          // The detail holds the stage's own pixels (up to the JPEG encoding).
          #expect(meanDifference(detail, full, inside: [0, 0, 1, 1]) < 6, "\(name) \(k) \(d.kind)")
          if d.kind == "render" {
            // Inside the face, the render's detail is the hidden face, not the original's.
            let inFace = [
              (b[0] - d.rect[0]) / d.rect[2], (b[1] - d.rect[1]) / d.rect[3], b[2] / d.rect[2],
              b[3] / d.rect[3],
            ]
            let originalHere = Self.cut(original, d.rect)
            #expect(meanDifference(detail, originalHere, inside: inFace) > 8, "\(name) face \(k) shows")
          }
        }
      }
    }
    #expect(capped == 2, "the added box's region is more than 384 pixels, on both views")
    // Private: 0600 files in a 0700 folder, whatever the umask; nothing else beside the page.
    let beside = try ReviewPrivacyTests.modes(f.folder.path(""))
    #expect(beside["review.html"] == 0o600 && beside["review_files"] == 0o700, "\(beside)")
    let files = try ReviewPrivacyTests.modes(f.previews)
    #expect(files.values.allSatisfy { $0 == 0o600 }, "\(files)")
    // The marker, five previews (two photos' render and original, the unedited one's), a detail
    // per face and view, and one per region the second look found (on the render).
    let named = f.html.components(separatedBy: " data-detail=\"review_files/").dropFirst().map {
      String($0.prefix { $0 != "\"" })
    }
    #expect(Set(named).count == named.count && named.count >= details.count)
    #expect(named.filter { !$0.contains("-face") }.allSatisfy { $0.contains("-render-seen") }, "\(named)")
    #expect(files.count == 1 + 5 + named.count, "\(files.keys.sorted())")
    #expect(named.allSatisfy { files[$0] != nil })
  }

  /// Previews of at most the photo's own size add nothing to see: no detail is written (the
  /// default 1024-pixel previews of these photos of at most 1080 pixels); nor with
  /// `--no-details`, where the previews would gain from them.
  @Test(arguments: [[], ["--max-size", "256", "--no-details"]])
  func noDetailWhereThePreviewShowsAsMuchOrNoneIsAsked(options: [String]) throws {
    let f = try ReviewFixture()
    try #require(f.review(options).status == 0)
    #expect(Self.details(f.html).isEmpty)
    #expect(!f.html.contains("data-detail="))
    #expect(try FileManager.default.contentsOfDirectory(atPath: f.previews).count == 1 + 5)
  }

  /// Links planted in the staging folder where details will be written, while review runs: no
  /// file a link names is touched, the photos whose details meet a link fail (`File exists`,
  /// exit 1), as their previews would. Forty photos and one worker give the attacker time; the
  /// test asserts that the attack happened.
  @Test func noDetailIsWrittenThroughAPlantedLink() throws {
    let root = try TemporaryFolder()
    for folder in ["photos", "victims", "pages"] {
      try FileManager.default.createDirectory(atPath: root.path(folder), withIntermediateDirectories: false)
    }
    let first = try root.copy("groundtruth/opencv-group1.jpg", as: "photos/p01.jpg")
    let blurred = runCLI(["apply", "--filter", "faceblur:detector=haar", "-q", first])
    try #require(blurred.status == 0, "\(blurred.err)")
    let sidecar = try String(contentsOfFile: first + ".photoedit.json", encoding: .utf8)
    let count = 40
    for i in 1...count {
      let name = String(format: "p%02d.jpg", i)
      if i > 1 {
        try FileManager.default.copyItem(atPath: first, toPath: root.path("photos/\(name)"))
        try FileManager.default.copyItem(
          atPath: first + ".original", toPath: root.path("photos/\(name).original"))
        try sidecar.replacingOccurrences(of: "p01.jpg", with: name).write(
          toFile: root.path("photos/\(name).photoedit.json"), atomically: false, encoding: .utf8)
      }
      try Data("victim \(i)".utf8).write(to: URL(fileURLWithPath: root.path("victims/v\(i)")))
    }
    let pages = root.path("pages")
    let attack = ReviewPrivacyTests.Attack()
    let victims = root.path("victims")
    ReviewPrivacyTests.attacker(pages, attack) { folder in
      for i in 1...count {
        for view in ["render", "original"] {
          symlink(victims + "/v\(i)", folder + "/" + ReviewPrivacyTests.stem(i) + "-\(view)-face0.jpg")
        }
      }
      return true
    }.start()
    let run = try launch(
      ["review", root.path("photos"), "-o", pages + "/review.html", "--max-size", "256", "-j", "1", "-q"],
      deadline: 300)
    attack.done.store(true, ordering: .relaxed)
    _ = try #require(attack.staging.withLock { $0 }, "the attack came too late: \(run.err)")
    for i in 1...count {
      #expect(
        FileManager.default.contents(atPath: root.path("victims/v\(i)")) == Data("victim \(i)".utf8), "v\(i)")
    }
    #expect(run.status == 1, "\(run.err)")
    #expect(run.err.contains("File exists"), "\(run.err)")
  }
}
