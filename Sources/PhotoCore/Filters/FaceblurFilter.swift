/// `faceblur`: finds faces and hides each under a pixelated (or blurred, or solid) circle.
///
/// Detection runs once, when the step is made, on the image as it enters the step, at full size;
/// the faces are stored in the step's derived state as fractions of that image (`x`, `width` of
/// its width, `y`, `height` of its height), in the detector's reading order, followed by the faces
/// given with `add` (boxes the detector missed), so that a re-render never detects again and
/// `exclude` indices stay stable. Each face's circle is centred on its
/// box, with radius `scale` × half the box's diagonal (scale 1 covers the box's corners); its
/// block side is the box width / `blocks`, at least `minBlock` pixels.
///
/// A hidden face is checked (``hidingLevels(_:faces:in:checker:)``, docs/faces.md, "Hidden means
/// hidden"): when the step is made, CenterFace looks at each hidden face's region of the step's
/// own output; a face it still finds there, or whose pixels barely changed, is hidden more
/// strongly (``strength(_:level:)``: fewer, larger blocks over a wider circle) until it is not,
/// and the level each face needed is stored (`derived.levels`), so renders never check again.
///
/// Version 2 (this one) added `minBlock` and `onFound` and made the defaults strong enough
/// (4 blocks, circle scale 1.3, blocks of at least 4 pixels); a version 1 step reads as what it
/// was (`minBlock=1`, nothing checked) and renders as it always did.
public struct FaceblurFilter: Filter {
  public static let name = "faceblur"
  public static let summary =
    "Detects faces and pixelates a circle centred on each (blur or solid as options), checked."
  public static let version = 2

  public static func requirements(for p: Parameters) -> FilterRequirements {
    var needs = FilterRequirements.faceDetector(p.detection.detector)
    needs.checksHiding = true
    return needs
  }

  /// The finest mosaic a new request may ask for: at most this many blocks across a face box.
  /// Finer ones leave faces that a detector still finds (docs/faces.md).
  public static let safeBlocks = 4
  /// The smallest block side (pixels) a new request may ask for.
  public static let safeMinBlock = 4

  /// What to do when the check still finds a hidden face.
  public enum OnFound: String, CaseIterable, Sendable {
    /// Hide it more strongly until the check no longer finds it (the default).
    case strengthen
    /// Refuse the step for this photo: the settings given are kept as they are.
    case fail
  }

  /// How a face is hidden.
  public enum Style: String, CaseIterable, Sendable { case pixelate, blur, solid }

  public struct Parameters: ParameterSet {
    /// 0.25...4, default 1.3: the circle's radius relative to half the face box's diagonal.
    public var scale = 1.3
    /// 1...200, default 4 (a new request: at most ``safeBlocks``): blocks across a face box
    /// (pixelate), or box width / radius (blur).
    public var blocks = 4
    /// 1...256, default 4 (a new request: at least ``safeMinBlock``): the smallest block side
    /// (pixelate) or blur radius, in pixels, whatever the face's size.
    public var minBlock = 4
    /// Default strengthen.
    public var onFound = OnFound.strengthen
    /// Default pixelate.
    public var style = Style.pixelate
    /// The fill of `style=solid`, opaque (a translucent fill would not hide a face); default
    /// black.
    public var color = RGBA(0, 0, 0, 255)
    /// Faces to leave alone, by index; they belong to one photo.
    public var exclude: [Int] = []
    /// Faces the detector missed, hidden like the others and numbered after them; they belong to
    /// one photo.
    public var add: [Box] = []
    /// The detector's settings.
    public var detection = DetectionOptions()
    public init() {}

