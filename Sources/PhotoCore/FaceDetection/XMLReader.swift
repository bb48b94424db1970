/// A small, strict reader for the subset of XML that OpenCV's `FileStorage` writes.
///
/// It understands the XML declaration, comments, `<!DOCTYPE>`, elements with attributes, empty
/// elements, character data and the five predefined entities. It builds a tree of ``Element``s;
/// whitespace-only text between child elements is kept in `text` and ignored by the cascade reader.
struct XMLReader {
  /// One element: its name, attributes, children in document order and its own character data.
  final class Element {
    let name: String
    var attributes: [String: String] = [:]
    var children: [Element] = []
    var text: String = ""
    /// The 1-based line of the start tag, for messages.
    let line: Int

    init(name: String, line: Int) { (self.name, self.line) = (name, line) }

    /// The first child named `name`, if any.
    func child(_ name: String) -> Element? { children.first { $0.name == name } }

    /// The character data split at ASCII whitespace (as OpenCV's `isspace`), or nil when it
    /// holds more than `limit` tokens (the text is not split past that, so a huge text costs no
    /// huge array).
    func tokens(atMost limit: Int) -> [Substring]? {
      var tokens: [Substring] = []
      let utf8 = text.utf8
      var start: String.Index?
      var i = utf8.startIndex
      while i < utf8.endIndex {
        let c = utf8[i]
        if c == 0x20 || (0x09...0x0D).contains(c) {
          if let s = start {
            guard tokens.count < limit else { return nil }
            tokens.append(Substring(utf8[s..<i]))
            start = nil
          }
        } else if start == nil {
          start = i
        }
        i = utf8.index(after: i)
      }
      if let s = start {
        guard tokens.count < limit else { return nil }
        tokens.append(Substring(utf8[s...]))
      }
      return tokens
    }
  }

  /// The largest cascade file read, in bytes (OpenCV's largest, frontalface_alt_tree, is 2.7 MB).
  static let maxBytes = 64 << 20
  /// The deepest nesting of elements (OpenCV's cascades nest 7 deep, old-format ones 10).
  static let maxDepth = 64
  /// The most elements in a file (frontalface_alt_tree has 61,022).
  static let maxElements = 1_000_000

  private let bytes: [UInt8]
  private var position = 0
  private var line = 1
  private var elements = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Parses `bytes` and returns the root element.
  ///
  /// - Throws: ``CascadeError`` naming the line of the first error, or the limit on the file's
  ///   size, its nesting or its number of elements that it passes.
  static func parse(_ bytes: [UInt8]) throws(CascadeError) -> Element {
    guard bytes.count <= maxBytes else {
      throw CascadeError("the cascade file is \(bytes.count) bytes, more than the limit of \(maxBytes)")
    }
    var reader = XMLReader(bytes)
    return try reader.document()
  }

  private mutating func document() throws(CascadeError) -> Element {
    if bytes.isEmpty { throw CascadeError("the cascade file is empty") }
    // A UTF-8 byte order mark.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    try skipMisc()
    guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else {
      throw error("not an XML file: no root element")
    }
    let root = try element(depth: 1)
    try skipMisc()
    if position < bytes.count { throw error("unexpected text after the root element") }
    return root
  }

  private func error(_ message: String) -> CascadeError {
    CascadeError("malformed cascade XML at line \(line): \(message)")
  }

  /// Skips whitespace, comments, processing instructions and the document type.
  private mutating func skipMisc() throws(CascadeError) {
    while true {
      skipWhitespace()
      if hasPrefix("<?") {
        try skip(past: "?>")
      } else if hasPrefix("<!--") {
        try skip(past: "-->")
      } else if hasPrefix("<!DOCTYPE") {
        try skip(past: ">")
      } else {
        return
      }
    }
  }

  private mutating func skipWhitespace() {
    while position < bytes.count, isSpace(bytes[position]) {
      if bytes[position] == 0x0A { line += 1 }
      position += 1
    }
  }

  private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

  private func hasPrefix(_ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    guard position + n <= bytes.count else { return false }
    return s.withUTF8Buffer { p in
      for i in 0..<n where bytes[position + i] != p[i] { return false }
      return true
    }
  }

  private mutating func skip(past terminator: StaticString) throws(CascadeError) {
    let startLine = line
    while position < bytes.count {
      if hasPrefix(terminator) {
        position += terminator.utf8CodeUnitCount
        return
      }
      if bytes[position] == 0x0A { line += 1 }
      position += 1
    }
    line = startLine
    throw error("unterminated markup, expected \"\(terminator)\"")
  }

