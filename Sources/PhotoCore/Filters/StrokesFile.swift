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
    var parser = JSONParser(bytes: bytes, maxValues: maxValues)
    let root: JSONValue
    do { root = try parser.parseDocument() } catch {
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

/// A small strict JSON reader (RFC 8259), since PhotoCore does not use Foundation.
///
/// It nests at most 255 deep, and reads at most `maxValues` values (every number, string,
/// literal, array and object counts one): past that it stops, so a hostile file costs no more
/// memory than the values a caller allows.
struct JSONParser {
  struct Failure: Error, CustomStringConvertible {
    var description: String
    /// True when the document holds more than `maxValues` values.
    var tooManyValues = false
  }
  let bytes: [UInt8]
  let maxValues: Int
  var i = 0
  var depth = 0
  var values = 0

  init(bytes: [UInt8], maxValues: Int = .max) { (self.bytes, self.maxValues) = (bytes, maxValues) }

  mutating func parseDocument() throws(Failure) -> JSONValue {
    let v = try value()
    skipSpace()
    guard i == bytes.count else { throw fail("unexpected text after the JSON value") }
    return v
  }

  private func fail(_ what: String) -> Failure { Failure(description: "invalid JSON at byte \(i): \(what)") }

  private mutating func skipSpace() {
    while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
  }

  private mutating func value() throws(Failure) -> JSONValue {
    skipSpace()
    guard i < bytes.count else { throw fail("unexpected end") }
    values += 1
    guard values <= maxValues else {
      throw Failure(
        description: "invalid JSON at byte \(i): more than \(maxValues) values", tooManyValues: true)
    }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      depth += 1
      defer { depth -= 1 }
      guard depth < 256 else { throw fail("nested too deeply") }
      i += 1
      var object: [String: JSONValue] = [:]
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
        i += 1
        return .object(object)
      }
      while true {
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
        let key = try string()
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
        i += 1
        object[key] = try value()
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end") }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
          continue
        }
        guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
        i += 1
        return .object(object)
      }
    case UInt8(ascii: "["):
      depth += 1
      defer { depth -= 1 }
      guard depth < 256 else { throw fail("nested too deeply") }
      i += 1
      var array: [JSONValue] = []
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
        i += 1
        return .array(array)
      }
      while true {
        array.append(try value())
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end") }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
          continue
        }
        guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
        i += 1
        return .array(array)
      }
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    default:
      return try number()
    }
  }

  private mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
    let w = Array(word.utf8)
    guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
      throw fail("unexpected word")
    }
    i += w.count
    return v
  }

  private mutating func number() throws(Failure) -> JSONValue {
    let start = i
    while i < bytes.count,
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i])
        || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")]
          .contains(bytes[i])
    {
      i += 1
    }
    guard start < i, let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)), v.isFinite else {
      i = start
      throw fail("expected a value")
    }
    return .number(v)
  }

  private mutating func string() throws(Failure) -> String {
    i += 1  // opening quote
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw fail("unterminated string") }
      let c = bytes[i]
      i += 1
      switch c {
      case UInt8(ascii: "\""):
        return String(decoding: out, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard i < bytes.count else { throw fail("unterminated string") }
        let e = bytes[i]
        i += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(8)
        case UInt8(ascii: "f"): out.append(12)
        case UInt8(ascii: "n"): out.append(10)
        case UInt8(ascii: "r"): out.append(13)
        case UInt8(ascii: "t"): out.append(9)
        case UInt8(ascii: "u"):
          guard i + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
          else { throw fail("bad \\u escape") }
          i += 4
          // Surrogate pairs are not needed for stroke files; a lone surrogate becomes U+FFFD.
          let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
          out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default: throw fail("bad escape")
        }
      case 0..<0x20:
        throw fail("control character in string")
      default:
        out.append(c)
      }
    }
  }
}

/// A coordinate of the strokes file written as text: `"40%"` (a fraction, 0.4) or a number of
/// pixels.
private func parseLength(_ text: String) -> Length? {
  if text.hasSuffix("%") {
    guard let v = Double(text.dropLast()), v.isFinite else { return nil }
    return .fraction(v / 100)
  }
  guard let v = Double(text), v.isFinite else { return nil }
  return .pixels(v)
}
