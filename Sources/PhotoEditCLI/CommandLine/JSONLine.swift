import PhotoCore
import Recipe
import Store

/// Writes one-line JSON with a stable key order: `file`, `status`, `error`, `seconds`, then the
/// rest sorted, so that scripts and diffs see the same bytes for the same result.
enum JSONLine {
  static let leadingKeys = ["file", "status", "error", "seconds"]

  static func encode(_ object: [String: JSONValue]) -> String {
    JSONWriter.encode(.object(object), layout: .line(leadingKeys: leadingKeys), strings: PathName.display)
  }

  static func encode(_ value: JSONValue) -> String {
    JSONWriter.encode(value, layout: .line(leadingKeys: []), strings: PathName.display)
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
