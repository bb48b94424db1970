/// What an XMP packet reveals (`photoedit audit`). `--strip-identifying` drops XMP whole, since
/// RDF can hold anything; audit names what it finds: the properties below that say who, where
/// or what came before (locations, creators and rights holders, serial numbers, the edit
/// history and the documents it derives from, named face regions), and every property holding
/// a picture (`xmp:Thumbnails`, Google's `GImage:Data` and `GDepth:Data`, any text with an image
/// signature or long base64 in it). A packet that cannot be parsed is a finding of its own.
extension XMP {
  /// The identifying properties, by namespace URI and local name; every `exif:GPS*` too.
  static let identifying: [String: Set<String>] = [
    "http://purl.org/dc/elements/1.1/": [
      "creator", "rights", "contributor", "publisher", "description", "title", "subject",
    ],
    "http://ns.adobe.com/xap/1.0/rights/": ["Owner", "WebStatement", "UsageTerms", "Certificate"],
    "http://ns.adobe.com/xap/1.0/mm/": [
      "History", "DerivedFrom", "DocumentID", "InstanceID", "OriginalDocumentID", "Ingredients",
      "ManagedFrom",
      "Manifest", "Pantry",
    ],
    "http://ns.adobe.com/photoshop/1.0/": [
      "City", "State", "Country", "AuthorsPosition", "CaptionWriter", "Credit", "Source", "Headline",
      "Instructions",
      "TransmissionReference", "History",
    ],
    "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/": ["Location", "CountryCode", "CreatorContactInfo"],
    "http://iptc.org/std/Iptc4xmpExt/2008-02-29/": [
      "LocationCreated", "LocationShown", "PersonInImage", "PersonInImageWDetails", "OrganisationInImageName",
      "OrganisationInImageCode", "AOCreator", "Event",
    ],
    "http://ns.useplus.org/ldf/xmp/1.0/": [
      "Licensor", "CopyrightOwner", "ImageCreator", "ImageSupplier", "ModelReleaseID", "PropertyReleaseID",
    ],
    "http://ns.adobe.com/tiff/1.0/": ["Artist", "ImageDescription", "Copyright"],
    "http://ns.adobe.com/exif/1.0/": ["UserComment", "ImageUniqueID", "RelatedSoundFile"],
    "http://cipa.jp/exif/1.0/": [
      "BodySerialNumber", "LensSerialNumber", "CameraOwnerName", "Photographer", "ImageEditor", "ImageTitle",
    ],
    "http://ns.adobe.com/exif/1.0/aux/": ["SerialNumber", "OwnerName", "LensSerialNumber"],
    "http://ns.adobe.com/camera-raw-settings/1.0/": ["RawFileName"],
    "http://www.metadataworkinggroup.com/schemas/regions/": ["Regions"],
    "http://ns.microsoft.com/photo/1.2/": ["RegionInfo"],
  ]

  /// Prefixes for the namespaces audit names besides `namespaces`'.
  static let otherPrefixes: [String: String] = [
    "http://ns.google.com/photos/1.0/image/": "GImage", "http://ns.google.com/photos/1.0/depthmap/": "GDepth",
    "http://ns.google.com/photos/1.0/container/": "GContainer", "http://ns.microsoft.com/photo/1.2/": "MP",
    "http://ns.adobe.com/xap/1.0/g/img/": "xmpGImg", "http://ns.adobe.com/xmp/note/": "xmpNote",
  ]

  /// The findings of a packet, `container` naming where it was found.
  ///
  /// - Complexity: O(size) (the parse's bounds: `XMLTree`).
  static func findings(in packet: [UInt8], container: String = "XMP") -> [MetadataFinding] {
    guard let tree = XMLTree(packet), let descriptions = descriptions(in: tree) else {
      return [
        EmbeddedImage.isPresent(inText: packet)
          ? .image(container, "packet") : .tag(container, "packet (unreadable)")
      ]
    }
    var images: [MetadataFinding] = []
    var out: [MetadataFinding] = []
    func check(_ name: XMLTree.Name, holdsImage: Bool, saysSomething: Bool) {
      let shown = "\(prefixes[name.uri] ?? otherPrefixes[name.uri] ?? name.uri):\(name.local)"
      if holdsImage || denied.contains(name) { images.append(.image(container, shown)) }
      let named =
        identifying[name.uri]?.contains(name.local) == true
        || (name.uri == "http://ns.adobe.com/exif/1.0/" && name.local.hasPrefix("GPS"))
      if named && saysSomething { out.append(.tag(container, shown)) }
    }
    /// True when the element's text, its attributes' or its descendants' hold an image.
    func holdsImage(_ element: XMLTree.Element) -> Bool {
      EmbeddedImage.isPresent(inText: element.text.utf8)
        || element.attributes.contains { EmbeddedImage.isPresent(inText: $0.value.utf8) }
        || element.children.contains { holdsImage(tree[$0]) }
    }
    /// True when the element or a descendant holds text or a value other than blanks.
    func saysSomething(_ element: XMLTree.Element) -> Bool {
      !element.text.allSatisfy(\.isWhitespace)
        || element.attributes.contains { $0.name.uri != rdf && !$0.value.allSatisfy(\.isWhitespace) }
        || element.children.contains { saysSomething(tree[$0]) }
    }
    for description in descriptions {
      for (name, value) in description.attributes where name.uri != rdf && !name.uri.isEmpty {
        check(
          name, holdsImage: EmbeddedImage.isPresent(inText: value.utf8),
          saysSomething: !value.allSatisfy(\.isWhitespace))
      }
      for child in description.children.map({ tree[$0] }) {
        check(child.name, holdsImage: holdsImage(child), saysSomething: saysSomething(child))
      }
    }
    return images + out
  }
}