  private func isNameByte(_ c: UInt8) -> Bool {
    (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F
      || c == 0x2D || c == 0x2E || c == 0x3A || c >= 0x80
  }

  private mutating func name() throws(CascadeError) -> String {
    let start = position
    while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
    if start == position { throw error("expected a name") }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  /// Reads one element, starting at its `<`, at nesting `depth` (the root is 1). The recursion
  /// is bounded by `maxDepth`, so no file can exhaust the stack.
  private mutating func element(depth: Int) throws(CascadeError) -> Element {
    elements += 1
    guard elements <= Self.maxElements else {
      throw CascadeError("the cascade XML has more than \(Self.maxElements) elements (the limit)")
    }
    guard depth <= Self.maxDepth else { throw error("elements nested more than \(Self.maxDepth) deep") }
    position += 1  // "<"
    let element = Element(name: try name(), line: line)
    // Attributes.
    while true {
      skipWhitespace()
      guard position < bytes.count else { throw error("unterminated start tag <\(element.name)>") }
      let c = bytes[position]
      if c == UInt8(ascii: "/") {
        guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") else {
          throw error("expected \"/>\" in <\(element.name)>")
        }
        position += 2
        return element
      }
      if c == UInt8(ascii: ">") {
        position += 1
        break
      }
      let key = try name()
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
        throw error("expected \"=\" after attribute \(key)")
      }
      position += 1
      skipWhitespace()
      guard position < bytes.count, bytes[position] == 0x22 || bytes[position] == 0x27 else {
        throw error("expected a quoted value for attribute \(key)")
      }
      let quote = bytes[position]
      position += 1
      let start = position
      while position < bytes.count, bytes[position] != quote { position += 1 }
      guard position < bytes.count else { throw error("unterminated attribute \(key)") }
      element.attributes[key] = try decodeEntities(start..<position)
      position += 1
    }
    // Content.
    var text = ""
    while true {
      let start = position
      while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
        if bytes[position] == 0x0A { line += 1 }
        position += 1
      }
      if start < position { text += try decodeEntities(start..<position) }
      guard position < bytes.count else {
        line = element.line
        throw error("element <\(element.name)> is not closed")
      }
      if hasPrefix("</") {
        position += 2
        let closing = try name()
        guard closing == element.name else {
          throw error("</\(closing)> closes <\(element.name)> (opened at line \(element.line))")
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
          throw error("expected \">\" after </\(closing)")
        }
        position += 1
        element.text = text
        return element
      } else if hasPrefix("<!--") {
        try skip(past: "-->")
      } else if hasPrefix("<![CDATA[") {
        position += 9
        let cdataStart = position
        try skip(past: "]]>")
        text += String(decoding: bytes[cdataStart..<(position - 3)], as: UTF8.self)
      } else if hasPrefix("<?") {
        try skip(past: "?>")
      } else {
        element.children.append(try self.element(depth: depth + 1))
      }
    }
  }

  /// Decodes character data, replacing the predefined entities and numeric references.
  private func decodeEntities(_ range: Range<Int>) throws(CascadeError) -> String {
    guard bytes[range].contains(UInt8(ascii: "&")) else {
      return String(decoding: bytes[range], as: UTF8.self)
    }
    var out: [UInt8] = []
    var i = range.lowerBound
    while i < range.upperBound {
      let c = bytes[i]
      guard c == UInt8(ascii: "&") else {
        out.append(c)
        i += 1
        continue
      }
      guard let semicolon = bytes[i..<range.upperBound].firstIndex(of: UInt8(ascii: ";")) else {
        throw error("unterminated entity reference")
      }
      let entity = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
      switch entity {
      case "lt": out.append(UInt8(ascii: "<"))
      case "gt": out.append(UInt8(ascii: ">"))
      case "amp": out.append(UInt8(ascii: "&"))
      case "quot": out.append(0x22)
      case "apos": out.append(0x27)
      default:
        var scalar: Unicode.Scalar?
        if entity.hasPrefix("#x"), let v = UInt32(entity.dropFirst(2), radix: 16) {
          scalar = Unicode.Scalar(v)
        } else if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()) {
          scalar = Unicode.Scalar(v)
        }
        guard let scalar else { throw error("unknown entity &\(entity);") }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
      }
      i = semicolon + 1
    }
    return String(decoding: out, as: UTF8.self)
  }
}
