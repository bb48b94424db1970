/// The Photoshop image resource blocks of APP13 ("8BIM" resources, which hold IPTC).
enum PhotoshopResources {
  /// One resource of a block: its ID, where its data lies, and where the whole resource lies
  /// (signature, ID, Pascal name, size, data and the padding to an even size).
  struct Resource {
    var id: Int
    var data: Range<Int>
    var whole: Range<Int>
  }

  /// The well-formed resources at the start of `bytes`, in order. Walking stops at the first
  /// block that is not a well-formed resource (what follows it could hide anything).
  ///
  /// - Complexity: O(number of resources).
  static func resources(_ bytes: [UInt8]) -> [Resource] {
    var out: [Resource] = []
    var i = 0
    let signatures: [[UInt8]] = ["8BIM".asciiBytes, "8B64".asciiBytes, "PHUT".asciiBytes]
    while i + 12 <= bytes.count, signatures.contains(where: { bytes.hasBytes($0, at: i) }) {
      let id = bytes.uint16BE(at: i + 4)
      let nameLength = Int(bytes[i + 6])
      var p = i + 7 + nameLength
      if (1 + nameLength) % 2 == 1 { p += 1 }  // the Pascal name is padded to an even size
      guard p + 4 <= bytes.count else { break }
      let size = bytes.uint32BE(at: p)
      guard p + 4 + size <= bytes.count else { break }
      // The data is padded to an even size; a last resource may lack its padding byte.
      let end = min(bytes.count, p + 4 + size + size % 2)
      out.append(Resource(id: id, data: (p + 4)..<(p + 4 + size), whole: i..<end))
      i = end
    }
    return out
  }

  /// The resources a render keeps: ResolutionInfo 0x03ED (16 bytes of print resolution),
  /// IPTC-NAA 0x0404 (its records filtered by `IPTC.rendered`), the copyright flag 0x040A (one
  /// byte) and the URL 0x040B (text). Dropped among others: the thumbnails 0x0409 and 0x040C,
  /// the copies of the EXIF (0x0422, 0x0423, with their thumbnails) and of the XMP (0x0424),
  /// the IPTC digest 0x0425 (it no longer matches), paths, slices, layer and print data,
  /// plug-ins' resources, and every resource photoedit does not know.
  static let renderedIDs: Set<Int> = [0x03ED, 0x0404, 0x040A, 0x040B]

  /// The resource block as a render writes it: the resources of `renderedIDs`, the first of
  /// each ID, in their order, each written again as an `8BIM` resource without a name (a name
  /// is free text), IPTC-NAA filtered (`IPTC.rendered`, dropped when nothing is left), a
  /// resource whose data holds an image (`EmbeddedImage`) dropped. Walking stops at the first
  /// block that is not a well-formed resource; what follows it is dropped.
  ///
  /// - Returns: the new block; empty when nothing is kept.
  /// - Complexity: O(size).
  static func rendered(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var seen: Set<Int> = []
    for r in resources(bytes) where renderedIDs.contains(r.id) && !seen.contains(r.id) {
      seen.insert(r.id)
      var data = Array(bytes[r.data])
      if r.id == 0x03ED, data.count != 16 { continue }
      if r.id == 0x040A, data.count != 1 { continue }
      if r.id == 0x0404 { data = IPTC.rendered(data) }
      guard !data.isEmpty, !EmbeddedImage.isPresent(inText: data) else { continue }
      appendResource(r.id, data, to: &out)
    }
    return out
  }

  /// Appends an `8BIM` resource without a name, its data padded to an even size.
  static func appendResource(_ id: Int, _ data: [UInt8], to out: inout [UInt8]) {
    out += "8BIM".asciiBytes
    out.appendUInt16BE(id)
    out += [0, 0]  // an empty Pascal name, padded to an even size
    out.appendUInt32BE(data.count)
    out += data
    if data.count % 2 == 1 { out.append(0) }
  }
}
