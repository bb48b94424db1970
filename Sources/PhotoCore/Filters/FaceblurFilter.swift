/// `faceblur`: finds faces and hides each under a pixelated (or blurred, or solid) circle.
///
/// Detection runs once, in `resolve`, on the image as it enters the step; the boxes are stored in
/// the operation's `derived["faces"]` as fractions of that image (`x`, `width` of its width, `y`,
/// `height` of its height), sorted left to right, so that a re-render never detects again and
/// `exclude` indices stay stable. Each face's circle is centred on its box, with radius
/// `scale` × half the box's diagonal (scale 1 covers the box's corners); its block side is the
/// box width / `blocks`, at least 1 pixel. No face leaves every byte as it was.
///
/// On an image over 2 megapixels, when the caller passes `FilterContext.reducedSource` (a smaller
/// decode of the same image, at least 1 megapixel), detection runs on it and the boxes are scaled
/// back. The cascade's 24×24 window then makes the smallest face found 24 × (full width / reduced
/// width) pixels: 48 px at a 1/2 decode, 96 px at 1/4, 192 px at 1/8.
public struct FaceblurFilter: Filter {
  public static let name = "faceblur"
  public static let summary =
    "Detects faces and pixelates a circle centred on each (blur or solid as options)."
  public static let version = 1
  /// Above this many pixels, detection uses `FilterContext.reducedSource` when there is one.
  public static let reducedDetectionThreshold = 2_000_000

  public static let parameters = [
    FilterParameter(
      "scale", .number(0.25...4), default: .number(1),
      help: "circle radius relative to half the face box's diagonal (1 covers the box)"),
    FilterParameter(
      "blocks", .integer(1...200), default: .integer(10),
      help: "pixelate: blocks across a face box; blur: the blur radius is the box width / blocks"),
    FilterParameter(
      "style", .choice(["pixelate", "blur", "solid"]), default: .choice("pixelate"),
      help: "how each face is hidden"),
    FilterParameter("color", .color, default: .color(RGBA(0, 0, 0, 255)), help: "solid: the fill colour"),
    FilterParameter(
      "exclude", .integers(0...100_000), portable: false,
      help: "faces to leave alone, by index (left to right from 0); not carried by apply --recipe"),
    FilterParameter("scaleFactor", .number(1.01...4), default: .number(1.1), help: "detector: pyramid step"),
    FilterParameter(
      "minNeighbors", .integer(0...100), default: .integer(3), help: "detector: overlapping hits a face needs"
    ),
    FilterParameter(
      "minFace", .integer(1...100_000),
      help: "detector: smallest face side, pixels of the image entering the step"),
    FilterParameter(
      "maxFace", .integer(1...100_000),
      help: "detector: largest face side, pixels of the image entering the step"),
  ]

  public static func check(_ p: FilterValues) throws(FilterError) {
    if let lo = p.optionalInteger("minFace"), let hi = p.optionalInteger("maxFace"), lo > hi {
      throw .outOfRange(filter: name, key: "maxFace", value: "\(hi)", range: ">= minFace (\(lo))")
    }
  }

