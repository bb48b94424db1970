/// `pixelate`: one rectangle or circle turned into blocks of their mean colour.
///
/// A rectangle is `x`, `y`, `width`, `height`; a circle is `shape=circle`, `center` and `radius`.
/// Positions are pixel indices of the image entering the step (pixel (x, y) is the point (x, y))
/// or fractions; a pixel is in a circle when its distance to the centre is at most the radius.
/// Stored: x and width as fractions of the width, y and height of the height, radius and block
/// as fractions of the shorter side. Regions may cross the image's border.
public struct PixelateFilter: Filter {
  public static let name = "pixelate"
  public static let summary =
    "Pixelates a rectangle or a circle: each block gets the mean colour of its pixels."
  public static let version = 1

  public struct Parameters: ParameterSet {
    /// Default rect.
    public var shape = RegionShape.rect
    /// The rectangle (all four, with `shape=rect`).
    public var x: Length?, y: Length?, width: Length?, height: Length?
    /// The circle (both, with `shape=circle`); the radius is of the shorter side.
    public var center: Point?
    public var radius: Length?
    /// The block side, of the shorter side, at least 1 pixel; default 2%.
    public var block = Length.fraction(0.02)
    public init() {}

    public static let fields: [ParameterField<Self>] = [
      .choice("shape", \.shape, help: "the region's shape"),
      .length("x", \.x, .horizontal, fractions: 0...1, positive: false, help: "rect: left column"),
      .length("y", \.y, .vertical, fractions: 0...1, positive: false, help: "rect: top row"),
      .length("width", \.width, .horizontal, fractions: 0...1, positive: true, help: "rect: width"),
      .length("height", \.height, .vertical, fractions: 0...1, positive: true, help: "rect: height"),
      .point("center", \.center, help: "circle: the centre pixel"),
      .length(
        "radius", \.radius, .shortSide, fractions: 0...2, positive: true,
        help: "circle: radius; % is of the shorter side"),
      .length(
        "block", \.block, .shortSide, fractions: 0...1, positive: true,
        help: "block side (at least 1 px); % is of the shorter side; blocks start at the region's top-left"),
    ]

    public func check(filter: String) throws(FilterError) {
      let rectangle: [(String, Length?)] = [("x", x), ("y", y), ("width", width), ("height", height)]
      let circle: [(String, Bool)] = [("center", center != nil), ("radius", radius != nil)]
      switch shape {
      case .circle:
        if let k = rectangle.first(where: { $0.1 != nil }) {
          throw .conflictingParameters(filter: filter, keys: ["shape=circle", k.0])
        }
        if let k = circle.first(where: { !$0.1 }) { throw .missingParameter(filter: filter, keys: [k.0]) }
      case .rect:
        if let k = circle.first(where: { $0.1 }) {
          throw .conflictingParameters(filter: filter, keys: ["shape=rect", k.0])
        }
        if let k = rectangle.first(where: { $0.1 == nil }) {
          throw .missingParameter(filter: filter, keys: [k.0])
        }
      }
    }

    /// The region in pixels of an image of `size`.
    func region(in size: ImageSize) -> PixelRegion {
      let (w, h) = (size.width, size.height)
      if shape == .circle {
        let c = center!.pixels(width: w, height: h)
        return .circle(centerX: c.x, centerY: c.y, radius: radius!.pixels(of: min(w, h)))
      }
      let px = x!.pixels(of: w)
      let py = y!.pixels(of: h)
      let x0 = Int(px.rounded())
      let y0 = Int(py.rounded())
      let x1 = Int((px + width!.pixels(of: w)).rounded())
      let y1 = Int((py + height!.pixels(of: h)).rounded())
      return .rectangle(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1))
    }

    /// The block side in pixels of an image of `size`, at least 1.
    func blockSize(in size: ImageSize) -> Int {
      max(1, Int(block.pixels(of: min(size.width, size.height)).rounded()))
    }
  }

  /// Local: a rectangle of output needs its blocks whole; only the region's bounding box changes.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel]
  {
    [
      LocalKernel(
        size: input,
        ops: [PixelateOp(region: p.region(in: input), blockSize: p.blockSize(in: input), image: input)])
    ]
  }
}

/// The shape of a region a filter works on.
public enum RegionShape: String, CaseIterable, Sendable {
  case rect, circle
}
