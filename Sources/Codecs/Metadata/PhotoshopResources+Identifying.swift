/// Photoshop's resource block (JPEG APP13) and its IPTC-IIM records without what identifies a
/// person, a device or a place (`--strip-identifying`).
///
/// Both are rebuilt from a list of what is kept: APP13 resources hold copies of the EXIF
/// (0x0422, 0x0423) and of the XMP (0x0424), URLs, path and slice names, plug-ins' data; IIM
/// records hold by-lines, places, contacts, captions and keywords. What is kept is a short list
/// of codes, dates and versions.
extension PhotoshopResources {
  /// The IPTC-NAA resource (IIM records).
  static let iptcID = 0x0404
  /// ResolutionInfo: the print resolution, 16 bytes of fixed-point numbers and units.
  static let resolutionInfoID = 0x03ED

  /// The resource block with only its IPTC-NAA resource (its records filtered by
  /// `IPTC.withoutIdentifying`, dropped when none is left) and its ResolutionInfo (when it has
  /// its 16 bytes), each written as an `8BIM` resource without a name (a name is free text).
  /// Walking stops at the first block that is not a well-formed resource, as
  /// `rendered` does. The first resource of an ID counts.
  ///
  /// - Returns: the new block; empty when nothing is kept.
  /// - Complexity: O(size).
  static func withoutIdentifying(_ bytes: [UInt8]) -> [UInt8] {
    var iptc: [UInt8]?
    var resolution: [UInt8]?
    for r in resources(bytes) {
      let data = Array(bytes[r.data])
      if r.id == iptcID, iptc == nil { iptc = IPTC.withoutIdentifying(data) }
      if r.id == resolutionInfoID, resolution == nil, data.count == 16 { resolution = data }
    }
    var out: [UInt8] = []
    if let resolution { appendResource(resolutionInfoID, resolution, to: &out) }
    if let iptc, !iptc.isEmpty { appendResource(iptcID, iptc, to: &out) }
    return out
  }
}

/// IPTC-IIM records (the datasets of Photoshop's IPTC-NAA resource).
enum IPTC {
  /// The datasets kept, as (record, dataset): the envelope's record version (1:00) and coded
  /// character set (1:90); the application record's version (2:00), edit urgency (2:10),
  /// category (2:15, three letters), release and expiration dates (2:30, 2:37), the dates the
  /// object was created and digitised (2:55, 2:62; dates are kept, the times 2:60 and 2:63 are
  /// not: they carry a UTC offset), and its object cycle (2:75). Dropped among others: by-line
  /// and its title (2:80, 2:85), city, sub-location, province, country (2:90-2:101), the
  /// contact, credit, source and copyright notice (2:110-2:118), captions and their writer
  /// (2:120, 2:122), object name, keywords and instructions (2:05, 2:25, 2:40), the original
  /// transmission reference and the unique object name (2:103, 1:100), and records 3 to 9
  /// (record 8 can hold a preview of the picture).
  static let kept: Set<[UInt8]> = [
    [1, 0], [1, 90], [2, 0], [2, 10], [2, 15], [2, 30], [2, 37], [2, 55], [2, 62], [2, 75],
  ]
  /// The datasets that say nothing on their own: records without any other are dropped.
  static let structural: Set<[UInt8]> = [[1, 0], [1, 90], [2, 0]]

  /// The datasets of `kept`, in their order, the first of each, in the standard form (marker
  /// 0x1C, record, dataset, a 2-byte length). A dataset with an extended length (4 bytes or
  /// more of length) is never one of them. Walking stops at the first byte that does not start
  /// a dataset, or at a dataset that runs past the end.
  ///
  /// - Returns: the kept datasets; empty when only `structural` ones (or none) are left.
  /// - Complexity: O(size).
  static func withoutIdentifying(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var seen: Set<[UInt8]> = []
    var informative = false
    forEachDataset(bytes) { record, dataset, data, extended in
      let key = [record, dataset]
      if !extended, kept.contains(key), !seen.contains(key) {
        seen.insert(key)
        if !structural.contains(key) { informative = true }
        out += [0x1C, record, dataset]
        out.appendUInt16BE(data.count)
        out += data
      }
    }
    return informative ? out : []
  }

  /// Calls `body` with each dataset of an IPTC-IIM block in order (its record, its number, its
  /// data, and whether its length was in the extended form), until the block ends or a dataset
  /// runs past it.
  static func forEachDataset(
    _ bytes: [UInt8], _ body: (_ record: UInt8, _ dataset: UInt8, _ data: ArraySlice<UInt8>, _ extended: Bool) -> Void
  ) {
    var i = 0
    while i + 5 <= bytes.count, bytes[i] == 0x1C {
      var length = bytes.uint16BE(at: i + 3)
      var start = i + 5
      var extended = false
      if length & 0x8000 != 0 {
        // Extended dataset: the low 15 bits say how many bytes of length follow.
        let lengthBytes = length & 0x7FFF
        guard lengthBytes <= 4, start + lengthBytes <= bytes.count else { break }
        length = bytes[start..<(start + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
        start += lengthBytes
        extended = true
      }
      guard start + length <= bytes.count else { break }
      body(bytes[i + 1], bytes[i + 2], bytes[start..<(start + length)], extended)
      i = start + length
    }
  }

  /// The datasets a render keeps: those of the envelope (record 1) and the application record
  /// (record 2), in their order, repeated ones too (keywords), except the object preview
  /// (2:200-2:202, a picture) and any whose data holds an image (`EmbeddedImage`); each in the
  /// standard form. Dropped: records 3 to 9 (record 8 holds the object itself: it can be the
  /// picture) and every dataset with an extended length (only objects need one).
  ///
  /// - Returns: the kept datasets; empty when none is.
  /// - Complexity: O(size).
  static func rendered(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    forEachDataset(bytes) { record, dataset, data, extended in
      if !extended, record == 1 || (record == 2 && !(200...202).contains(dataset)),
        !EmbeddedImage.isPresent(inText: data)
      {
        out += [0x1C, record, dataset]
        out.appendUInt16BE(data.count)
        out += data
      }
    }
    return out
  }
}
