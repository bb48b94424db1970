/// What Photoshop's resources (JPEG APP13) and their IPTC records reveal (`photoedit audit`):
/// thumbnails and previews, the copies of the EXIF and XMP read for their own findings, and
/// the IPTC datasets `--strip-identifying` drops because they say who or where.
extension PhotoshopResources {
  /// The findings of a resource block. What follows a block that is not a well-formed resource
  /// is searched for an image.
  ///
  /// - Complexity: O(size).
  static func findings(in bytes: [UInt8]) -> [MetadataFinding] {
    var out: [MetadataFinding] = []
    let all = resources(bytes)
    for r in all {
      let data = Array(bytes[r.data])
      switch r.id {
      case 0x0409, 0x040C: out.append(.image("Photoshop", "thumbnail (resource 0x\(hex(r.id)))"))
      case iptcID: out += IPTC.findings(in: data)
      case 0x0422, 0x0423:
        let tiff = data.starts(with: JPEGMarkers.exifSignature) ? Array(data.dropFirst(6)) : data
        out += EXIF.findings(in: tiff, container: "Photoshop's EXIF copy")
      case 0x0424: out += XMP.findings(in: data, container: "Photoshop's XMP copy")
      default:
        if EmbeddedImage.isPresent(in: data) { out.append(.image("Photoshop", "resource 0x\(hex(r.id))")) }
      }
    }
    let rest = bytes[(all.last?.whole.upperBound ?? 0)...]
    if EmbeddedImage.isPresent(in: rest) { out.append(.image("Photoshop", "image data")) }
    return out
  }

  private static func hex(_ id: Int) -> String {
    let digits = String(id, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}

extension IPTC {
  /// The datasets that identify, by their IPTC-IIM names: the unique object name, object name,
  /// keywords, instructions, by-line and its title, the places, the transmission reference,
  /// credit, source, copyright and contact, the caption and its writer, and the times (they
  /// carry a UTC offset).
  static let identifying: [[UInt8]: String] = [
    [1, 100]: "UNO", [2, 5]: "ObjectName", [2, 25]: "Keywords", [2, 40]: "SpecialInstructions",
    [2, 60]: "TimeCreated", [2, 63]: "DigitalCreationTime", [2, 80]: "By-line", [2, 85]: "By-lineTitle",
    [2, 90]: "City", [2, 92]: "Sub-location", [2, 95]: "Province-State",
    [2, 100]: "Country-PrimaryLocationCode",
    [2, 101]: "Country-PrimaryLocationName", [2, 103]: "OriginalTransmissionReference", [2, 110]: "Credit",
    [2, 115]: "Source", [2, 116]: "CopyrightNotice", [2, 118]: "Contact", [2, 120]: "Caption-Abstract",
    [2, 122]: "Writer-Editor",
  ]

  /// The findings of an IPTC-IIM block: the object preview's data (2:202) and any dataset holding
  /// an image are embedded images; the datasets of `identifying` that say something are named.
  static func findings(in bytes: [UInt8], container: String = "IPTC") -> [MetadataFinding] {
    var out: [MetadataFinding] = []
    forEachDataset(bytes) { record, dataset, data, _ in
      let id = "\(record):\(dataset < 10 ? "0" : "")\(dataset)"
      if (record == 2 && dataset == 202 && !data.isEmpty) || EmbeddedImage.isPresent(inText: data) {
        out.append(.image(container, record == 2 && dataset == 202 ? "preview (\(id))" : "image (\(id))"))
      } else if let name = identifying[[record, dataset]], data.saysSomething {
        out.append(.tag(container, "\(name) (\(id))"))
      }
    }
    return out
  }
}
