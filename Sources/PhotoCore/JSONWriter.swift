/// The one JSON writer: store files (sidecars, journals, corrections, the request key) in the
/// indented layout, `--json` result lines on one line. `JSONParser` is its one reader.
///
/// The indented layout is what the store has always written (Foundation's pretty-printed,
/// sorted-key, unescaped-slash output), byte for byte, so existing sidecars, the request keys
/// hashed from it and the tests that pin them are unchanged:
///
///     {
///       "formatVersion" : 2,
///       "undone" : []
///     }
public enum JSONWriter {
  /// How a value is laid out.
  public enum Layout: Sendable {
    /// Two spaces per level, `"key" : value`, one member per line, keys sorted, a final newline.
    case indented
    /// One line, `{"key": value, ...}`: `leadingKeys` that are present first, in that order,
    /// then the rest sorted (`file`, `status`, ... for a result line), no final newline.
    case line(leadingKeys: [String])
  }

  /// `value` as JSON in `layout`. `strings` maps every string (keys too) before it is escaped:
  /// result lines show a file name's non-UTF-8 bytes as `\xHH` through it; store files keep
  /// them as they are (the identity).
  public static func encode(
    _ value: JSONValue, layout: Layout, strings: @escaping (String) -> String = { $0 }
  ) -> String {
    var writer = Writer(layout: layout, strings: strings)
    writer.write(value, depth: 0, top: true)
    if case .indented = layout { writer.out += "\n" }
    return writer.out
  }

  /// The UTF-8 bytes of `encode`.
  public static func bytes(_ value: JSONValue, layout: Layout = .indented) -> [UInt8] {
    Array(encode(value, layout: layout).utf8)
  }

  /// A number as JSON: a whole number under 10^15 without a fraction (`3`, not `3.0`); others
  /// as Swift's shortest round-trip form (`0.3`, `1e-07`, `1e+15`); NaN and infinities, which
  /// JSON cannot hold, as `null`.
  public static func number(_ n: Double) -> String {
    guard n.isFinite else { return "null" }
    if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
    let text = n.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }

  /// Keys in order of their UTF-8 bytes (the order is the same on every machine and locale).
  static func sorted<S: Sequence<String>>(_ keys: S) -> [String] {
    keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  private struct Writer {
    let layout: Layout
    let strings: (String) -> String
    var out = ""

    var indented: Bool { if case .indented = layout { true } else { false } }

    mutating func newline(_ depth: Int) {
      out += "\n"
      out += String(repeating: "  ", count: depth)
    }

    mutating func write(_ value: JSONValue, depth: Int, top: Bool = false) {
      switch value {
      case .null: out += "null"
      case .bool(let b): out += b ? "true" : "false"
      case .number(let n): out += JSONWriter.number(n)
      case .string(let s): writeString(s)
      case .array(let items):
        out += "["
        for (i, item) in items.enumerated() {
          if i > 0 { out += indented ? "," : ", " }
          if indented { newline(depth + 1) }
          write(item, depth: depth + 1)
        }
        if indented && !items.isEmpty { newline(depth) }
        out += "]"
      case .object(let object):
        var keys = JSONWriter.sorted(object.keys)
        if top, case .line(let leading) = layout {
          let first = leading.filter { object[$0] != nil }
          keys = first + keys.filter { !first.contains($0) }
        }
        out += "{"
        for (i, key) in keys.enumerated() {
          if i > 0 { out += indented ? "," : ", " }
          if indented { newline(depth + 1) }
          writeString(key)
          out += indented ? " : " : ": "
          write(object[key]!, depth: depth + 1)
        }
        if indented && !keys.isEmpty { newline(depth) }
        out += "}"
      }
    }

    /// `"`, `\`, and the control characters U+0000 to U+001F escaped (the short forms where
    /// JSON has them, else `\u00XX`); `/` and everything else as it is.
    mutating func writeString(_ raw: String) {
      out += "\""
      for scalar in strings(raw).unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{8}": out += "\\b"
        case "\u{C}": out += "\\f"
        case _ where scalar.value < 0x20:
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
      }
      out += "\""
    }
  }
}
