import PhotoCore

/// A small, strict, namespace-aware XML reader for XMP packets (attacker-controlled input).
///
/// It reads elements with attributes, character data, CDATA sections, comments and processing
/// instructions (`<?xpacket ...?>`), the five predefined entities and character references, and
/// resolves every element's and attribute's prefix to its namespace URI. It expands no other
/// entity: a document with a DTD (`<!DOCTYPE`) is refused, so no entity can be defined. Any other
/// departure from well-formed XML (a mismatched end tag, an unbound prefix, a duplicate
/// attribute, text that is not UTF-8) refuses the whole document: the caller then drops it.
///
/// Work and memory are bounded by the input: one pass over its bytes, at most `maxElements`
/// elements, `maxDepth` levels of nesting, `maxAttributes` attributes an element and names of at
/// most `maxNameLength` bytes.
struct XMLTree {
  /// A namespace URI and a local name; an attribute without a prefix has the URI "".
  struct Name: Hashable, Sendable {
    var uri: String
    var local: String
  }

  struct Element: Sendable {
    var name: Name
    var attributes: [(name: Name, value: String)]
    /// Indices in `XMLTree.elements`, in document order.
    var children: [Int] = []
    /// All of the element's own character data (between its children too), entities resolved.
    var text: String = ""
  }

  static let maxElements = 100_000
  static let maxDepth = 64
  static let maxAttributes = 256
  static let maxNameLength = 256

  static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
  static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

  /// Every element; the root is the first.
  private(set) var elements: [Element] = []
  var root: Element { elements[0] }

  /// The element at `index`.
  subscript(_ index: Int) -> Element { elements[index] }

  /// Parses `bytes` (UTF-8, an optional byte-order mark first), or returns nil when they are not
  /// a well-formed document within the limits.
  ///
  /// - Complexity: O(size × depth) at worst (prefixes are looked up through the open elements'
  ///   declarations), O(size) for XMP's few levels.
  init?(_ bytes: [UInt8]) {
    var parser = Parser(bytes: bytes)
    guard let elements = parser.parse() else { return nil }
    self.elements = elements
  }

  private struct Parser {
    let bytes: [UInt8]
    var i = 0
    var elements: [Element] = []
    /// The open elements: index, qualified name (for the end tag), its text so far, and the
    /// prefixes it declares.
    var open: [(index: Int, qname: [UInt8], text: [UInt8], prefixes: [String: String])] = []
    var sawRoot = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parse() -> [Element]? {
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
      while i < bytes.count {
        if bytes[i] == UInt8(ascii: "<") {
          guard step() else { return nil }
        } else {
          let start = i
          while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
          if open.isEmpty {
            // Outside the root only white space may stand (and NULs, which some writers pad with).
            guard bytes[start..<i].allSatisfy({ Parser.isSpace($0) || $0 == 0 }) else { return nil }
          } else {
            guard Parser.decode(bytes[start..<i], into: &open[open.count - 1].text) else { return nil }
          }
        }
      }
      guard sawRoot, open.isEmpty else { return nil }
      return elements
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    func starts(with text: String) -> Bool { bytes.hasBytes(text.asciiBytes, at: i) }

    /// Moves past the next `terminator`; false when there is none.
    mutating func skip(past terminator: String) -> Bool {
      let t = terminator.asciiBytes
      while i + t.count <= bytes.count {
        if bytes[i] == t[0], bytes.hasBytes(t, at: i) {
          i += t.count
          return true
        }
        i += 1
      }
      return false
    }

    /// One markup construct at `<`.
    mutating func step() -> Bool {
      if starts(with: "<?") { return skip(past: "?>") }
      if starts(with: "<!--") { return skip(past: "-->") }
      if starts(with: "<![CDATA[") {
        guard !open.isEmpty else { return false }
        i += 9
        let start = i
        guard skip(past: "]]>") else { return false }
        open[open.count - 1].text += bytes[start..<(i - 3)]
        return true
      }
      if starts(with: "<!") { return false }  // a DTD or anything else: refused
      if starts(with: "</") {
        i += 2
        guard let qname = name(), let last = open.last, qname == last.qname else { return false }
        while i < bytes.count, Parser.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return false }
        i += 1
        open.removeLast()
        guard let text = String(validating: last.text, as: UTF8.self) else { return false }
        elements[last.index].text = text
        return true
      }
      return startTag()
    }

    /// A name: the bytes up to white space, `=`, `/`, `>`; nil when empty or too long.
    mutating func name() -> [UInt8]? {
      let start = i
      while i < bytes.count, i - start <= XMLTree.maxNameLength {
        let c = bytes[i]
        if Parser.isSpace(c) || c == UInt8(ascii: "=") || c == UInt8(ascii: "/") || c == UInt8(ascii: ">")
          || c == UInt8(ascii: "<") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
        {
          break
        }
        i += 1
      }
      guard i > start, i - start <= XMLTree.maxNameLength else { return nil }
      return Array(bytes[start..<i])
    }

