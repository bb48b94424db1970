import Codecs
import PhotoCore
import Recipe
import Store

/// One photo as the review page shows it: its state, its faceblur step's faces, what needs a look,
/// and its previews.
struct ReviewItem: Sendable {
  /// A face of the reviewed faceblur step, numbered as detect and `exclude=` number it.
  struct Face: Sendable, Equatable {
    enum State: String, Sendable { case hidden, excluded, added }
    var number: Int
    /// Fractions of the image entering the step.
    var box: Box
    /// True for a face the detector found, false for one of the step's `add` boxes.
    var found: Bool
    var state: State
    /// The face's shorter side in pixels of the full-size image entering the step.
    var side: Double?
    /// How many levels more strongly than its step's parameters it is hidden: faceblur's check
    /// still found it at the weaker ones (0: as the parameters say).
    var level = 0
    /// The detector's confidence for a found face, when it gives one (CenterFace) and `--scores`
    /// asked for it.
    var score: Double? = nil
  }

  /// One preview on the page and how the step's boxes map onto it.
  struct View: Sendable {
    enum Kind: String, Sendable { case render, original, before }
    var kind: Kind
    /// The preview's file name in the page's folder.
    var file: String
    var width: Int, height: Int
    /// Full-size pixels per preview pixel.
    var scale = 1.0
    /// The loupe's details of this view (`ReviewItem.detailSize`), by what they show.
    var details: [DetailKey: Detail] = [:]
    /// The affine map from the step's fractions to this view's: x' = a x + c y + e,
    /// y' = b x + d y + f; nil when a later step moves pixels in a way that cannot be mapped
    /// (a crop), so no box is drawn.
    var transform: Transform?
  }

  /// What a detail of a view shows: a face of the step (by number), or a region the second look
  /// found (by its index in `visible`).
  enum DetailKey: Hashable, Sendable {
    case face(Int)
    case seen(Int)
  }

  /// A region of a view cut from its full-size image for the loupe: its file in the page's
  /// folder, its size in pixels, and the rectangle it covers in fractions of the view.
  struct Detail: Sendable, Equatable {
    var file: String
    var width: Int, height: Int
    var x: Double, y: Double, w: Double, h: Double
  }

  struct Transform: Sendable, Equatable {
    var a = 1.0, b = 0.0, c = 0.0, d = 1.0, e = 0.0, f = 0.0
    static let identity = Transform()

    /// `self`, then `next`.
    func then(_ next: Transform) -> Transform {
      Transform(
        a: next.a * a + next.c * b, b: next.b * a + next.d * b, c: next.a * c + next.c * d,
        d: next.b * c + next.d * d, e: next.a * e + next.c * f + next.e, f: next.b * e + next.d * f + next.f)
    }

    /// A box mapped through: the box spanned by its mapped corners.
    func map(_ box: Box) -> (x: Double, y: Double, width: Double, height: Double) {
      let (x, y, w, h) = (
        box.x.fraction(of: 1), box.y.fraction(of: 1), box.width.fraction(of: 1), box.height.fraction(of: 1)
      )
      let corners = [(x, y), (x + w, y + h)].map { (a * $0.0 + c * $0.1 + e, b * $0.0 + d * $0.1 + f) }
      let (x0, x1) = (min(corners[0].0, corners[1].0), max(corners[0].0, corners[1].0))
      let (y0, y1) = (min(corners[0].1, corners[1].1), max(corners[0].1, corners[1].1))
      return (x0, y0, x1 - x0, y1 - y0)
    }
  }

  /// What makes a photo need a look, most urgent first.
  enum Flag: String, Sendable, CaseIterable {
    /// Damaged, stale, or its render modified outside photoedit.
    case problem
    /// No edit at all, or no faceblur step: its faces are not hidden.
    case unedited
    /// The second look (CenterFace on the render's preview, from `secondLookThreshold`) finds a
    /// face-like region outside every box of the step: a face the step may have missed.
    case faceVisible = "face-visible"
    /// Faces that faceblur's check found again, so hid more strongly: look that they are hidden.
    case strengthened
    /// A faceblur step hidden more weakly than photoedit now allows (made by an older version,
    /// unchecked): `edit --step N --set ...` raises it.
    case weakHiding = "weak-hiding"
    /// A faceblur step that found no face.
    case noFaces = "no-faces"
    /// A face near the smallest size the detector searches: smaller ones next to it are missed.
    case smallFaces = "small-faces"
    /// Many faces: a crowd, where faces are missed most.
    case manyFaces = "many-faces"

