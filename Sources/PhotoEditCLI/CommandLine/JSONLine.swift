import PhotoCore
import Recipe

/// Writes one-line JSON with a stable key order: `file`, `status`, `error`, `seconds`, then the
/// rest sorted, so that scripts and diffs see the same bytes for the same result.
enum JSONLine {
  static let leadingKeys = ["file", "status", "error", "seconds"]

  static func encode(_ object: [String: JSONValue]) -> String {
    var out = ""
    writeObject(object, leading: leadingKeys, into: &out)
    return out
  }

  static func encode(_ value: JSONValue) -> String {
    var out = ""
    write(value, into: &out)
    return out
  }

  private static func writeObject(_ object: [String: JSONValue], leading: [String], into out: inout String) {
    let first = leading.filter { object[$0] != nil }
    let rest = object.keys.filter { !leading.contains($0) }.sorted()
    out += "{"
    for (n, key) in (first + rest).enumerated() {
      if n > 0 { out += ", " }
      writeString(key, into: &out)
      out += ": "
      write(object[key]!, into: &out)
    }
    out += "}"
  }

  private static func write(_ value: JSONValue, into out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += format(n)
    case .string(let s): writeString(s, into: &out)
    case .array(let items):
      out += "["
      for (n, item) in items.enumerated() {
        if n > 0 { out += ", " }
        write(item, into: &out)
      }
      out += "]"
    case .object(let o): writeObject(o, leading: [], into: &out)
    }
  }

  static func format(_ n: Double) -> String {
    if !n.isFinite { return "null" }
    if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
    return "\(n)"
  }

  /// A string, with a file name's bytes that are not UTF-8 shown as \\xHH (`PathName.display`).
  private static func writeString(_ s: String, into out: inout String) {
    out += "\""
    for scalar in PathName.display(s).unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

/// Text output shows a file name's control characters escaped, as JSON does, so a name with a
/// newline or an escape sequence cannot forge lines or repaint the terminal.
enum TextEscaping {
  static func controls(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        let digits = Array("0123456789ABCDEF")
        out += "\\x\(digits[Int(scalar.value >> 4)])\(digits[Int(scalar.value & 15)])"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
