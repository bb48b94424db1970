/// A small, strict reader for the subset of XML that OpenCV's `FileStorage` writes.
///
/// It understands the XML declaration, comments, `<!DOCTYPE>`, elements with attributes, empty
/// elements, character data and the five predefined entities. It builds a ``Document``, a table
/// of elements read through ``Element``; an element's text is all of its character data (the
/// whitespace between child elements too), which the cascade reader splits into ``Token``s.
struct XMLReader {
  /// A parsed document: every element in one table, in document order (the root first), so
  /// that reading a cascade of 60 000 elements allocates a few arrays rather than an object, a
  /// child list and a string per element.
  final class Document {
    /// The file's bytes, which the elements' texts are ranges of.
    let bytes: [UInt8]
    fileprivate let records: [Record]
    /// Each record's children are a range of this.
    fileprivate let childIndices: [Int32]
    /// The texts that are not one range of `bytes` (several pieces, entities or CDATA).
    fileprivate let strings: [[UInt8]]

    fileprivate init(_ bytes: [UInt8], _ records: [Record], _ childIndices: [Int32], _ strings: [[UInt8]]) {
      (self.bytes, self.records, self.childIndices, self.strings) = (bytes, records, childIndices, strings)
    }
  }

  fileprivate struct Record {
    var name: String
    var line: Int
    var children: Range<Int> = 0..<0
    var text: Text = .empty
  }

  /// An element's character data: nothing, one range of the file's bytes (no entity in it), or
  /// the bytes of `Document.strings[k]`.
  fileprivate enum Text {
    case empty
    case bytes(Range<Int>)
    case string(Int)
  }

  /// One element: its name, children in document order and its own character data.
  struct Element {
    let document: Document
    let index: Int

    private var record: Record { document.records[index] }
    var name: String { record.name }
    /// The 1-based line of the start tag, for messages.
    var line: Int { record.line }

    /// The children, in document order.
    var children: Children { Children(document: document, range: record.children) }

    /// The first child named `name`, if any.
    func child(_ name: String) -> Element? { children.first { $0.name == name } }

    /// The character data split at ASCII whitespace (as OpenCV's `isspace`), or nil when it
    /// holds more than `limit` tokens (the text is not split past that, so a huge text costs no
    /// huge array).
    func tokens(atMost limit: Int) -> [Token]? {
      switch record.text {
      case .empty: return []
      case .bytes(let range): return Self.split(document.bytes[range], atMost: limit)
      case .string(let k): return Self.split(document.strings[k][...], atMost: limit)
      }
    }

    private static func split(_ text: ArraySlice<UInt8>, atMost limit: Int) -> [Token]? {
      var tokens: [Token] = []
      tokens.reserveCapacity(min(limit, 8))
      var start: Int?
      for i in text.indices {
        let c = text[i]
        if c == 0x20 || (0x09...0x0D).contains(c) {
          if let s = start {
            guard tokens.count < limit else { return nil }
            tokens.append(Token(bytes: text[s..<i]))
            start = nil
          }
        } else if start == nil {
          start = i
        }
      }
      if let s = start {
        guard tokens.count < limit else { return nil }
        tokens.append(Token(bytes: text[s...]))
      }
      return tokens
    }
  }

  /// An element's children.
  struct Children: RandomAccessCollection {
    let document: Document
    /// Their places in `document.childIndices`.
    let range: Range<Int>
    var startIndex: Int { range.lowerBound }
    var endIndex: Int { range.upperBound }
    subscript(position: Int) -> Element {
      Element(document: document, index: Int(document.childIndices[position]))
    }
  }

  /// A token of character data (never empty, no whitespace in it), read as Swift reads the same
  /// text: `Int(_:)` and `Double(_:)` of its string.
  struct Token: CustomStringConvertible {
    let bytes: ArraySlice<UInt8>
    /// The token as text (bytes that are not UTF-8 become U+FFFD).
    var description: String { String(decoding: bytes, as: UTF8.self) }
    /// As `Int(_:)`: an optional sign and decimal digits, nil past `Int`'s range.
    var int: Int? {
      var i = bytes.startIndex
      let negative = bytes[i] == UInt8(ascii: "-")
      if negative || bytes[i] == UInt8(ascii: "+") { i += 1 }
      guard i < bytes.endIndex else { return nil }
      var magnitude: UInt = 0
      while i < bytes.endIndex {
        let digit = bytes[i] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times.addingReportingOverflow(UInt(digit))
        guard !o1, !o2 else { return nil }
        magnitude = sum
        i += 1
      }
      if negative { return magnitude <= UInt(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- magnitude) : nil }
      return magnitude <= UInt(Int.max) ? Int(magnitude) : nil
    }
    var double: Double? { Double(description) }
  }

  /// The largest cascade file read, in bytes (OpenCV's largest, frontalface_alt_tree, is 2.7 MB).
  static let maxBytes = 64 << 20
  /// The deepest nesting of elements (OpenCV's cascades nest 7 deep, old-format ones 10).
  static let maxDepth = 64
  /// The most elements in a file (frontalface_alt_tree has 61,022).
  static let maxElements = 1_000_000