    /// The flags that put a photo among those "to look at first" (the page's count and its
    /// first screens); the others (no face, small faces, a crowd) only order the rest: on the
    /// labelled sets they flagged most photos and found few misses (docs/review.md).
    var isFirst: Bool { rank <= Flag.weakHiding.rank }

    /// Its place in the order of urgency (0 most urgent).
    var rank: Int { Flag.allCases.firstIndex(of: self)! }
  }

  /// The second look's CenterFace score floor: half audit's 0.4, since a preview has fewer
  /// pixels than the render (docs/review.md, "What needs a look first", has the measurement).
  static let secondLookThreshold = 0.2

  /// A face is "near the smallest searchable size" below this many times that size.
  static let nearSmallest = 2.0
  /// "Many faces" from this many faces on.
  static let manyFaces = 10
  /// The longest side of a loupe detail in pixels: the loupe's own size (384 px), so a detail
  /// that fills it is shown at most 1:1.
  static let detailSize = 384
  /// A detail is a face's box (or a second-look region) with this fraction of its width and
  /// height added on each side.
  static let detailMargin = 0.5
  /// A detail is written only when it has at least this many times the pixels across of the
  /// preview's same region (else the loupe's 4x preview shows as much).
  static let detailGain = 1.5

  var index: Int
  var name: String
  var path: String
  var state: String
  var problem: String?
  /// The exit status of the failure that left the photo without previews (see ``problem``).
  var status: Int32?
  /// The reviewed faceblur step (from 1), when the recipe has one.
  var step: Int?
  var faces: [Face] = []
  /// The detector's faces of the step, in order (the corrections' `found`).
  var found: [Box] = []
  /// The smallest face side searched, in pixels, for the step.
  var smallest: Int?
  /// The step's detector (`haar`, `centerface`, `centerface+haar`, ...).
  var detector: String?
  /// Why the faces have no scores although `--scores` asked for them, when they have none.
  var scoresNote: String?
  var views: [View] = []
  /// Every step but the reviewed one, as `show` lists them.
  var otherSteps: [String] = []
  var flags: [Flag] = []
  /// The second look's faces on the render's preview outside the step's boxes (fractions of
  /// it, with their scores); nil when it did not run.
  var visible: [(x: Double, y: Double, width: Double, height: Double, score: Double)]?
  /// Why the second look did not run, when it could not (no CenterFace model).
  var secondLookNote: String?
  /// The highest second-look score, 0 without one.
  var visibleScore: Double { visible?.map(\.score).max() ?? 0 }
  /// True when a flag puts the photo among those to look at first.
  var isFirst: Bool { flags.contains(where: \.isFirst) }
  /// The SHA-256 of the render the page shows (the sidecar's `render.sha256`); nil without a
  /// sidecar. A `reviewed` entry of the export names it, so a later edit is noticed.
  var render: String?
  /// The review state the sidecar records, and whether the photo changed since.
  var recorded: ReviewRecord?
  var changedSinceReview = false
  /// The state the page starts the photo in: the recorded one, unless the photo changed since.
  var startingReview: String {
    guard let recorded, !changedSinceReview else { return "unreviewed" }
    return recorded.state.rawValue
  }
  /// True when the page may correct it (an edited photo with a faceblur step, not damaged).
  var correctable: Bool { step != nil && state != PhotoState.damaged.rawValue }

  /// The first flag's rank (0 most urgent), or `Flag.allCases.count` when nothing needs a look.
  var urgency: Int { flags.first?.rank ?? Flag.allCases.count }

  /// The smallest face side in pixels, for sorting.
  var smallestSide: Double? { faces.filter(\.found).compactMap(\.side).min() }
}

