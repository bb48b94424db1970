/// `crop`: a rectangle, a rectangle of a given aspect ratio, or a circle (a profile picture).
///
/// Three ways to name the crop:
/// - `x`, `y`, `width`, `height`: the rectangle, in pixels of the image entering the step or
///   fractions. It must lie inside the image: a rectangle that leaves it is refused
///   (`FilterError.regionOutsideImage`), never silently clamped.
/// - `aspect`: the largest rectangle of that shape that fits, times `scale`, centred on `center`
///   (default the image's centre).
/// - `shape=circle`: the largest square that fits, times `scale`, centred on `center`; the result
///   is that square, transparent outside its inscribed circle, and `background` is the colour
///   the transparency takes in a format that has none (`transparencyFill`).
///
/// With `aspect` or a circle, the window moves as little as needed to stay inside the image (as a
/// profile-picture picker stops at the edge): that is the documented clamping rule, and the
/// window's size never changes.
public struct CropFilter: Filter {
  public static let name = "crop"
  public static let summary = "Crops to a rectangle, an aspect ratio, or a circle with a transparent outside."
  public static let version = 1

  public struct Parameters: ParameterSet {
    /// Default rect.
    public var shape = RegionShape.rect
    /// The rectangle (all four, unless `aspect` or `shape=circle`).
    public var x: Length?, y: Length?, width: Length?, height: Length?
    /// The largest rectangle of this shape that fits, times `scale`.
    public var aspect: Ratio?
    /// Where an aspect or circle window is centred; default the image's centre.
    public var center = Point(fractionX: 0.5, y: 0.5)
    /// 0.01...1, default 1: an aspect or circle window's size relative to the largest that fits.
    public var scale = 1.0
    /// The colour outside the circle in a format without transparency; default opaque white.
    public var background = RGBA(255, 255, 255, 255)
    public init() {}

    public static let fields: [ParameterField<Self>] = [
      .choice("shape", \.shape, help: "rect, or circle (square output)"),
      .length("x", \.x, .horizontal, fractions: 0...1, positive: false, help: "rectangle: left column"),
      .length("y", \.y, .vertical, fractions: 0...1, positive: false, help: "rectangle: top row"),
      .length("width", \.width, .horizontal, fractions: 0...1, positive: true, help: "rectangle: width"),
      .length("height", \.height, .vertical, fractions: 0...1, positive: true, help: "rectangle: height"),
      .ratio("aspect", \.aspect, help: "the largest W:H rectangle that fits, times scale"),
      .point(
        "center", \.center, help: "aspect or circle: where the window is centred (moved to stay inside)"),
      .number("scale", \.scale, 0.01...1, help: "aspect or circle: size relative to the largest that fits"),
      .color("background", \.background, help: "circle: the colour outside the circle when written as JPEG"),
    ]

    var rectangle: [(key: String, value: Length?)] {
      [("x", x), ("y", y), ("width", width), ("height", height)]
    }
    var isRectangle: Bool { shape == .rect && aspect == nil }

    public func check(filter: String) throws(FilterError) {
      let given = rectangle.filter { $0.value != nil }.map(\.key)
      if shape == .circle {
        if let k = given.first { throw .conflictingParameters(filter: filter, keys: ["shape=circle", k]) }
        if aspect != nil { throw .conflictingParameters(filter: filter, keys: ["shape=circle", "aspect"]) }
      } else if aspect != nil {
        if let k = given.first { throw .conflictingParameters(filter: filter, keys: ["aspect", k]) }
      } else {
        if given.isEmpty {
          throw .missingParameter(filter: filter, keys: ["x, y, width and height", "aspect", "shape=circle"])
        }
        if let k = rectangle.first(where: { $0.value == nil }) {
          throw .missingParameter(filter: filter, keys: [k.key])
        }
      }
    }

    /// A rectangle must lie inside the image, in a request and in a stored recipe alike (a
    /// hand-edited recipe is refused, never silently cut down).
    func requireInside(_ size: ImageSize) throws(FilterError) {
      guard isRectangle, let x, let y, let width, let height else { return }
      let (px, py) = (x.pixels(of: size.width), y.pixels(of: size.height))
      let (pw, ph) = (width.pixels(of: size.width), height.pixels(of: size.height))
      let slack = 1e-9
      if px + pw > Double(size.width) + slack || py + ph > Double(size.height) + slack {
        throw .regionOutsideImage(
          filter: CropFilter.name, region: Box(x: x, y: y, width: width, height: height), image: size)
      }
    }

    /// The crop window in pixels of an image of `size`: inside the image, at least 1x1.
    func window(in size: ImageSize) -> (x: Int, y: Int, width: Int, height: Int) {
      let (W, H) = (size.width, size.height)
      func clampedSpan(_ start: Double, _ end: Double, _ extent: Int) -> (Int, Int) {
        var a = min(max(Int(start.rounded()), 0), extent - 1)
        let b = min(max(Int(end.rounded()), a + 1), extent)
        if b <= a { a = b - 1 }
        return (a, b - a)
      }
      if isRectangle {
        let px = x!.pixels(of: W)
        let py = y!.pixels(of: H)
        let (x0, cw) = clampedSpan(px, px + width!.pixels(of: W), W)
        let (y0, ch) = clampedSpan(py, py + height!.pixels(of: H), H)
        return (x0, y0, cw, ch)
      }
      let (aw, ah) = shape == .circle ? (1.0, 1.0) : (aspect!.width, aspect!.height)
      // The largest aw:ah rectangle inside W×H, times scale.
      var fw: Double
      var fh: Double
      if Double(W) * ah > Double(H) * aw {
        (fh, fw) = (Double(H), Double(H) * aw / ah)
      } else {
        (fw, fh) = (Double(W), Double(W) * ah / aw)
      }
      var cw = min(max(Int((fw * scale).rounded()), 1), W)
      var ch = min(max(Int((fh * scale).rounded()), 1), H)
      if shape == .circle { (cw, ch) = (min(cw, ch), min(cw, ch)) }
      // Centre the window on `center` (x0 = round(cx - width / 2), so 50%:50% centres it
      // exactly), then move it inside.
      let c = center.pixels(width: W, height: H)
      let x0 = min(max(Int((c.x - Double(cw) / 2).rounded()), 0), W - cw)
      let y0 = min(max(Int((c.y - Double(ch) / 2).rounded()), 0), H - ch)
      return (x0, y0, cw, ch)
    }
  }

  public static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError)
    -> NoDerivedState
  {
    try p.requireInside(context.size)
    return NoDerivedState()
  }

  /// A transform (the window), then for a circle a pointwise mask on the window.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) throws(FilterError)
    -> [any StepKernel]
  {
    try p.requireInside(input)
    let r = p.window(in: input)
    let window = PixelRect(x: r.x, y: r.y, width: r.width, height: r.height)
    var kernels: [any StepKernel] = []
    if window != PixelRect(input) { kernels.append(TransformKernel(.crop(window, of: input))) }
    if p.shape == .circle { kernels.append(CircleMaskKernel(size: window.size)) }
    return kernels
  }

  public static func transparencyFill(_ p: Parameters) -> RGBA? { p.shape == .circle ? p.background : nil }
}
