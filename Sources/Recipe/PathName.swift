/// File names on Linux are bytes, not text: an old camera card or a Windows zip can hold
/// `caf\xE9.jpg` (Latin-1), which is not UTF-8. Swift's `String` would repair such bytes into
/// U+FFFD and so lose the name. photoedit keeps paths in `String`s losslessly instead:
///
/// - valid UTF-8 decodes as usual;
/// - every byte that is not part of valid UTF-8 becomes one private-use scalar, U+10FE00 plus the
///   byte (U+10FE80...U+10FEFF), and so does each byte of a genuine U+10FE80...U+10FEFF, so
///   that decoding then encoding gives back the exact bytes for every name;
/// - `withCString` turns such a string back into the bytes for a system call, and `display`
///   shows those bytes as `\xE9` in messages and JSON.
public enum PathName {
  private static let escapeBase: UInt32 = 0x10FE00
  private static let escapes: ClosedRange<UInt32> = 0x10FE80...0x10FEFF

  /// The string for a file name's bytes; lossless for any bytes (see the type's comment).
  ///
  /// - Complexity: O(n).
  public static func string<C: Collection<UInt8>>(_ bytes: C) -> String where C.Index == Int {
    if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: isEscape) {
      return text
    }
    var scalars = String.UnicodeScalarView()
    var i = bytes.startIndex
    while i < bytes.endIndex {
      if let (scalar, length) = decodeScalar(bytes, at: i), !escapes.contains(scalar.value) {
        scalars.append(scalar)
        i += length
      } else {
        scalars.append(Unicode.Scalar(escapeBase + UInt32(bytes[i]))!)
        i += 1
      }
    }
    return String(scalars)
  }

  /// The string for a NUL-terminated name the system handed over (argv, getenv, getcwd).
  public static func string(cString: UnsafePointer<CChar>) -> String {
    let bytes = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
    var count = 0
    while bytes[count] != 0 { count += 1 }
    return string(UnsafeBufferPointer(start: bytes, count: count))
  }

  /// The bytes a path string stands for.
  public static func bytes(_ path: String) -> [UInt8] {
    guard path.unicodeScalars.contains(where: isEscape) else { return Array(path.utf8) }
    var out: [UInt8] = []
    for scalar in path.unicodeScalars {
      if isEscape(scalar) {
        out.append(UInt8(scalar.value - escapeBase))
      } else {
        out += Array(String(scalar).utf8)
      }
    }
    return out
  }

  /// Calls `body` with the path as the NUL-terminated bytes a system call takes. A path holding
  /// a NUL byte (no file name can) becomes the empty path, which every call refuses (ENOENT):
  /// cut at the NUL it would name another file, say `a.jpg` for `a.jpg\0.photoedit.lock`.
  public static func withCString<R, E: Error>(_ path: String, _ body: (UnsafePointer<CChar>) throws(E) -> R)
    throws(E) -> R
  {
    var bytes = bytes(path)
    if bytes.contains(0) { bytes = [] }
    bytes.append(0)
    let result: Result<R, E> = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        Result { () throws(E) in try body(chars.baseAddress!) }
      }
    }
    return try result.get()
  }

  /// The text for people and JSON: a byte that is not UTF-8 appears as `\xHH`.
  public static func display(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isEscape) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      if isEscape(scalar) {
        out += hex(scalar.value - escapeBase)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// The text for a terminal: as `display`, and each byte of a control character other than
  /// newline and tab (C0, DEL, and C1 as its two UTF-8 bytes) as `\xHH` too. File names are
  /// escaped where they are put in a message (`\n`, `\r`, as JSON does); this is the last net,
  /// for values read from a planted file, so that nothing photoedit prints can send a
  /// terminal an escape sequence (`\x1B[2J`) or rewrite a line.
  public static func terminalSafe(_ text: String) -> String {
    let shown = display(text)
    guard shown.unicodeScalars.contains(where: isControl) else { return shown }
    var out = ""
    for scalar in shown.unicodeScalars {
      if isControl(scalar) {
        for byte in String(scalar).utf8 { out += hex(UInt32(byte)) }
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private static func hex(_ byte: UInt32) -> String {
    let digits = Array("0123456789ABCDEF")
    return "\\x\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F...0x9F).contains(v)
  }

  private static func isEscape(_ scalar: Unicode.Scalar) -> Bool { escapes.contains(scalar.value) }

  /// One well-formed UTF-8 sequence at `i` (shortest form, no surrogates, at most U+10FFFF).
  private static func decodeScalar<C: Collection<UInt8>>(_ bytes: C, at i: Int) -> (Unicode.Scalar, Int)?
  where C.Index == Int {
    let lead = bytes[i]
    let (length, minimum, initial): (Int, UInt32, UInt32) =
      switch lead {
      case 0x00...0x7F: (1, 0, UInt32(lead))
      case 0xC2...0xDF: (2, 0x80, UInt32(lead & 0x1F))
      case 0xE0...0xEF: (3, 0x800, UInt32(lead & 0x0F))
      case 0xF0...0xF4: (4, 0x10000, UInt32(lead & 0x07))
      default: (0, 0, 0)
      }
    guard length > 0, i + length <= bytes.endIndex else { return nil }
    var value = initial
    for k in 1..<length {
      let byte = bytes[i + k]
      guard byte & 0xC0 == 0x80 else { return nil }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
    return (scalar, length)
  }
}
