import Foundation
import PhotoCore

/// The store's JSON: pretty-printed, sorted keys, unescaped slashes, a final newline.
enum JSONCoding {
  static func encode<T: Encodable>(_ value: T) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Our own Codable types of strings, numbers and JSONValue always encode.
    return collapsingEmptyContainers(Array(try! encoder.encode(value))) + [0x0A]
  }

  /// Foundation prints an empty array as `[` newline newline `]`; write `[]` (and `{}`).
  /// JSON strings hold no raw newline, so a bracket followed by blank lines is never inside one.
  static func collapsingEmptyContainers(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      out.append(byte)
      i += 1
      guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") else { continue }
      let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
      var j = i
      var sawNewline = false
      while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x0A {
        if bytes[j] == 0x0A { sawNewline = true }
        j += 1
      }
      if sawNewline, j < bytes.count, bytes[j] == close {
        out.append(close)
        i = j + 1
      }
    }
    return out
  }
}