    public static let fields: [ParameterField<Self>] =
      [
        .number(
          "scale", \.scale, 0.25...4,
          help: "circle radius relative to half the face box's diagonal (1 covers the box)"),
        .integer(
          "blocks", \.blocks, 1...200,
          help: "pixelate: blocks across a face box (at most 4); blur: the radius is the box width / blocks"),
        .integer(
          "minBlock", \.minBlock, 1...256,
          help: "smallest block side (blur: radius) in pixels, whatever the face's size (at least 4)"),
        .choice("style", \.style, help: "how each face is hidden"),
        .choice(
          "onFound", \.onFound,
          help: "when CenterFace still finds a hidden face: hide it more strongly, or fail"),
        .opaqueColor(
          "color", \.color, help: "solid: the fill colour (opaque: a translucent fill does not hide a face)"),
        .integers(
          "exclude", \.exclude, 0...100_000, portable: false,
          help: "faces to leave alone, by index (left to right from 0); not carried to other photos"),
        .boxes(
          "add", \.add, portable: false,
          help:
            "faces the detector missed, X:Y:W:H each, numbered after the found ones; not carried to other photos"
        ),
      ] + DetectionOptions.fields.map { $0.lifted(\Self.detection) }

    public func check(filter: String) throws(FilterError) { try detection.check(filter: filter) }

    /// True when the hiding is weaker than a new request may ask for (a step stored by an older
    /// version): `review` flags it, and `edit` raises it.
    public var isBelowSafeStrength: Bool {
      blocks > FaceblurFilter.safeBlocks || minBlock < FaceblurFilter.safeMinBlock
    }

    /// The settings of the detectors that do not run (each kind declares its own:
    /// `DetectorKind.fields`).
    public var unusedKeys: [String] { detection.unusedKeys }

    /// A detector's setting given for a detector that does not run is refused, never ignored; so
    /// is a hiding weaker than the safe minimum (stored steps keep theirs: a recipe is a record).
    public func check(filter: String, given: Set<String>) throws(FilterError) {
      if let key = unusedKeys.first(where: given.contains) {
        throw .conflictingParameters(filter: filter, keys: ["detector=\(detection.detector.rawValue)", key])
      }
      if given.contains("blocks"), blocks > FaceblurFilter.safeBlocks {
        throw .weakerThanSafe(
          filter: filter, key: "blocks", value: .integer(blocks), safe: .integer(FaceblurFilter.safeBlocks))
      }
      if given.contains("minBlock"), minBlock < FaceblurFilter.safeMinBlock {
        throw .weakerThanSafe(
          filter: filter, key: "minBlock", value: .integer(minBlock),
          safe: .integer(FaceblurFilter.safeMinBlock))
      }
    }
  }

  /// Version 1's parameters: those of version 2 without `minBlock` and `onFound`, at version
  /// 1's defaults (10 blocks, scale 1, Haar). It hid with blocks of at least 1 pixel and checked
  /// nothing, and a step of it renders so still.
  public struct ParametersV1: ParameterSet {
    var current: Parameters
    public init() {
      current = Parameters()
      (current.blocks, current.scale, current.minBlock) = (10, 1, 1)
      current.detection.detector = .haar
    }
    public static let fields: [ParameterField<Self>] = Parameters.fields
      .filter { $0.name != "minBlock" && $0.name != "onFound" }.map { $0.lifted(\Self.current) }
    public func check(filter: String) throws(FilterError) { try current.check(filter: filter) }
  }

  public static var legacyVersions: [LegacyParameters<Self>] {
    [LegacyParameters(version: 1, ParametersV1.self) { $0.current }]
  }

  /// The faces the step hides (or leaves alone, by `exclude`), as fractions of the image
  /// entering the step, in the detector's reading order, and the SHA-256 of each cascade or model
  /// file that found them.
  public struct Derived: ParameterSet {
    public var faces: [Box] = []
    /// How strongly each face is hidden (``strength(_:level:)``), in the order of `faces`: the
    /// check's result. Empty when every face is at level 0 (and in a version 1 step).
    public var levels: [Int] = []
    public var cascade: String? = nil
    public var profileCascade: String? = nil
    public var model: String? = nil
    public init() {}
    /// `faces`, when a step can store that many (``Box/maxStored``).
    ///
    /// - Throws: `.detection(.tooManyFaces)` otherwise: refused rather than hiding some of them.
    static func storable(_ faces: [Box]) throws(FilterError) -> [Box] {
      guard faces.count <= Box.maxStored else {
        throw .detection(filter: FaceblurFilter.name, .tooManyFaces(count: faces.count, limit: Box.maxStored))
      }
      return faces
    }

