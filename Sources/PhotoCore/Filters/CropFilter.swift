/// `crop`: a rectangle, a rectangle of a given aspect ratio, or a circle (a profile picture).
///
/// Three ways to name the crop:
/// - `x`, `y`, `width`, `height`: the rectangle, in pixels of the image entering the step or
///   percentages. It must lie inside the image: a rectangle that leaves it is refused
///   (`FilterError.regionOutsideImage`), never silently clamped.
/// - `aspect=W:H`: the largest rectangle of that shape that fits, times `scale`, centred on
///   `center` (default the image's centre).
/// - `shape=circle`: the largest square that fits, times `scale`, centred on `center`; the result
///   is that square, transparent outside its inscribed circle (PNG), or filled with `background`
///   where transparent when written as JPEG (`Filters.background(for:)`).
///
/// With `aspect` or a circle, the window moves as little as needed to stay inside the image (as a
/// profile-picture picker stops at the edge): that is the documented clamping rule, and the
/// window's size never changes.
public struct CropFilter: Filter {
  public static let name = "crop"
  public static let summary = "Crops to a rectangle, an aspect ratio, or a circle with a transparent outside."
  public static let version = 1
  public static let defaultBackground = RGBA(255, 255, 255, 255)
  public static let parameters = [
    FilterParameter(
      "shape", .choice(["rect", "circle"]), default: .choice("rect"), help: "rect, or circle (square output)"),
    FilterParameter(
      "x", .length(.horizontal, fractions: 0...1, positive: false), help: "rectangle: left column"),
    FilterParameter("y", .length(.vertical, fractions: 0...1, positive: false), help: "rectangle: top row"),
    FilterParameter(
      "width", .length(.horizontal, fractions: 0...1, positive: true), help: "rectangle: width"),
    FilterParameter(
      "height", .length(.vertical, fractions: 0...1, positive: true), help: "rectangle: height"),
    FilterParameter("aspect", .ratio, help: "the largest W:H rectangle that fits, times scale"),
    FilterParameter(
      "center", .point, default: .point(Point(fractionX: 0.5, y: 0.5)),
      help: "aspect or circle: where the window is centred (moved to stay inside)"),
    FilterParameter(
      "scale", .number(0.01...1), default: .number(1),
      help: "aspect or circle: size relative to the largest that fits"),
    FilterParameter(
      "background", .color, default: .color(defaultBackground),
      help: "circle: the colour outside the circle when written as JPEG"),
  ]

  static let rectangleKeys = ["x", "y", "width", "height"]

  public static func check(_ p: FilterValues) throws(FilterError) {
    let given = rectangleKeys.filter(p.has)
    if p.choice("shape") == "circle" {
      if let k = given.first { throw .conflictingParameters(filter: name, keys: ["shape=circle", k]) }
      if p.has("aspect") { throw .conflictingParameters(filter: name, keys: ["shape=circle", "aspect"]) }
    } else if p.has("aspect") {
      if let k = given.first { throw .conflictingParameters(filter: name, keys: ["aspect", k]) }
    } else {
      if given.isEmpty {
        throw .missingParameter(filter: name, key: "x, y, width and height, or aspect, or shape=circle")
      }
      for k in rectangleKeys where !p.has(k) { throw .missingParameter(filter: name, key: k) }
    }
  }

  public static func resolve(_ p: inout FilterValues, for image: Image, context: FilterContext)
    throws(FilterError)
    -> [String: JSONValue]
  {
    try requireInside(p, image)
    return [:]
  }

  /// A rectangle must lie inside the image, on the command line and in a stored recipe alike (a
  /// hand-edited sidecar is refused, never silently cut down).
  static func requireInside(_ p: FilterValues, _ image: Image) throws(FilterError) {
    guard p.choice("shape") == "rect", !p.has("aspect") else { return }
    let x = p.pixels("x", .horizontal, of: image)!
    let y = p.pixels("y", .vertical, of: image)!
    let w = p.pixels("width", .horizontal, of: image)!
    let h = p.pixels("height", .vertical, of: image)!
    let slack = 1e-9
    if x + w > Double(image.width) + slack || y + h > Double(image.height) + slack {
      throw .regionOutsideImage(
        filter: name,
        region:
          "rectangle x=\(p.text("x")),y=\(p.text("y")),width=\(p.text("width")),height=\(p.text("height"))",
        width: image.width, height: image.height)
    }
  }

  /// The crop window in pixels of `image`: (x, y, width, height), inside the image, at least 1x1.
  static func window(_ p: FilterValues, in image: Image) -> (x: Int, y: Int, width: Int, height: Int) {
    let (W, H) = (image.width, image.height)
    func clampedSpan(_ start: Double, _ end: Double, _ extent: Int) -> (Int, Int) {
      var a = min(max(Int(start.rounded()), 0), extent - 1)
      let b = min(max(Int(end.rounded()), a + 1), extent)
      if b <= a { a = b - 1 }
      return (a, b - a)
    }
    if p.choice("shape") == "rect", !p.has("aspect") {
      let x = p.pixels("x", .horizontal, of: image)!
      let y = p.pixels("y", .vertical, of: image)!
      let (x0, cw) = clampedSpan(x, x + p.pixels("width", .horizontal, of: image)!, W)
      let (y0, ch) = clampedSpan(y, y + p.pixels("height", .vertical, of: image)!, H)
      return (x0, y0, cw, ch)
    }
    let (aw, ah) = p.choice("shape") == "circle" ? (1.0, 1.0) : p.ratio("aspect")!
    let scale = p.number("scale")
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
    if p.choice("shape") == "circle" { (cw, ch) = (min(cw, ch), min(cw, ch)) }
    // Centre the window on `center` (x0 = round(cx - width / 2), so 50%:50% centres it exactly),
    // then move it inside.
    let c = p.point("center")!.pixels(width: W, height: H)
    let x0 = min(max(Int((c.x - Double(cw) / 2).rounded()), 0), W - cw)
    let y0 = min(max(Int((c.y - Double(ch) / 2).rounded()), 0), H - ch)
    return (x0, y0, cw, ch)
  }

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    try requireInside(p, image)
    let r = window(p, in: image)
    image = image.cropped(x: r.x, y: r.y, width: r.width, height: r.height)
    if p.choice("shape") == "circle" { image.maskToInscribedCircle() }
  }
}