  private let bytes: [UInt8]
  // The document's tables, as they are read.
  private var records: [Record] = []
  private var childIndices: [Int32] = []
  private var strings: [[UInt8]] = []
  private var position = 0
  private var line = 1
  private var elements = 0
  /// The children of the elements open, in order: each open element's are a suffix.
  private var pending: [Int32] = []

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
    return try reader.readDocument()
  }

  private mutating func readDocument() throws(CascadeError) -> Element {
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
    return Element(document: Document(bytes, records, childIndices, strings), index: root)
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

  /// Reads one element, starting at its `<`, at nesting `depth` (the root is 1), and returns
  /// its record's index. The recursion is bounded by `maxDepth`, so no file can exhaust the
  /// stack.
  private mutating func element(depth: Int) throws(CascadeError) -> Int {
    elements += 1
    guard elements <= Self.maxElements else {
      throw CascadeError("the cascade XML has more than \(Self.maxElements) elements (the limit)")
    }
    guard depth <= Self.maxDepth else { throw error("elements nested more than \(Self.maxDepth) deep") }
    position += 1  // "<"
    let name = try self.name()
    let index = records.count
    records.append(Record(name: name, line: line))
    // Attributes: checked (entities included), not kept (no cascade has any).
    while true {
      skipWhitespace()
      guard position < bytes.count else { throw error("unterminated start tag <\(name)>") }
      let c = bytes[position]
      if c == UInt8(ascii: "/") {
        guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") else {
          throw error("expected \"/>\" in <\(name)>")
        }
        position += 2
        return index
      }
      if c == UInt8(ascii: ">") {
        position += 1
        break
      }
      let key = try self.name()
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
      _ = try decodeEntities(start..<position)
      position += 1
    }
    // Content: the text is one range of the file while it is one piece without entities.
    let firstChild = pending.count
    var single: Range<Int>? = nil
    var text: [UInt8]? = nil
    // Pieces joined are each read as UTF-8 first (bytes that are not become U+FFFD), as a
    // piece alone is when its tokens are read.
    func add(_ piece: Range<Int>) {
      if text == nil, single == nil {
        single = piece
        return
      }
      add(utf8(piece))
    }
    func add(_ decoded: [UInt8]) {
      if text == nil {
        text = single.map(utf8) ?? []
        single = nil
      }
      text!.append(contentsOf: decoded)
    }
    while true {
      let start = position
      // To the next "<", counting lines and noting entities.
      var (end, lines, entity) = (start, 0, false)
      bytes.withUnsafeBufferPointer { b in
        while end < b.count {
          let c = b[end]
          if c == UInt8(ascii: "<") { break }
          lines &+= c == 0x0A ? 1 : 0
          entity = entity || c == UInt8(ascii: "&")
          end &+= 1
        }
      }
      (position, line) = (end, line + lines)
      if start < position {
        if entity { add(Array(try decodeEntities(start..<position).utf8)) } else { add(start..<position) }
      }
      guard position < bytes.count else {
        line = records[index].line
        throw error("element <\(name)> is not closed")
      }
      // What follows "<": the next byte tells which markup it can be.
      let next = position + 1 < bytes.count ? bytes[position + 1] : 0
      if next == UInt8(ascii: "/") {
        position += 2
        let closing = try self.name()
        guard closing == name else {
          throw error("</\(closing)> closes <\(name)> (opened at line \(records[index].line))")
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
          throw error("expected \">\" after </\(closing)")
        }
        position += 1
        let children = childIndices.count
        childIndices.append(contentsOf: pending[firstChild...])
        pending.removeSubrange(firstChild...)
        records[index].children = children..<childIndices.count
        if let text {
          records[index].text = .string(strings.count)
          strings.append(text)
        } else if let single {
          records[index].text = .bytes(single)
        }
        return index
      } else if next == UInt8(ascii: "!") && hasPrefix("<!--") {
        try skip(past: "-->")
      } else if next == UInt8(ascii: "!") && hasPrefix("<![CDATA[") {
        position += 9
        let cdataStart = position
        try skip(past: "]]>")
        // Its bytes as they are: no entities, and it is never one range with the text around.
        add(utf8(cdataStart..<(position - 3)))
      } else if next == UInt8(ascii: "?") {
        try skip(past: "?>")
      } else {
        pending.append(Int32(try self.element(depth: depth + 1)))
      }
    }
  }

  /// `range` of the file read as UTF-8: its bytes, with U+FFFD for any that are not UTF-8.
  private func utf8(_ range: Range<Int>) -> [UInt8] {
    let piece = bytes[range]
    if piece.allSatisfy({ $0 < 0x80 }) { return Array(piece) }
    return Array(String(decoding: piece, as: UTF8.self).utf8)
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
      guard let scalar = XMLReference.scalar(entity) else { throw error("unknown entity &\(entity);") }
      out.append(contentsOf: Array(String(Character(scalar)).utf8))
      i = semicolon + 1
    }
    return String(decoding: out, as: UTF8.self)
  }
}

/// An XML reference's character: one of the five predefined entities (`lt`, `gt`, `amp`, `quot`,
/// `apos`) or a numeric character reference (`#38`, `#x26`), named without its `&` and `;`.
public enum XMLReference {
  /// The character `entity` stands for, or nil for any other name (XML without a DTD defines no
  /// other) or a number that is no Unicode scalar.
  public static func scalar(_ entity: String) -> Unicode.Scalar? {
    switch entity {
    case "lt": "<"
    case "gt": ">"
    case "amp": "&"
    case "quot": "\""
    case "apos": "'"
    default:
      if entity.hasPrefix("#x") {
        UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
      } else if entity.hasPrefix("#") {
        UInt32(entity.dropFirst(1), radix: 10).flatMap(Unicode.Scalar.init)
      } else {
        nil
      }
    }
  }
}