    /// Each detector kind's digest field (`DetectorKind.digestField`), by name.
    static let digests: [String: WritableKeyPath<Derived, String?> & Sendable] = [
      "cascade": \.cascade, "profileCascade": \.profileCascade, "model": \.model,
    ]

    public static let fields: [ParameterField<Self>] = [
      .boxes("faces", \.faces, required: true, help: "the faces found, as fractions of the image"),
      .integers(
        "levels", \.levels, 0...FaceblurFilter.maxLevel,
        help: "how much more strongly each face is hidden than the parameters say (the check's result)"),
      .digest("cascade", \.cascade, help: "SHA-256 of the frontal cascade that searched"),
      .digest("profileCascade", \.profileCascade, help: "SHA-256 of the profile cascade that searched"),
      .digest("model", \.model, help: "SHA-256 of the CenterFace model that searched"),
    ]

    /// `levels`, when given, has one entry per face.
    public func check(filter: String) throws(FilterError) {
      if !levels.isEmpty && levels.count != faces.count {
        throw .badDerivedState(filter: filter, key: "levels")
      }
    }

    /// The level face `index` is hidden at.
    public func level(_ index: Int) -> Int { levels.indices.contains(index) ? levels[index] : 0 }

    /// The faces found by `detector`, with its files' checksums.
    ///
    /// - Throws: `.detection(.tooManyFaces)` when they are more than a step stores.
    init(found: [Box], added: [Box], by detector: any FaceDetector) throws(FilterError) {
      faces = try Self.storable(found + added)
      for member in detector.identity.members {
        guard let kind = Detectors.named(member.name), let field = Self.digests[kind.digestField] else {
          continue
        }
        self[keyPath: field] = member.model.isEmpty ? nil : member.model
      }
    }
  }

