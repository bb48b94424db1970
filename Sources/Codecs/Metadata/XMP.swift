/// The XMP a render carries: only what photoedit understands and knows holds no pixels, in a
/// fresh packet.
///
/// The packet is parsed (`XMLTree`: namespaces resolved, no entity expanded, bounded work); each
/// `rdf:Description` under `rdf:RDF` gives its properties, and a property is kept when its
/// namespace is on `namespaces` (under any prefix the packet used), its name is not on `denied`,
/// and its value is one of XMP's forms made of text: a simple value (with an optional
/// `xml:lang`), an `rdf:Seq`, `rdf:Bag` or `rdf:Alt` of values, or a structure of fields (each
/// field itself a property kept by the same rules), at most `maxValueDepth` levels deep. A text
/// that holds an image or long base64 (`EmbeddedImage.isPresent(inText:)`) is dropped, and so
/// is a structure or array left empty. Everything else goes: other namespaces (Google's GImage,
/// GDepth and GContainer with their base64 images, xmpNote:HasExtendedXMP, xmpGImg, any vendor's
/// own), `xmp:Thumbnails`, `xmp:PageInfo`, `xmpMM:Pantry`, URI values (`rdf:resource`),
/// `rdf:parseType="Literal"` and anything not written as XMP's RDF subset.
///
/// The kept properties are written again as one `rdf:Description` in element form, each
/// namespace under its usual prefix, `tiff:Orientation` as 1. A packet that cannot be parsed,
/// or that keeps nothing, is dropped whole. Sanitising the result again gives the same bytes.
enum XMP {
  static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  static let xmpMeta = "adobe:ns:meta/"

  /// The namespaces whose properties are kept, with the prefix each is written under: the
  /// schemas of the XMP specification that describe a photo (Dublin Core, XMP basic, rights,
  /// media management, Photoshop, TIFF, EXIF and EXIF 2.3's, the auxiliary EXIF, PDF), IPTC
  /// Core and Extension, PLUS licensing, Camera Raw and Lightroom settings, the Metadata
  /// Working Group's regions and keywords, and the structure types their fields use (resource
  /// events and references, versions, dimensions, areas). None of them defines a property
  /// that holds pixels, except those on `denied`.
  static let namespaces: [(prefix: String, uri: String)] = [
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("xmp", "http://ns.adobe.com/xap/1.0/"),
    ("xmpRights", "http://ns.adobe.com/xap/1.0/rights/"),
    ("xmpMM", "http://ns.adobe.com/xap/1.0/mm/"),
    ("photoshop", "http://ns.adobe.com/photoshop/1.0/"),
    ("Iptc4xmpCore", "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"),
    ("Iptc4xmpExt", "http://iptc.org/std/Iptc4xmpExt/2008-02-29/"),
    ("plus", "http://ns.useplus.org/ldf/xmp/1.0/"),
    ("tiff", "http://ns.adobe.com/tiff/1.0/"),
    ("exif", "http://ns.adobe.com/exif/1.0/"),
    ("exifEX", "http://cipa.jp/exif/1.0/"),
    ("aux", "http://ns.adobe.com/exif/1.0/aux/"),
    ("pdf", "http://ns.adobe.com/pdf/1.3/"),
    ("crs", "http://ns.adobe.com/camera-raw-settings/1.0/"),
    ("lr", "http://ns.adobe.com/lightroom/1.0/"),
    ("mwg-rs", "http://www.metadataworkinggroup.com/schemas/regions/"),
    ("mwg-kw", "http://www.metadataworkinggroup.com/schemas/keywords/"),
    ("stEvt", "http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"),
    ("stRef", "http://ns.adobe.com/xap/1.0/sType/ResourceRef#"),
    ("stVer", "http://ns.adobe.com/xap/1.0/sType/Version#"),
    ("stDim", "http://ns.adobe.com/xap/1.0/sType/Dimensions#"),
    ("stArea", "http://ns.adobe.com/xmp/sType/Area#"),
  ]
  static let prefixes: [String: String] = Dictionary(
    namespaces.map { ($0.uri, $0.prefix) }, uniquingKeysWith: { a, _ in a })

