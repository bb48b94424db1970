/// `pixelate`: one rectangle or circle turned into blocks of their mean colour.
///
/// A rectangle is `x`, `y`, `width`, `height`; a circle is `shape=circle`, `center=X:Y` and
/// `radius`. Positions are pixel indices of the image entering the step (pixel (x, y) is the point
/// (x, y)) or percentages; a pixel is in a circle when its distance to the centre is at most the
/// radius. Stored: x and width as fractions of the width, y and height of the height, radius and
/// block as fractions of the shorter side. Regions may cross the image's border. Give the filter
/// several times for several regions.
public struct PixelateFilter: Filter {
  public static let name = "pixelate"
  public static let summary =
    "Pixelates a rectangle or a circle: each block gets the mean colour of its pixels."
  public static let version = 1
  public static let parameters = [
    FilterParameter(
      "shape", .choice(["rect", "circle"]), default: .choice("rect"), help: "the region's shape"),
    FilterParameter("x", .length(.horizontal, fractions: 0...1, positive: false), help: "rect: left column"),
    FilterParameter("y", .length(.vertical, fractions: 0...1, positive: false), help: "rect: top row"),
    FilterParameter("width", .length(.horizontal, fractions: 0...1, positive: true), help: "rect: width"),
    FilterParameter("height", .length(.vertical, fractions: 0...1, positive: true), help: "rect: height"),
    FilterParameter("center", .point, help: "circle: the centre pixel"),
    FilterParameter(
      "radius", .length(.shortSide, fractions: 0...2, positive: true),
      help: "circle: radius; % is of the shorter side"),
    FilterParameter(
      "block", .length(.shortSide, fractions: 0...1, positive: true), default: .length(.fraction(0.02)),
      help: "block side (at least 1 px); % is of the shorter side; blocks start at the region's top-left"),
  ]

  static let rectangleKeys = ["x", "y", "width", "height"]

  public static func check(_ p: FilterValues) throws(FilterError) {
    if p.choice("shape") == "circle" {
      if let k = rectangleKeys.first(where: p.has) {
        throw .conflictingParameters(filter: name, keys: ["shape=circle", k])
      }
      for k in ["center", "radius"] where !p.has(k) { throw .missingParameter(filter: name, key: k) }
    } else {
      if let k = ["center", "radius"].first(where: p.has) {
        throw .conflictingParameters(filter: name, keys: ["shape=rect", k])
      }
      for k in rectangleKeys where !p.has(k) { throw .missingParameter(filter: name, key: k) }
    }
  }

  /// The region in pixels of `image`.
  static func region(_ p: FilterValues, in image: Image) -> PixelRegion {
    let (w, h) = (image.width, image.height)
    if p.choice("shape") == "circle" {
      let c = p.point("center")!.pixels(width: w, height: h)
      return .circle(centerX: c.x, centerY: c.y, radius: p.pixels("radius", .shortSide, of: image)!)
    }
    let x = p.pixels("x", .horizontal, of: image)!
    let y = p.pixels("y", .vertical, of: image)!
    let x0 = Int(x.rounded())
    let y0 = Int(y.rounded())
    let x1 = Int((x + p.pixels("width", .horizontal, of: image)!).rounded())
    let y1 = Int((y + p.pixels("height", .vertical, of: image)!).rounded())
    return .rectangle(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1))
  }

  /// The block side in pixels of `image`, at least 1.
  static func blockSize(_ p: FilterValues, in image: Image) -> Int {
    max(1, Int(p.pixels("block", .shortSide, of: image)!.rounded()))
  }

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    image.pixelate(region(p, in: image), blockSize: blockSize(p, in: image))
  }
}
