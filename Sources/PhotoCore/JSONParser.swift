/// The strict JSON reader (RFC 8259) of every JSON file photoedit reads: sidecars, journals,
/// corrections and strokes files, any of which someone else may have written.
///
/// It refuses what readers disagree on, so that photoedit never acts on a document that another
/// program (or a person reading it) sees differently:
/// - a key that appears twice in one object (readers keep the first, the last, or either);
/// - a number outside the grammar (`+1`, `01`, `.5`, `1.`, `0x10`) or beyond `Double`'s range
///   (`1e999`);
/// - text that is not UTF-8, a raw control character in a string, a `\u` escape of half a
///   surrogate pair.
/// A UTF-8 byte order mark before the document is skipped.
///
/// It nests at most 255 deep and reads at most `maxValues` values (every number, string,
/// literal, array and object counts one): past that it stops, so a hostile file costs no more
/// memory than the values a caller allows.
public struct JSONParser {
  public struct Failure: Error, CustomStringConvertible, Equatable {
    /// What is wrong, as `expected ',' or '}'`.
    public var reason: String
    /// The byte where it is wrong (counting a byte order mark).
    public var offset: Int
    /// True when the document holds more than `maxValues` values.
    public var tooManyValues = false

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }

    /// `line L, column C: reason`, where the document is `bytes`: for files people edit.
    public func located(in bytes: [UInt8]) -> String {
      let (line, column) = JSONParser.position(of: offset, in: bytes)
      return "line \(line), column \(column): \(reason)"
    }
  }

  let bytes: [UInt8]
  let maxValues: Int
  var i = 0
  var depth = 0
  var values = 0

  private init(bytes: [UInt8], maxValues: Int) { (self.bytes, self.maxValues) = (bytes, maxValues) }

  /// The document in `bytes`: one value, with only white space around it.
  public static func parse(_ bytes: [UInt8], maxValues: Int = .max) throws(Failure) -> JSONValue {
    var parser = JSONParser(bytes: bytes, maxValues: maxValues)
    return try parser.parseDocument()
  }

  /// The line and column (from 1, in bytes) of `offset` in `bytes`, for messages about files
  /// people edit.
  public static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var (line, start) = (1, 0)
    for k in 0..<min(offset, bytes.count) where bytes[k] == 0x0A { (line, start) = (line + 1, k + 1) }
    return (line, offset - start + 1)
  }

  private mutating func parseDocument() throws(Failure) -> JSONValue {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    let v = try value()
    skipSpace()
    guard i == bytes.count else { throw fail("unexpected text after the JSON value") }
    return v
  }

  private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: i) }

  private mutating func skipSpace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D {
      i += 1
    }
  }

  /// Moves past `byte` when it is next (after white space).
  private mutating func take(_ byte: Unicode.Scalar) -> Bool {
    skipSpace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: byte) else { return false }
    i += 1
    return true
  }

  private mutating func value() throws(Failure) -> JSONValue {
    skipSpace()
    guard i < bytes.count else { throw fail("unexpected end") }
    values += 1
    guard values <= maxValues else {
      throw Failure(reason: "more than \(maxValues) values", offset: i, tooManyValues: true)
    }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      try enter()
      defer { depth -= 1 }
      var object: [String: JSONValue] = [:]
      if take("}") { return .object(object) }
      repeat {
        skipSpace()
        let keyStart = i
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
        let key = try string()
        guard take(":") else { throw fail("expected ':'") }
        let v = try value()
        guard object.updateValue(v, forKey: key) == nil else {
          throw Failure(reason: "the key \(quoted(key)) appears twice in one object", offset: keyStart)
        }
      } while take(",")
      guard take("}") else { throw fail(i == bytes.count ? "unexpected end" : "expected ',' or '}'") }
      return .object(object)
    case UInt8(ascii: "["):
      try enter()
      defer { depth -= 1 }
      var array: [JSONValue] = []
      if take("]") { return .array(array) }
      repeat { array.append(try value()) } while take(",")
      guard take("]") else { throw fail(i == bytes.count ? "unexpected end" : "expected ',' or ']'") }
      return .array(array)
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    default:
      return try number()
    }
  }

  /// Steps into an array or object.
  private mutating func enter() throws(Failure) {
    depth += 1
    guard depth < 256 else {
      depth -= 1
      throw fail("nested too deeply")
    }
    i += 1
  }

  private mutating func literal(_ word: StaticString, _ v: JSONValue) throws(Failure) -> JSONValue {
    guard at(word) else { throw fail("unexpected word") }
    i += word.utf8CodeUnitCount
    return v
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within `Double`'s range.
  private mutating func number() throws(Failure) -> JSONValue {
    let start = i
    func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 0x30 && bytes[k] <= 0x39 }
    func at(_ k: Int, _ c: Unicode.Scalar) -> Bool { k < bytes.count && bytes[k] == UInt8(ascii: c) }
    var k = i
    if at(k, "-") { k += 1 }
    if at(k, "0") {
      k += 1
    } else if isDigit(k) {
      while isDigit(k) { k += 1 }
    } else {
      throw fail(k == i ? "expected a value" : "expected a digit")
    }
    if at(k, ".") {
      k += 1
      guard isDigit(k) else {
        i = k
        throw fail("expected a digit after '.'")
      }
      while isDigit(k) { k += 1 }
    }
    if at(k, "e") || at(k, "E") {
      k += 1
      if at(k, "+") || at(k, "-") { k += 1 }
      guard isDigit(k) else {
        i = k
        throw fail("expected a digit in the exponent")
      }
      while isDigit(k) { k += 1 }
    }
    if isDigit(k) {
      // A leading zero followed by more digits (`01`).
      i = k
      throw fail("a number has a leading zero")
    }
    let text = String(decoding: bytes[start..<k], as: UTF8.self)
    guard let v = Double(text), v.isFinite else { throw fail("the number \(text) is out of range") }
    i = k
    return .number(v)
  }

  private mutating func string() throws(Failure) -> String {
    let start = i
    i += 1  // opening quote
    var out: [UInt8] = []
    while true {
      guard i < bytes.count else { throw fail("unterminated string") }
      let c = bytes[i]
      switch c {
      case UInt8(ascii: "\""):
        i += 1
        guard let s = String(validating: out, as: UTF8.self) else {
          throw Failure(reason: "a string is not UTF-8", offset: start)
        }
        return s
      case UInt8(ascii: "\\"):
        i += 1
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
          var code = try hex()
          let half = "a \\u escape holds half a surrogate pair"
          if (0xD800..<0xDC00).contains(code) {
            // A high surrogate: its low one must follow, as another escape.
            guard at("\\u") else { throw fail(half) }
            i += 2
            let low = try hex()
            guard (0xDC00..<0xE000).contains(low) else { throw fail(half) }
            code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
          }
          // nil for a low surrogate alone.
          guard let scalar = Unicode.Scalar(code) else { throw fail(half) }
          UTF8.encode(scalar) { out.append($0) }
        default:
          i -= 1
          throw fail("bad escape")
        }
      case 0..<0x20:
        throw fail("control character in string")
      default:
        out.append(c)
        i += 1
      }
    }
  }

  /// True when `text` comes next.
  private func at(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    return i + count <= bytes.count
      && text.withUTF8Buffer { t in (0..<count).allSatisfy { bytes[i + $0] == t[$0] } }
  }

  /// The four hexadecimal digits of a `\u` escape.
  private mutating func hex() throws(Failure) -> UInt32 {
    guard i + 4 <= bytes.count else { throw fail("bad \\u escape") }
    var code: UInt32 = 0
    for k in i..<(i + 4) {
      let b = bytes[k]
      let digit: UInt8
      switch b {
      case 0x30...0x39: digit = b - 0x30
      case 0x41...0x46: digit = b - 0x41 + 10
      case 0x61...0x66: digit = b - 0x61 + 10
      default: throw fail("bad \\u escape")
      }
      code = code << 4 | UInt32(digit)
    }
    i += 4
    return code
  }
}

/// `s` in double quotes for a message, with quotes, backslashes and control characters escaped,
/// cut after 40 characters.
private func quoted(_ s: String) -> String {
  var out = "\""
  for (n, scalar) in s.unicodeScalars.enumerated() {
    if n == 40 { return out + "...\"" }
    switch scalar {
    case "\"", "\\": out += "\\\(scalar)"
    case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
      out +=
        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
        + String(scalar.value, radix: 16)
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}