extension ReviewItem {
  /// The faceblur step the page reviews (from 1): the recipe's first. Its input is the page's
  /// "original" view (the original itself when faceblur is step 1).
  static func reviewedStep(_ steps: [Step]) -> Int? {
    steps.firstIndex { $0.typed(FaceblurFilter.self) != nil }.map { $0 + 1 }
  }

  /// The map of fractions through `steps` (the steps after the reviewed one), for an image of
  /// `size` entering the first of them, or nil when one moves pixels in a way a box cannot
  /// follow whole (a crop), renders the whole image at once (its geometry unknown), or cannot be
  /// prepared. Each step says its own geometry through its kernels (`StepCapability`): pointwise
  /// and local steps keep every pixel in place, transforms say where each one goes. No filter is
  /// known here by name, so a new filter's boxes follow it without a change to the page.
  static func transform(through steps: ArraySlice<Step>, size: ImageSize) -> Transform? {
    var t = Transform.identity
    var size = size
    for step in steps {
      guard let kernels = try? step.kernels(input: size) else { return nil }
      for kernel in kernels {
        switch kernel.capability {
        case .pointwise, .local: break
        case .whole: return nil
        case .transform(let p):
          guard let m = Transform(turnOrMirror: p) else { return nil }
          t = t.then(m)
        }
        size = kernel.outputSize
      }
    }
    return t
  }

  /// The page's model of one photo, from what `EditStore.preview` read.
  ///
  /// - Parameters:
  ///   - files: the previews' file names: (render, original or before).
  ///   - originals: false with `--no-originals`: only the render is shown.
  init(
    index: Int, photo: ReviewSelection.Photo, preview: PhotoPreview, files: (render: String, other: String),
    originals: Bool
  ) {
    self.index = index
    (name, path) = (photo.name, photo.path)
    let status = preview.status
    state = status.state.rawValue
    problem = status.problem.map(ErrorText.message)
    let data = status.data
    render = data?.render?.sha256.hex
    if status.state != .damaged, let review = data?.review {
      recorded = review
      changedSinceReview = status.changedSinceReview ?? false
    }
    let steps = data?.steps ?? []
    let reviewed = status.state == .damaged ? nil : Self.reviewedStep(steps)
    step = reviewed
    for (i, s) in steps.enumerated() where i + 1 != reviewed {
      otherSteps += FileResult.describe(s, number: i + 1)
    }
    if let reviewed, let (p, derived) = steps[reviewed - 1].typed(FaceblurFilter.self) {
      let foundCount = max(0, derived.faces.count - p.add.count)
      found = Array(derived.faces.prefix(foundCount))
      let excluded = Set(p.exclude)
      smallest = max(p.detection.minFace ?? 0, p.detection.detector.smallestFace)
      detector = p.detection.detector.rawValue
      // The image entering the step at full size, from its preview (the decode's scale).
      let entering = preview.entering[reviewed]
      faces = derived.faces.enumerated().map { k, box in
        let state: Face.State = excluded.contains(k) ? .excluded : (k < foundCount ? .hidden : .added)
        var side: Double? = nil
        if let entering {
          let w = box.width.fraction(of: 1) * Double(entering.width) * entering.scale
          let h = box.height.fraction(of: 1) * Double(entering.height) * entering.scale
          side = min(w, h)
        }
        return Face(
          number: k, box: box, found: k < foundCount, state: state, side: side, level: derived.level(k))
      }
      if p.isBelowSafeStrength { flags.append(.weakHiding) }
      if faces.contains(where: { $0.state != .excluded && $0.level > 0 }) { flags.append(.strengthened) }
    }
    if let render = preview.render {
      // The size entering the steps after the reviewed one: the reviewed step's own (faceblur
      // moves no pixel), from its preview, else the original's.
      let size =
        preview.entering[reviewed ?? 0].map { ImageSize($0.width, $0.height) }
        ?? data?.original.map { ImageSize($0.width, $0.height) } ?? ImageSize(1, 1)
      let t = reviewed.map { Self.transform(through: steps[$0...], size: size) } ?? nil
      views.append(
        View(
          kind: .render, file: files.render, width: render.width, height: render.height, scale: render.scale,
          transform: t))
    }
    if originals, let n = reviewed ?? (steps.isEmpty ? nil : 1), let before = preview.entering[n] {
      views.append(
        View(
          kind: n == 1 ? .original : .before, file: files.other, width: before.width, height: before.height,
          scale: before.scale, transform: reviewed == nil ? nil : .identity))
    }
    // What needs a look.
    if status.state != .edited && status.state != .unedited { flags.append(.problem) }
    if reviewed == nil { flags.append(.unedited) }
    if reviewed != nil && found.isEmpty { flags.append(.noFaces) }
    if let smallest,
      faces.contains(where: { $0.found && ($0.side ?? .infinity) < Double(smallest) * Self.nearSmallest })
    {
      flags.append(.smallFaces)
    }
    if faces.count >= Self.manyFaces { flags.append(.manyFaces) }
    sortFlags()
  }

