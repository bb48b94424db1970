/// `faceblur`: finds faces and hides each under a pixelated (or blurred, or solid) circle.
///
/// Detection runs once, when the step is made, on the image as it enters the step, at full size;
/// the faces are stored in the step's derived state as fractions of that image (`x`, `width` of
/// its width, `y`, `height` of its height), in the detector's reading order, so that a re-render
/// never detects again and `exclude` indices stay stable. Each face's circle is centred on its
/// box, with radius `scale` × half the box's diagonal (scale 1 covers the box's corners); its
/// block side is the box width / `blocks`, at least 1 pixel. No face leaves every byte as it was.
public struct FaceblurFilter: Filter {
  public static let name = "faceblur"
  public static let summary =
    "Detects faces and pixelates a circle centred on each (blur or solid as options)."
  public static let version = 1
  public static let requirements = FilterRequirements.faceDetector

  /// How a face is hidden.
  public enum Style: String, CaseIterable, Sendable { case pixelate, blur, solid }

  public struct Parameters: ParameterSet {
    /// 0.25...4, default 1: the circle's radius relative to half the face box's diagonal.
    public var scale = 1.0
    /// 1...200, default 10: blocks across a face box (pixelate), or box width / radius (blur).
    public var blocks = 10
    /// Default pixelate.
    public var style = Style.pixelate
    /// The fill of `style=solid`; default opaque black.
    public var color = RGBA(0, 0, 0, 255)
    /// Faces to leave alone, by index; they belong to one photo.
    public var exclude: [Int] = []
    /// The detector's settings.
    public var detection = DetectionOptions()
    public init() {}

    public static let fields: [ParameterField<Self>] = [
      .number(
        "scale", \.scale, 0.25...4,
        help: "circle radius relative to half the face box's diagonal (1 covers the box)"),
      .integer(
        "blocks", \.blocks, 1...200,
        help: "pixelate: blocks across a face box; blur: the blur radius is the box width / blocks"),
      .choice("style", \.style, help: "how each face is hidden"),
      .color("color", \.color, help: "solid: the fill colour"),
      .integers(
        "exclude", \.exclude, 0...100_000, portable: false,
        help: "faces to leave alone, by index (left to right from 0); not carried to other photos"),
      .number(
        "scaleFactor", \.detection.scaleFactor, DetectionOptions.scaleFactorRange,
        help: "detector: pyramid step"),
      .integer(
        "minNeighbors", \.detection.minNeighbors, DetectionOptions.minNeighborsRange,
        help: "detector: overlapping hits a face needs"),
      .integer(
        "minFace", \.detection.minSize, DetectionOptions.faceSizeRange,
        help: "detector: smallest face side, pixels of the image entering the step"),
      .integer(
        "maxFace", \.detection.maxSize, DetectionOptions.faceSizeRange,
        help: "detector: largest face side, pixels of the image entering the step"),
    ]

    public func check(filter: String) throws(FilterError) {
      if let lo = detection.minSize, let hi = detection.maxSize, lo > hi {
        throw .outOfRange(
          filter: filter, key: "maxFace", value: .integer(hi),
          allowed: .integer(lo...DetectionOptions.faceSizeRange.upperBound), image: nil)
      }
    }
  }

  /// The faces the step hides (or leaves alone, by `exclude`), as fractions of the image
  /// entering the step, in the detector's reading order.
  public struct Derived: ParameterSet {
    public var faces: [Box] = []
    public init() {}
    public static let fields: [ParameterField<Self>] = [
      .boxes("faces", \.faces, required: true, help: "the faces found, as fractions of the image")
    ]
  }

  public static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError) -> Derived
  {
    guard let image = context.image, let detector = context.detector else {
      preconditionFailure("faceblur needs the image and a face detector")
    }
    let found: [Face]
    do { found = try detector.faces(in: image, options: p.detection) } catch {
      throw .detection(filter: name, error)
    }
    var derived = Derived()
    let (w, h) = (Double(image.width), Double(image.height))
    derived.faces = found.map {
      Box(fractionX: $0.x / w, y: $0.y / h, width: $0.width / w, height: $0.height / h)
    }
    return derived
  }

  /// The circle and block size for one face box, in pixels of an image of `size`.
  static func circle(for face: Box, scale: Double, blocks: Int, in size: ImageSize) -> (PixelRegion, Int) {
    let (x, y, w, h) = face.pixels(width: size.width, height: size.height)
    // The box covers pixels x ..< x + w; its centre pixel index is x + (w - 1) / 2.
    let radius = scale * (w * w + h * h).squareRoot() / 2
    let block = max(1, Int((w / Double(blocks)).rounded()))
    return (.circle(centerX: x + (w - 1) / 2, centerY: y + (h - 1) / 2, radius: radius), block)
  }

  public static func render(_ p: Parameters, _ derived: Derived, on image: inout Image) throws(FilterError) {
    let excluded = Set(p.exclude)
    let size = ImageSize(image.width, image.height)
    for (index, face) in derived.faces.enumerated() where !excluded.contains(index) {
      let (region, block) = circle(for: face, scale: p.scale, blocks: p.blocks, in: size)
      switch p.style {
      case .blur: image.blur(region, radius: block)
      case .solid: image.fill(region, with: p.color)
      case .pixelate: image.pixelate(region, blockSize: block)
      }
    }
  }
}