  /// Properties of kept namespaces that hold pictures or whole other packets: XMP's thumbnails
  /// (base64 JPEGs, `xmpGImg`), the page thumbnails of `xmp:PageInfo`, and the media
  /// management pantry (copies of other documents' XMP, thumbnails and all).
  static let denied: Set<XMLTree.Name> = [
    XMLTree.Name(uri: "http://ns.adobe.com/xap/1.0/", local: "Thumbnails"),
    XMLTree.Name(uri: "http://ns.adobe.com/xap/1.0/", local: "PageInfo"),
    XMLTree.Name(uri: "http://ns.adobe.com/xap/1.0/mm/", local: "Pantry"),
  ]
  static let orientation = XMLTree.Name(uri: "http://ns.adobe.com/tiff/1.0/", local: "Orientation")

  /// The deepest nesting of arrays and structures kept (a property holding an array of
  /// structures is 2).
  static let maxValueDepth = 8
  /// The longest text value kept, in bytes.
  static let maxTextBytes = 32 << 10

  /// A property's value, in XMP's data model.
  indirect enum Value: Equatable {
    case text(String, lang: String?)
    /// "Seq", "Bag" or "Alt", and the items.
    case array(String, [Value])
    case structure([Property])
  }

  struct Property: Equatable {
    var name: XMLTree.Name
    var value: Value
  }

  /// The packet as a render writes it, or nil when it cannot be parsed or keeps nothing.
  ///
  /// - Complexity: O(size) (the parse's bounds: `XMLTree`).
  static func sanitized(_ packet: [UInt8]) -> [UInt8]? {
    guard let properties = properties(in: packet), !properties.isEmpty else { return nil }
    return serialized(properties)
  }

  /// The kept properties of a packet, in document order (the first of a name counts), or nil
  /// when it cannot be parsed or has no `rdf:RDF` at its top.
  static func properties(in packet: [UInt8]) -> [Property]? {
    guard let tree = XMLTree(packet), let descriptions = descriptions(in: tree) else { return nil }
    var out: [Property] = []
    var seen: Set<XMLTree.Name> = []
    for child in descriptions {
      for var property in properties(of: child, in: tree, depth: 0) where !seen.contains(property.name) {
        seen.insert(property.name)
        if property.name == orientation, case .text = property.value {
          property.value = .text("1", lang: nil)
        }
        out.append(property)
      }
    }
    return out
  }

  /// The `rdf:Description` elements of a parsed packet (under `rdf:RDF`, itself the root or in
  /// `x:xmpmeta`), or nil when it has no `rdf:RDF` at its top.
  static func descriptions(in tree: XMLTree) -> [XMLTree.Element]? {
    var rdfElement: XMLTree.Element?
    if tree.root.name == XMLTree.Name(uri: rdf, local: "RDF") {
      rdfElement = tree.root
    } else if tree.root.name.uri == xmpMeta {
      rdfElement = tree.root.children.lazy.map { tree[$0] }.first {
        $0.name == XMLTree.Name(uri: rdf, local: "RDF")
      }
    }
    return rdfElement?.children.map { tree[$0] }.filter {
      $0.name == XMLTree.Name(uri: rdf, local: "Description")
    }
  }

  /// The kept properties of a description or structure: its attributes (simple values) and its
  /// child elements.
  private static func properties(of element: XMLTree.Element, in tree: XMLTree, depth: Int) -> [Property] {
    var out: [Property] = []
    for (name, value) in element.attributes where isKept(name) {
      if let value = text(value, lang: nil) { out.append(Property(name: name, value: value)) }
    }
    for child in element.children.map({ tree[$0] }) where isKept(child.name) {
      if let value = value(of: child, in: tree, depth: depth + 1) {
        out.append(Property(name: child.name, value: value))
      }
    }
    return out
  }

  /// Whether a property of this name may be kept: a namespace of `namespaces`, a plain ASCII
  /// name, not `denied`.
  private static func isKept(_ name: XMLTree.Name) -> Bool {
    prefixes[name.uri] != nil && !denied.contains(name) && isPlainName(name.local)
  }