    mutating func startTag() -> Bool {
      guard !(sawRoot && open.isEmpty), open.count < XMLTree.maxDepth, elements.count < XMLTree.maxElements
      else {
        return false
      }
      i += 1
      guard let qname = name() else { return false }
      var raw: [(qname: [UInt8], value: String)] = []
      var selfClosing = false
      while true {
        let before = i
        while i < bytes.count, Parser.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count else { return false }
        if bytes[i] == UInt8(ascii: ">") {
          i += 1
          break
        }
        if starts(with: "/>") {
          i += 2
          selfClosing = true
          break
        }
        guard i > before, raw.count < XMLTree.maxAttributes, let attribute = name() else { return false }
        while i < bytes.count, Parser.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { return false }
        i += 1
        while i < bytes.count, Parser.isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
          return false
        }
        let quote = bytes[i]
        i += 1
        let start = i
        while i < bytes.count, bytes[i] != quote {
          if bytes[i] == UInt8(ascii: "<") { return false }
          i += 1
        }
        guard i < bytes.count else { return false }
        var value: [UInt8] = []
        guard Parser.decode(bytes[start..<i], into: &value),
          let text = String(validating: value, as: UTF8.self)
        else { return false }
        i += 1
        guard !raw.contains(where: { $0.qname == attribute }) else { return false }
        raw.append((attribute, text))
      }
      // Declarations first: they apply to the element's own name and attributes.
      var prefixes: [String: String] = [:]
      for (qname, value) in raw {
        if qname == "xmlns".asciiBytes {
          prefixes[""] = value
        } else if qname.starts(with: "xmlns:".asciiBytes) {
          let prefix = String(decoding: qname.dropFirst(6), as: UTF8.self)
          guard !prefix.isEmpty, !value.isEmpty else { return false }
          prefixes[prefix] = value
        }
      }
      open.append((elements.count, qname, [], prefixes))
      guard let elementName = resolve(qname, isAttribute: false) else { return false }
      var attributes: [(name: Name, value: String)] = []
      for (qname, value) in raw where qname != "xmlns".asciiBytes && !qname.starts(with: "xmlns:".asciiBytes)
      {
        guard let name = resolve(qname, isAttribute: true) else { return false }
        guard !attributes.contains(where: { $0.name == name }) else { return false }
        attributes.append((name, value))
      }
      if let parent = open.dropLast().last { elements[parent.index].children.append(elements.count) }
      elements.append(Element(name: elementName, attributes: attributes))
      sawRoot = true
      if selfClosing { open.removeLast() }
      return true
    }

    /// The namespace and local name of a qualified name, through the open elements' prefixes.
    func resolve(_ qname: [UInt8], isAttribute: Bool) -> Name? {
      let colon = qname.firstIndex(of: UInt8(ascii: ":"))
      let prefix = colon.map { String(decoding: qname[..<$0], as: UTF8.self) } ?? ""
      let local = String(decoding: colon.map { qname[($0 + 1)...] } ?? qname[...], as: UTF8.self)
      guard !local.isEmpty, !local.contains(":") else { return nil }
      if colon == nil && isAttribute { return Name(uri: "", local: local) }
      if prefix == "xml" { return Name(uri: XMLTree.xmlNamespace, local: local) }
      for scope in open.reversed() {
        if let uri = scope.prefixes[prefix] { return Name(uri: uri, local: local) }
      }
      return colon == nil ? Name(uri: "", local: local) : nil
    }

    /// Character data with the predefined entities and character references resolved; false
    /// for any other entity, or a reference that is not a character XML allows.
    static func decode(_ text: ArraySlice<UInt8>, into out: inout [UInt8]) -> Bool {
      var k = text.startIndex
      while k < text.endIndex {
        let c = text[k]
        guard c == UInt8(ascii: "&") else {
          out.append(c)
          k += 1
          continue
        }
        guard let semicolon = text[k...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { return false }
        let entity = String(decoding: text[(k + 1)..<semicolon], as: UTF8.self)
        // Only characters XML allows: tab, line feed, carriage return, and from space up.
        guard let scalar = XMLReference.scalar(entity),
          scalar.value == 0x9 || scalar.value == 0xA || scalar.value == 0xD || scalar.value >= 0x20
        else { return false }
        out += Array(String(Character(scalar)).utf8)
        k = semicolon + 1
      }
      return true
    }
  }
}
