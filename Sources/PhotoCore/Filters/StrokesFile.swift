/// The JSON file of brush strokes that `brush:strokes=FILE` reads.
///
/// Either a list of strokes, each a list of `[x, y]` points:
///
///     [[[10, 20], [300, 40]], [[15, 200], [80, 210], [140, 190]]]
///
/// or an object whose `strokes` holds such strokes, each either a list of points or an object
/// with `points`:
///
///     {"strokes": [{"points": [[10, 20], [300, 40]]}, [[15, 200], [80, 210]]]}
///
/// A coordinate is a number of pixels of the image entering the step, or a string ending in `%`
/// (`"50%"`), a fraction of its width (x) or height (y).
///
/// A file holds at most `maxStrokes` strokes of at most `maxPointsPerStroke` points, and
/// `maxPoints` points in all: the strokes are copied into the sidecar (about 100 bytes a point),
/// and each is drawn over every row it spans.
public enum StrokesFile {
  public struct ParseError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
  }

  static let maxStrokes = 10_000
  static let maxPointsPerStroke = 10_000
  static let maxPoints = 100_000
  /// The largest file read, in bytes: 100,000 points pretty-printed take about 6 MB.
  static let maxBytes = 16 << 20
  /// The most JSON values a file within the limits holds (three a point, at most three a
  /// stroke with its `{"points": ...}`, and a few around them): the parser stops past it, so its
  /// memory stays near 100 bytes a point however many values a file has.
  static let maxValues = 3 * maxPoints + 3 * maxStrokes + 16

  public static func parse(_ bytes: [UInt8]) throws(ParseError) -> [[Point]] {
    guard bytes.count <= maxBytes else {
      throw ParseError("the file is \(bytes.count) bytes, more than the limit of \(maxBytes)")
    }
    let root: JSONValue
    do { root = try JSONParser.parse(bytes, maxValues: maxValues) } catch {
      if error.tooManyValues {
        throw ParseError(
          "the file holds too many JSON values for the limits of \(maxStrokes) strokes,"
            + " \(maxPointsPerStroke) points a stroke and \(maxPoints) points in all")
      }
      throw ParseError(error.description)
    }
    let list: [JSONValue]
    if let a = root.array {
      list = a
    } else if let s = root.object?["strokes"]?.array {
      list = s
    } else {
      throw ParseError("expected a list of strokes or {\"strokes\": [...]}")
    }
    guard !list.isEmpty else { throw ParseError("the file holds no strokes") }
    guard list.count <= maxStrokes else {
      throw ParseError("the file holds \(list.count) strokes, more than the limit of \(maxStrokes)")
    }
    var strokes: [[Point]] = []
    var total = 0
    for (i, item) in list.enumerated() {
      guard let pointList = item.array ?? item.object?["points"]?.array, !pointList.isEmpty else {
        throw ParseError("stroke \(i) is not a non-empty list of points")
      }
      guard pointList.count <= maxPointsPerStroke else {
        throw ParseError(
          "stroke \(i) has \(pointList.count) points, more than the limit of \(maxPointsPerStroke)")
      }
      total += pointList.count
      guard total <= maxPoints else {
        let all = list.reduce(0) { $0 + ($1.array ?? $1.object?["points"]?.array ?? []).count }
        throw ParseError("the file holds \(all) points, more than the limit of \(maxPoints)")
      }
      var points: [Point] = []
      for p in pointList {
        guard let xy = p.array, xy.count == 2, let x = coordinate(xy[0]), let y = coordinate(xy[1]) else {
          throw ParseError("stroke \(i): a point is not [x, y]")
        }
        points.append(Point(x: x, y: y))
      }
      strokes.append(points)
    }
    return strokes
  }

  private static func coordinate(_ j: JSONValue) -> Length? {
    if let n = j.number, n.isFinite { return .pixels(n) }
    if let s = j.string, s.hasSuffix("%") { return parseLength(s) }
    return nil
  }
}

/// A coordinate of the strokes file written as text: `"40%"` (a fraction, 0.4) or a number of
/// pixels.
private func parseLength(_ text: String) -> Length? {
  if text.hasSuffix("%") { return Length.fraction(percent: Substring(text.dropLast())).map(Length.fraction) }
  guard let v = Double(text), v.isFinite else { return nil }
  return .pixels(v)
}
