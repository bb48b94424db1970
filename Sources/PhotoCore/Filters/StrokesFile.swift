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
public enum StrokesFile {
  public struct ParseError: Error, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
  }

  public static func parse(_ bytes: [UInt8]) throws(ParseError) -> [[Point]] {
    var parser = JSONParser(bytes: bytes)
    let root: JSONValue
    do { root = try parser.parseDocument() } catch { throw ParseError(error.description) }
    let list: [JSONValue]
    if let a = root.array {
      list = a
    } else if let s = root.object?["strokes"]?.array {
      list = s
    } else {
      throw ParseError("expected a list of strokes or {\"strokes\": [...]}")
    }
    guard !list.isEmpty else { throw ParseError("the file holds no strokes") }
    var strokes: [[Point]] = []
    for (i, item) in list.enumerated() {
      guard let pointList = item.array ?? item.object?["points"]?.array, !pointList.isEmpty else {
        throw ParseError("stroke \(i) is not a non-empty list of points")
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
struct JSONParser {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }
  let bytes: [UInt8]
  var i = 0
  var depth = 0

  init(bytes: [UInt8]) { self.bytes = bytes }

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