  /// The flags, most urgent first (`urgency` is the first one's rank).
  mutating func sortFlags() {
    flags.sort { $0.rank < $1.rank }
  }

  /// The second look: CenterFace searches the render's preview (what others see, at the page's
  /// size) from `secondLookThreshold`; a face found there whose centre is outside every box of
  /// the step flags the photo (`faceVisible`). Only for a photo with a faceblur step: one without
  /// is flagged `unedited` already.
  mutating func secondLook(at render: PreviewImage, store: EditStore) {
    guard step != nil, let view = views.first(where: { $0.kind == .render }) else { return }
    let image: Image
    do { image = try ImageCodec.decode(render.jpeg).image } catch { return }
    let found: [PhotoCore.Face]
    do { found = try store.visibleFaces(in: image, threshold: Self.secondLookThreshold) } catch {
      secondLookNote = "no second look: \(ErrorText.describe(error).message)"
      return
    }
    let (w, h) = (Double(image.width), Double(image.height))
    // A find inside a box of the step is a face it hid (faceblur's own check measured how well:
    // `strengthened`) or left visible on purpose (excluded); what is left is outside every box.
    // Without a map onto the render (a crop), nothing is left out.
    let spared = faces.compactMap { view.transform?.map($0.box) }
    visible = found.compactMap { f in
      let box = (x: f.x / w, y: f.y / h, width: f.width / w, height: f.height / h, score: f.score ?? 0)
      let (cx, cy) = (box.x + box.width / 2, box.y + box.height / 2)
      let isSpared = spared.contains { s in
        cx >= s.x && cx <= s.x + s.width && cy >= s.y && cy <= s.y + s.height
      }
      return isSpared ? nil : box
    }
    if !(visible ?? []).isEmpty {
      flags.append(.faceVisible)
      sortFlags()
    }
  }

  /// The regions the loupe shows at more detail than the previews: on each view where the step's
  /// boxes are drawn, every face's box, and on the render every region the second look found,
  /// each with `detailMargin` around it, where a detail of at most `detailSize` pixels has
  /// `detailGain` times the preview's pixels or more.
  func detailRegions() -> [(view: Int, key: DetailKey, region: DetailRegion)] {
    guard correctable, let step else { return [] }
    var out: [(view: Int, key: DetailKey, region: DetailRegion)] = []
    for (v, view) in views.enumerated() {
      guard let t = view.transform else { continue }
      var wanted: [(DetailKey, (x: Double, y: Double, width: Double, height: Double))] = faces.map {
        (.face($0.number), t.map($0.box))
      }
      if view.kind == .render {
        for (k, seen) in (visible ?? []).enumerated() {
          wanted.append((.seen(k), (seen.x, seen.y, seen.width, seen.height)))
        }
      }
      for (key, b) in wanted {
        let (mx, my) = (b.width * Self.detailMargin, b.height * Self.detailMargin)
        let x0 = max(0, b.x - mx)
        let y0 = max(0, b.y - my)
        let x1 = min(1, b.x + b.width + mx)
        let y1 = min(1, b.y + b.height + my)
        guard x1 > x0, y1 > y0 else { continue }
        // The region's longest side in preview pixels, and in the detail's.
        let shown = max((x1 - x0) * Double(view.width), (y1 - y0) * Double(view.height))
        let detail = min(Double(Self.detailSize), shown * view.scale)
        guard detail >= Self.detailGain * shown else { continue }
        out.append(
          (
            v, key,
            DetailRegion(
              step: view.kind == .render ? nil : step, x: x0, y: y0, width: x1 - x0, height: y1 - y0)
          ))
      }
    }
    return out
  }

