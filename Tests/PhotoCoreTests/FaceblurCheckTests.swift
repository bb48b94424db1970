import Glibc
import Synchronization
import Testing

@testable import PhotoCore

/// faceblur's check of its own hiding, with a checker whose answers the test decides.
@Suite struct FaceblurCheckTests {
  /// A checker that finds a face over the middle of whatever region it is shown, the first
  /// `times` times it is asked (then none), and counts the questions.
  final class FindsAFewTimes: FaceDetector, @unchecked Sendable {
    let times: Int
    let asked = Mutex(0)
    init(times: Int) { self.times = times }
    var identity: DetectorIdentity { DetectorIdentity(name: "fake", version: 1) }
    func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
      let n = asked.withLock { n in
        n += 1
        return n
      }
      #expect(options.threshold == FaceblurFilter.checkThreshold)
      guard n <= times else { return [] }
      let (w, h) = (Double(image.width), Double(image.height))
      return [Face(x: w / 2 - 10, y: h / 2 - 10, width: 20, height: 20, score: 0.4)]
    }
  }

  /// One face of 40x40 in the middle of a 400x300 noise image.
  static let image = noiseImage(width: 400, height: 300, seed: 7)
  static let detector = Recording(faces: [Face(x: 180, y: 130, width: 40, height: 40)])

  static func make(_ values: [String: ParameterValue] = [:], checker: any FaceDetector) throws -> Step {
    try Filters.request("faceblur", values: values).resolve(
      in: ResolveContext(image: image, detector: detector, checker: checker))
  }

  @Test(arguments: [0, 1, 2, 5])
  func aFaceFoundAgainIsHiddenOneLevelMoreEachTime(times: Int) throws {
    let checker = FindsAFewTimes(times: times)
    let step = try Self.make(checker: checker)
    let (p, derived) = try #require(step.typed(FaceblurFilter.self))
    #expect(derived.level(0) == times)
    #expect(derived.levels == (times == 0 ? [] : [times]))
    #expect(checker.asked.withLock { $0 } == times + 1)
    // The render uses the stored level: the circle and blocks of that level, never checked again.
    var out = Self.image
    try step.render(on: &out)
    var expected = Self.image
    let (blocks, scale) = FaceblurFilter.strength(p, level: times)
    expected.pixelate(
      .circle(centerX: 199.5, centerY: 149.5, radius: scale * (2 * 1600.0).squareRoot() / 2),
      blockSize: max(4, Int((40 / Double(blocks)).rounded())))
    #expect(out == expected)
    #expect(checker.asked.withLock { $0 } == times + 1)
  }

  /// A checker that records what each focused search is asked: the region searched, the focus
  /// and the margin.
  final class RecordsFocus: FaceDetector, @unchecked Sendable {
    let asked = Mutex<[(PatchedImage, PixelRect, Int)]>([])
    var identity: DetectorIdentity { DetectorIdentity(name: "records-focus", version: 1) }
    func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
      Issue.record("the check searched a whole region, not around the face")
      return []
    }
    func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
      throws(DetectionError) -> [Face]
    {
      asked.withLock { $0.append((image, focus, margin)) }
      return []
    }
  }

  /// The checker is asked to search around the face's circle and box, at least the box's size
  /// around it: its scales need not search all of the crop. The crop it searches holds the
  /// rendered photo's pixels, though only the circle's were rendered: the rest are the photo's
  /// own, read in place.
  @Test func theCheckerSearchesAroundTheCircleAndBox() throws {
    let checker = RecordsFocus()
    let step = try Self.make(checker: checker)
    let asked = checker.asked.withLock { $0 }
    try #require(asked.count == 1)
    let (crop, focus, margin) = asked[0]
    // The circle: centre (200, 150), radius 1.3 × half the 40x40 box's diagonal (36.8), so
    // columns and rows 163 to 236; the crop: that grown by 128 (x 35 to 364, y 0 to 299).
    #expect(crop.rect == PixelRect(x: 35, y: 0, width: 330, height: 300))
    #expect(focus == PixelRect(x: 163 - 35, y: 113, width: 74, height: 74))
    #expect(margin == 40)
    // Rendered: the circle's footprint alone, not the crop.
    let patch = try #require(crop.patch)
    #expect(patch.rect.area < crop.rect.area / 10, "\(patch.rect)")
    #expect(patch.rect.contains(PixelRect(x: 164, y: 114, width: 72, height: 72)), "\(patch.rect)")
    // What it searched is the rendered photo's crop, byte for byte.
    var out = Self.image
    try step.render(on: &out)
    #expect(crop.image() == out.cropped(x: 35, y: 0, width: 330, height: 300))
    #expect(crop.image() != Self.image.cropped(x: 35, y: 0, width: 330, height: 300))
  }

  /// A checker that counts the searches in flight at once, each taking a while.
  final class CountsInFlight: FaceDetector, @unchecked Sendable {
    let counts = Mutex((now: 0, most: 0, searches: 0))
    var identity: DetectorIdentity { DetectorIdentity(name: "counts-in-flight", version: 1) }
    func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] { [] }
    func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
      throws(DetectionError) -> [Face]
    {
      counts.withLock { c in
        c.now += 1
        c.most = max(c.most, c.now)
        c.searches += 1
      }
      usleep(100_000)
      counts.withLock { $0.now -= 1 }
      return []
    }
  }

  /// Large faces' searches never run side by side (each would hold its buffers at once).
  @Test func largeSearchesRunAlone() throws {
    let image = noiseImage(width: 3000, height: 1600, seed: 9)
    // Boxes of 400: circle and box grown by 400 are about 1536x1536 pixels, over
    // `searchedAlone`.
    let faces = [0, 1, 2].map { Face(x: Double(300 + $0 * 900), y: 400, width: 400, height: 400) }
    let checker = CountsInFlight()
    _ = try Filters.request("faceblur", values: [:]).resolve(
      in: ResolveContext(image: image, detector: Recording(faces: faces), checker: checker))
    let counts = checker.counts.withLock { $0 }
    #expect(counts.searches == 3)
    #expect(counts.most == 1, "\(counts)")
  }

  @Test func theLevelsGrowStrongerUpToTheLast() {
    var p = FaceblurFilter.Parameters()
    var last = FaceblurFilter.strength(p, level: 0)
    #expect(last == (4, 1.3))
    for level in 1...FaceblurFilter.maxLevel {
      let next = FaceblurFilter.strength(p, level: level)
      #expect(next.blocks <= last.blocks && next.scale > last.scale)
      last = next
    }
    #expect(last.blocks == 1 && last.scale <= 4)
    p.scale = 4
    #expect(FaceblurFilter.strength(p, level: 3).scale == 4)
  }

  @Test func onFoundFailRefusesAtTheFirstFind() throws {
    #expect(
      throws: FilterError.faceStillFound(
        filter: "faceblur", face: 0, finding: .found(score: 0.4), level: 0, canStrengthen: false)
    ) {
      try Self.make(["onFound": .choice("fail")], checker: FindsAFewTimes(times: 1))
    }
    // Not found: the step is made as asked.
    let step = try Self.make(["onFound": .choice("fail")], checker: FindsAFewTimes(times: 0))
    #expect(step.typed(FaceblurFilter.self)?.derived.levels == [])
  }

  @Test func aFaceFoundAtTheStrongestLevelFailsTheStep() throws {
    #expect(
      throws: FilterError.faceStillFound(
        filter: "faceblur", face: 0, finding: .found(score: 0.4), level: FaceblurFilter.maxLevel,
        canStrengthen: true)
    ) {
      try Self.make(checker: FindsAFewTimes(times: 100))
    }
  }

  /// An excluded face is not checked; a face the checker finds that belongs to another face of
  /// the step (here the excluded one, overlapping it more) does not count against a hidden one.
  @Test func excludedFacesAreNotChecked() throws {
    let checker = FindsAFewTimes(times: 100)
    let step = try Self.make(["exclude": .integers([0])], checker: checker)
    #expect(checker.asked.withLock { $0 } == 0)
    #expect(step.typed(FaceblurFilter.self)?.derived.levels == [])
  }

  /// A face whose centre would not change is hidden more strongly, unless that centre is flat
  /// (it shows nothing): a grey patch passes at once.
  @Test func aFlatCentreNeedNotChange() throws {
    var image = Image(width: 200, height: 200, bytes: [UInt8](repeating: 128, count: 200 * 200 * 4))
    for y in 0..<200 {
      for x in 0..<200 where x < 30 || x > 170 { image[x, y] = RGBA(UInt8(x), 0, UInt8(y), 255) }
    }
    let step = try Filters.request("faceblur", values: [:]).resolve(
      in: ResolveContext(
        image: image, detector: Recording(faces: [Face(x: 90, y: 90, width: 20, height: 20)]),
        checker: FindsNothing()))
    #expect(step.typed(FaceblurFilter.self)?.derived.levels == [])
  }

  /// A checker that finds face `box` (pixels of `image`) in the first `times` regions it is shown
  /// that hold it and that `counts` (searches run in parallel: a neighbour's crop may hold the
  /// box too), and records where each region it is shown lies in `image` (found from its top
  /// row, which the test keeps out of every circle; nil when not found).
  final class FindsAt: FaceDetector, @unchecked Sendable {
    let image: Image, box: PixelRect, times: Int
    let counts: @Sendable (PixelRect) -> Bool
    let shown = Mutex<[PixelRect?]>([])
    let finds = Mutex(0)
    init(_ image: Image, box: PixelRect, times: Int, counts: @escaping @Sendable (PixelRect) -> Bool) {
      (self.image, self.box, self.times, self.counts) = (image, box, times, counts)
    }
    var identity: DetectorIdentity { DetectorIdentity(name: "finds-at", version: 1) }
    func faces(in region: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
      var place: PixelRect? = nil
      search: for y in 0...(image.height - region.height) {
        for x in 0...(image.width - region.width)
        where (0..<min(16, region.width)).allSatisfy({ region[$0, 0] == image[x + $0, y] }) {
          place = PixelRect(x: x, y: y, width: region.width, height: region.height)
          break search
        }
      }
      shown.withLock { $0.append(place) }
      guard let place, place.contains(box), counts(place),
        finds.withLock({ n in
          n += 1
          return n <= times
        })
      else { return [] }
      return [
        Face(
          x: Double(box.x - place.x), y: Double(box.y - place.y), width: Double(box.width),
          height: Double(box.height), score: 0.5)
      ]
    }
  }

  /// Faces A and C side by side and B far off. A is found once and strengthened, then searched
  /// again. C's crop holds A's wider circle, so C is searched again; no strengthened face's
  /// operation reaches B's crop, so B is not: its crop would be the same pixels, searched to
  /// the same answer. Five searches, where searching every face that passed again made six.
  @Test func onlyRegionsAStrengthenedFaceReachesAreSearchedAgain() throws {
    let image = noiseImage(width: 1200, height: 400, seed: 21)
    let (a, c, b) = (
      PixelRect(x: 100, y: 180, width: 40, height: 40), PixelRect(x: 220, y: 180, width: 40, height: 40),
      PixelRect(x: 900, y: 180, width: 40, height: 40)
    )
    let faces = [a, c, b].map { Face(x: Double($0.x), y: Double($0.y), width: 40, height: 40) }
    // A's crop starts at the photo's left edge; C's holds A's box too, and does not.
    let checker = FindsAt(image, box: a, times: 1) { $0.x == 0 }
    let step = try Filters.request("faceblur", values: [:]).resolve(
      in: ResolveContext(image: image, detector: Recording(faces: faces), checker: checker))
    #expect(step.typed(FaceblurFilter.self)?.derived.levels == [1, 0, 0])
    let shown = checker.shown.withLock { $0 }
    #expect(shown.count == 5, "\(shown)")
    #expect(!shown.contains(nil), "a region not found in the photo: \(shown)")
    let regions = shown.compactMap { $0 }
    // Round 0: A, C and B; round 1: A (its crop from the left edge); round 2: C, not B.
    #expect(regions.filter { $0.contains(b) }.count == 1)
    #expect(regions.filter { $0.x == 0 && $0.contains(a) }.count == 2)
    #expect(regions.filter { $0.x > 0 && $0.contains(c) && !$0.contains(b) }.count == 2)
    #expect(regions.last.map { $0.contains(c) && $0.x > 0 && !$0.contains(b) } == true)
  }
}