  public static func resolve(_ p: inout FilterValues, for image: Image, context: FilterContext)
    throws(FilterError)
    -> [String: JSONValue]
  {
    let cascade: HaarCascade
    do { cascade = try context.cascade() } catch { throw .cascadeUnavailable("\(error)") }
    var source = image
    if image.width * image.height > reducedDetectionThreshold, let reduced = context.reducedSource,
      reduced.width < image.width,
      sameShape(
        reducedWidth: reduced.width, reducedHeight: reduced.height, width: image.width, height: image.height)
    {
      source = reduced
    }
    let fx = Double(image.width) / Double(source.width)
    let fy = Double(image.height) / Double(source.height)
    var options = DetectionOptions()
    options.scaleFactor = p.number("scaleFactor")
    options.minNeighbors = p.integer("minNeighbors")
    options.minSize = p.optionalInteger("minFace").map { max(1, Int((Double($0) / fx).rounded(.up))) }
    options.maxSize = p.optionalInteger("maxFace").map { max(1, Int((Double($0) / fx).rounded(.down))) }
    let clock = ContinuousClock()
    let start = clock.now
    let boxes: [FaceBox]
    do { boxes = try FaceDetector.detect(in: source, cascade: cascade, options: options) } catch {
      throw .cascadeUnavailable(error.description)
    }
    let elapsed = start.duration(to: clock.now)
    context.recordTiming(
      "detect", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    let faces = normalizedFaces(boxes, scaleX: fx, scaleY: fy, width: image.width, height: image.height)
    return ["faces": .array(faces.map(\.json))]
  }

  /// True when a reduced decode's height is the full height scaled like its width, within one
  /// pixel of rounding (the codec rounds each dimension up).
  static func sameShape(reducedWidth rw: Int, reducedHeight rh: Int, width: Int, height: Int) -> Bool {
    abs(Double(rh) - Double(height) * Double(rw) / Double(width)) <= 1
  }

  /// A face box as fractions of the image it was found in.
  public struct Face: Sendable, Hashable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
      (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    var json: JSONValue {
      .object(["x": .number(x), "y": .number(y), "width": .number(width), "height": .number(height)])
    }
  }

  /// Boxes in pixels of a source image, scaled by (scaleX, scaleY) to an image of width × height,
  /// as fractions of it, sorted left to right (then top to bottom).
  static func normalizedFaces(_ boxes: [FaceBox], scaleX: Double, scaleY: Double, width: Int, height: Int)
    -> [Face]
  {
    boxes.map { b in
      Face(
        x: Double(b.x) * scaleX / Double(width), y: Double(b.y) * scaleY / Double(height),
        width: Double(b.width) * scaleX / Double(width), height: Double(b.height) * scaleY / Double(height))
    }.sorted { ($0.x, $0.y, $0.width) < ($1.x, $1.y, $1.width) }
  }

  /// The stored boxes, or nil when any is malformed. Boxes are fractions of the image; a value
  /// far outside it (beyond -1...2) can only come from a damaged sidecar and is refused.
  static func faces(_ derived: [String: JSONValue]) -> [Face]? {
    guard let list = derived["faces"]?.array else { return nil }
    var out: [Face] = []
    for item in list {
      guard let o = item.object, let x = o["x"]?.number, let y = o["y"]?.number, let w = o["width"]?.number,
        let h = o["height"]?.number, [x, y, w, h].allSatisfy({ (-1...2).contains($0) }), w >= 0, h >= 0
      else { return nil }
      out.append(Face(x: x, y: y, width: w, height: h))
    }
    return out
  }

  public static func checkDerived(_ derived: [String: JSONValue]) throws(FilterError) {
    guard faces(derived) != nil else { throw .badDerivedState(filter: name, key: "faces") }
    if let extra = derived.keys.sorted().first(where: { $0 != "faces" }) {
      throw .badDerivedState(filter: name, key: extra)
    }
  }

  /// The circle and block size for one face box, in pixels of `image`.
  static func circle(for face: Face, scale: Double, blocks: Int, in image: Image) -> (PixelRegion, Int) {
    let (W, H) = (Double(image.width), Double(image.height))
    let x = snapped(face.x * W)
    let y = snapped(face.y * H)
    let w = snapped(face.width * W)
    let h = snapped(face.height * H)
    // The box covers pixels x ..< x + w; its centre pixel index is x + (w - 1) / 2.
    let radius = scale * (w * w + h * h).squareRoot() / 2
    let block = max(1, Int((w / Double(blocks)).rounded()))
    return (.circle(centerX: x + (w - 1) / 2, centerY: y + (h - 1) / 2, radius: radius), block)
  }

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    guard let faces = faces(derived) else { throw .badDerivedState(filter: name, key: "faces") }
    let excluded = Set(p.integers("exclude"))
    for (index, face) in faces.enumerated() where !excluded.contains(index) {
      let (region, block) = circle(
        for: face, scale: p.number("scale"), blocks: p.integer("blocks"), in: image)
      switch p.choice("style") {
      case "blur": image.blur(region, radius: block)
      case "solid": image.fill(region, with: p.color("color")!)
      default: image.pixelate(region, blockSize: block)
      }
    }
  }
}