  /// An XML name of ASCII letters, digits, `_`, `-` and `.`, starting with a letter or `_`, of
  /// at most 128 bytes.
  private static func isPlainName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard let first = bytes.first, bytes.count <= 128, first.isLetter || first == UInt8(ascii: "_") else {
      return false
    }
    return bytes.allSatisfy {
      $0.isLetter || $0.isDigit || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        || $0 == UInt8(ascii: ".")
    }
  }

  private static func attribute(_ element: XMLTree.Element, _ uri: String, _ local: String) -> String? {
    element.attributes.first { $0.name == XMLTree.Name(uri: uri, local: local) }?.value
  }

  /// A property element's value, or nil when it is not one of the forms kept.
  private static func value(of element: XMLTree.Element, in tree: XMLTree, depth: Int) -> Value? {
    guard depth <= maxValueDepth, attribute(element, rdf, "resource") == nil else { return nil }
    if let parseType = attribute(element, rdf, "parseType") {
      guard parseType == "Resource" else { return nil }
      let fields = properties(of: element, in: tree, depth: depth)
      return fields.isEmpty ? nil : .structure(fields)
    }
    let children = element.children.map { tree[$0] }
    if children.count == 1, children[0].name.uri == rdf {
      let inner = children[0]
      switch inner.name.local {
      case "Seq", "Bag", "Alt":
        let items = inner.children.map { tree[$0] }.filter { $0.name == XMLTree.Name(uri: rdf, local: "li") }
          .compactMap { value(of: $0, in: tree, depth: depth + 1) }
        return items.isEmpty ? nil : .array(inner.name.local, items)
      case "Description":
        let fields = properties(of: inner, in: tree, depth: depth)
        return fields.isEmpty ? nil : .structure(fields)
      default:
        return nil
      }
    }
    guard children.isEmpty else { return nil }
    // A structure written as attributes of an empty element.
    if element.attributes.contains(where: { $0.name.uri != rdf && $0.name.uri != XMLTree.xmlNamespace }) {
      let fields = properties(of: element, in: tree, depth: depth)
      return fields.isEmpty ? nil : .structure(fields)
    }
    return text(element.text, lang: attribute(element, XMLTree.xmlNamespace, "lang"))
  }

  /// A simple value, or nil when it is too long or holds an image; a language tag that is not
  /// letters, digits and `-` is dropped.
  private static func text(_ text: String, lang: String?) -> Value? {
    guard text.utf8.count <= maxTextBytes, !EmbeddedImage.isPresent(inText: text.utf8) else { return nil }
    let lang = lang.flatMap { tag in
      tag.utf8.count <= 35 && !tag.isEmpty
        && tag.utf8.allSatisfy { $0.isLetter || $0.isDigit || $0 == UInt8(ascii: "-") } ? tag : nil
    }
    return .text(text, lang: lang)
  }

  // MARK: - Writing

  /// A fresh packet holding `properties`: an `x:xmpmeta` around one `rdf:Description`, every
  /// value in element form, no padding.
  static func serialized(_ properties: [Property]) -> [UInt8] {
    var used: Set<String> = []
    func collect(_ properties: [Property]) {
      for p in properties {
        used.insert(p.name.uri)
        collect(value: p.value)
      }
    }
    func collect(value: Value) {
      switch value {
      case .text: break
      case .array(_, let items): items.forEach(collect(value:))
      case .structure(let fields): collect(fields)
      }
    }
    collect(properties)
    var out = "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
    out +=
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n <rdf:RDF xmlns:rdf=\"\(rdf)\">\n  <rdf:Description rdf:about=\"\""
    for (prefix, uri) in namespaces where used.contains(uri) { out += "\n    xmlns:\(prefix)=\"\(uri)\"" }
    out += ">\n"
    func write(_ tag: String, _ value: Value, indent: Int) {
      let pad = String(repeating: " ", count: indent)
      switch value {
      case .text(let text, let lang):
        out += "\(pad)<\(tag)\(lang.map { " xml:lang=\"\($0)\"" } ?? "")>\(escaped(text))</\(tag)>\n"
      case .array(let kind, let items):
        out += "\(pad)<\(tag)>\n\(pad) <rdf:\(kind)>\n"
        for item in items { write("rdf:li", item, indent: indent + 2) }
        out += "\(pad) </rdf:\(kind)>\n\(pad)</\(tag)>\n"
      case .structure(let fields):
        out += "\(pad)<\(tag) rdf:parseType=\"Resource\">\n"
        for field in fields { write(qualified(field.name), field.value, indent: indent + 1) }
        out += "\(pad)</\(tag)>\n"
      }
    }
    for p in properties { write(qualified(p.name), p.value, indent: 3) }
    out += "  </rdf:Description>\n </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>"
    return Array(out.utf8)
  }

  private static func qualified(_ name: XMLTree.Name) -> String { "\(prefixes[name.uri]!):\(name.local)" }

  /// Character data as XML: `&`, `<`, `>` and carriage returns as references.
  private static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for c in text.unicodeScalars {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\r": out += "&#xD;"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}

extension UInt8 {
  fileprivate var isLetter: Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
  }
  fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