  /// The detection options of the reviewed step, when it is faceblur.
  static func detection(_ steps: [Step]) -> DetectionOptions? {
    reviewedStep(steps).flatMap { steps[$0 - 1].typed(FaceblurFilter.self)?.0.detection }
  }

  /// Gives each found face the score of the face `detect` finds in the same place (the search
  /// of the original that the step made, run again: same image, same detector, same settings,
  /// so the same boxes), matched by overlap (IoU at least 0.9).
  mutating func attachScores(_ outcome: DetectOutcome) {
    let (w, h) = (Double(outcome.width), Double(outcome.height))
    let searched = outcome.faces.map { f in
      (x: f.x / w, y: f.y / h, width: f.width / w, height: f.height / h, score: f.score)
    }
    var matched = 0
    for i in faces.indices where faces[i].found {
      let b = faces[i].box
      let (x, y) = (b.x.fraction(of: 1), b.y.fraction(of: 1))
      let (bw, bh) = (b.width.fraction(of: 1), b.height.fraction(of: 1))
      var best: (iou: Double, score: Double?) = (0, nil)
      for s in searched {
        let ix = max(0, min(x + bw, s.x + s.width) - max(x, s.x))
        let iy = max(0, min(y + bh, s.y + s.height) - max(y, s.y))
        let inter = ix * iy
        let union = bw * bh + s.width * s.height - inter
        let iou = union > 0 ? inter / union : 0
        if iou > best.iou { best = (iou, s.score) }
      }
      if best.iou >= 0.9, let score = best.score {
        faces[i].score = score
        matched += 1
      }
    }
    let foundCount = faces.filter(\.found).count
    if matched == foundCount || foundCount == 0 {
      scoresNote = nil
    } else if outcome.faces.allSatisfy({ $0.score == nil }) {
      scoresNote = "no scores: the \(outcome.detector) detector gives none"
    } else {
      scoresNote = "\(foundCount - matched) of \(foundCount) faces have no score (no face found again there)"
    }
  }

  /// A photo that could not be read at all.
  init(index: Int, photo: ReviewSelection.Photo, error: any Error) {
    self.index = index
    (name, path) = (photo.name, photo.path)
    state = PhotoState.damaged.rawValue
    (status, problem) = ErrorText.describe(error)
    flags = [.problem]
  }
}

extension ReviewItem.Transform {
  /// The map of fractions a quarter turn or mirror of the whole image makes (`p` maps each
  /// output pixel to the input pixel it copies); nil for a transform that crops.
  init?(turnOrMirror p: PixelTransform) {
    let (w, h) = (p.inputSize.width, p.inputSize.height)
    let (ow, oh) = (p.outputSize.width, p.outputSize.height)
    guard p.window == PixelRect(x: 0, y: 0, width: ow, height: oh), (ow, oh) == (w, h) || (ow, oh) == (h, w)
    else { return nil }
    let (a, b, c, d) = (Double(p.a), Double(p.b), Double(p.c), Double(p.d))
    // Pixel X covers [X, X + 1): a negative coefficient maps it to [t - X - 1, t - X], so the
    // edge coordinates' offset is one more than the pixels'.
    let tx = Double(p.tx + (p.a < 0 ? 1 : 0) + (p.b < 0 ? 1 : 0))
    let ty = Double(p.ty + (p.c < 0 ? 1 : 0) + (p.d < 0 ? 1 : 0))
    // Input edge point u = M q + t, so q = Mᵀ (u - t); fractions divide by each side.
    let (fw, fh, gw, gh) = (Double(w), Double(h), Double(ow), Double(oh))
    self.init(
      a: a * fw / gw, b: b * fw / gh, c: c * fh / gw, d: d * fh / gh,
      e: -(a * tx + c * ty) / gw, f: -(b * tx + d * ty) / gh)
  }
}