  public static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError) -> Derived
  {
    guard let image = context.image, let detector = context.detector else {
      preconditionFailure("faceblur needs the image and a face detector")
    }
    // A new step is never weaker than the safe minimum: a request from the command line was
    // refused already; one from an older recipe (`apply --recipe`) is raised.
    (p.blocks, p.minBlock) = (min(p.blocks, safeBlocks), max(p.minBlock, safeMinBlock))
    let found: [Face]
    do { found = try detector.faces(in: image, options: p.detection) } catch {
      throw .detection(filter: name, error)
    }
    var derived = try Derived(
      found: fractions(of: found, in: context.size), added: try added(p, in: context.size), by: detector)
    try checkExclusions(p, faces: derived.faces.count)
    derived.levels = try hidingLevels(p, faces: derived.faces, in: image, checker: context.checker)
    return derived
  }

  /// The first face of `exclude` (smallest first) that a step of `faces` faces does not have
  /// (faces count from 0: the found ones, then the added ones), or nil.
  public static func missingFace(in exclude: [Int], faces: Int) -> Int? {
    exclude.sorted().first { $0 >= faces }
  }

  /// Refuses an `exclude` naming a face the step does not have (`faces` in all, `p.add` of them
  /// added): it would spare nothing, and a number meant for another photo would go unnoticed.
  static func checkExclusions(_ p: Parameters, faces: Int) throws(FilterError) {
    if let face = missingFace(in: p.exclude, faces: faces) {
      throw .noSuchFace(filter: name, face: face, found: faces - p.add.count, added: p.add.count)
    }
  }

  /// Found faces as fractions of an image of `size`.
  static func fractions(of faces: [Face], in size: ImageSize) -> [Box] {
    let (w, h) = (Double(size.width), Double(size.height))
    return faces.map { Box(fractionX: $0.x / w, y: $0.y / h, width: $0.width / w, height: $0.height / h) }
  }

  /// The `add` boxes as fractions of an image of `size`.
  ///
  /// - Throws: `.regionOutsideImage` for a box with no pixel on the image: it would hide nothing
  ///   and still be counted as a hidden face. A box may reach past an edge (a face cut by it).
  static func added(_ p: Parameters, in size: ImageSize) throws(FilterError) -> [Box] {
    let boxes = p.add.map { $0.normalized(width: size.width, height: size.height) }
    for (given, b) in zip(p.add, boxes) {
      let (x, y, w, h) = b.pixels(width: size.width, height: size.height)
      let (right, bottom) = (min(x + w, Double(size.width)), min(y + h, Double(size.height)))
      if !(min(right - max(x, 0), bottom - max(y, 0)) > 0) {
        throw .regionOutsideImage(filter: name, region: given, image: size)
      }
    }
    return boxes
  }

  /// The pixels and the checker always (the hiding is checked again whatever changed), and the
  /// detector when a detector setting changed.
  public static func revisionRequirements(from old: Parameters, to new: Parameters) -> FilterRequirements {
    var needs =
      old.detection == new.detection ? FilterRequirements.pixels : .faceDetector(new.detection.detector)
    needs.checksHiding = true
    return needs
  }

  /// Makes the step again (``reviseFaces(_:_:to:in:)``), then checks its hiding again. A step
  /// hidden more weakly than a new request may ask (one made by an older version) is first raised
  /// to the safe minimum, with a note.
  public static func revise(
    _ old: Parameters, _ oldDerived: Derived, to new: inout Parameters, in context: ResolveContext
  ) throws(FilterError) -> Revision<Derived> {
    var raised: [RevisionNote] = []
    if new.blocks > safeBlocks {
      raised.append(.strengthRaised(key: "blocks", from: .integer(new.blocks), to: .integer(safeBlocks)))
      new.blocks = safeBlocks
    }
    if new.minBlock < safeMinBlock {
      raised.append(
        .strengthRaised(key: "minBlock", from: .integer(new.minBlock), to: .integer(safeMinBlock)))
      new.minBlock = safeMinBlock
    }
    var revision = try reviseFaces(old, oldDerived, to: &new, in: context)
    guard let image = context.image else { preconditionFailure("faceblur's check needs the image") }
    revision.derived.levels = try hidingLevels(
      new, faces: revision.derived.faces, in: image, checker: context.checker)
    revision.notes = raised + revision.notes
    return revision
  }

  /// Changing `exclude`, `add` or how faces are hidden keeps the faces found; changing a detector
  /// setting finds them again, and each exclusion moves to the face found again that overlaps
  /// its old face (IoU at least 0.5), or is dropped with a note: it never spares another face.
  ///
  /// When the image entering the step changed (`context.imageChanged`: a step before it was
  /// edited, removed or moved), the faces are found again in it; the exclusions are kept only
  /// when exactly the same faces are found, else they are all dropped with a note (a face's
  /// place in a cropped, turned or mirrored image says nothing about which face it is).
  ///
  /// A new `exclude` or `add` that leaves an exclusion naming no face is refused
  /// (`.noSuchFace`), as `apply` refuses it.
  static func reviseFaces(
    _ old: Parameters, _ oldDerived: Derived, to new: inout Parameters, in context: ResolveContext
  ) throws(FilterError) -> Revision<Derived> {
    let oldFound = Array(oldDerived.faces.prefix(max(0, oldDerived.faces.count - old.add.count)))
    let corrected = new.exclude != old.exclude || new.add != old.add
    guard old.detection != new.detection || context.imageChanged else {
      var derived = oldDerived
      derived.levels = []
      derived.faces = try Derived.storable(oldFound + (try added(new, in: context.size)))
      if corrected { try checkExclusions(new, faces: derived.faces.count) }
      return Revision(derived: derived)
    }
    guard let image = context.image, let detector = context.detector else {
      preconditionFailure("faceblur needs the image and a face detector to find faces again")
    }
    let found: [Box]
    do {
      found = fractions(of: try detector.faces(in: image, options: new.detection), in: context.size)
    } catch {
      throw .detection(filter: name, error)
    }
    let derived = try Derived(found: found, added: try added(new, in: context.size), by: detector)
    if context.imageChanged {
      guard found != oldFound else { return Revision(derived: derived) }
      let dropped = new.exclude.sorted()
      new.exclude = []
      return Revision(
        derived: derived,
        notes: [.facesFoundAgain(count: found.count)] + dropped.map { .exclusionDroppedWithImage(face: $0) }
          + (new.add.isEmpty ? [] : [.addedFacesKept(count: new.add.count)]))
    }
    guard new.exclude == old.exclude else {
      try checkExclusions(new, faces: derived.faces.count)
      return Revision(derived: derived)
    }
    // The exclusions name faces of the old list: carry each to its face in the new one.
    var notes: [RevisionNote] = []
    var carried: [Int] = []
    for k in old.exclude.sorted() {
      var index: Int? = nil
      if k < oldFound.count {
        index = bestMatch(oldFound[k], in: found, size: context.size)
      } else if k < oldDerived.faces.count {
        // An added face keeps its place after the found ones.
        index = found.count + (k - oldFound.count)
      } else {
        continue  // it named no face at all
      }
      if let index {
        carried.append(index)
        if index != k { notes.append(.exclusionMoved(from: k, to: index)) }
      } else {
        notes.append(.exclusionDropped(face: k))
      }
    }
    new.exclude = carried.sorted()
    if corrected { try checkExclusions(new, faces: derived.faces.count) }
    return Revision(derived: derived, notes: notes)
  }

  /// The index of the box in `boxes` that overlaps `box` most, with IoU at least 0.5 (measured in
  /// pixels of an image of `size`), or nil.
  static func bestMatch(_ box: Box, in boxes: [Box], size: ImageSize) -> Int? {
    func iou(_ a: Box, _ b: Box) -> Double {
      let p = a.pixels(width: size.width, height: size.height)
      let q = b.pixels(width: size.width, height: size.height)
      let w = min(p.x + p.width, q.x + q.width) - max(p.x, q.x)
      let h = min(p.y + p.height, q.y + q.height) - max(p.y, q.y)
      guard w > 0, h > 0 else { return 0 }
      return w * h / (p.width * p.height + q.width * q.height - w * h)
    }
    let scored = boxes.indices.map { ($0, iou(box, boxes[$0])) }.filter { $0.1 >= 0.5 }
    return scored.max { $0.1 < $1.1 }?.0
  }

  /// The circle and block size (pixelate; blur: radius) for one face box at strength `level`, in
  /// pixels of an image of `size`.
  static func circle(for face: Box, _ p: Parameters, level: Int, in size: ImageSize) -> (PixelRegion, Int) {
    let (x, y, w, h) = face.pixels(width: size.width, height: size.height)
    let (blocks, scale) = strength(p, level: level)
    // The box covers pixels x ..< x + w; its centre pixel index is x + (w - 1) / 2.
    let radius = scale * (w * w + h * h).squareRoot() / 2
    let block = max(p.minBlock, 1, Int((w / Double(blocks)).rounded()))
    return (.circle(centerX: x + (w - 1) / 2, centerY: y + (h - 1) / 2, radius: radius), block)
  }

  /// Local: one operation per face hidden, in order; only the circles' bounding boxes change.
  public static func prepare(_ p: Parameters, _ derived: Derived, input size: ImageSize) -> [any StepKernel] {
    let excluded = Set(p.exclude)
    var ops: [any LocalOp] = []
    for (index, face) in derived.faces.enumerated() where !excluded.contains(index) {
      let (region, block) = circle(for: face, p, level: derived.level(index), in: size)
      switch p.style {
      case .blur: ops.append(BlurOp(region: region, radius: block, image: size))
      case .solid: ops.append(FillOp(region: region, color: p.color, image: size))
      case .pixelate: ops.append(PixelateOp(region: region, blockSize: block, image: size))
      }
    }
    return ops.isEmpty ? [] : [LocalKernel(size: size, ops: ops)]
  }
}
