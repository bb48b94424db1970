/// The Photoshop image resource blocks of APP13 ("8BIM" resources, which hold IPTC).
enum PhotoshopResources {
  /// Resource IDs of Photoshop's embedded thumbnails (4.0 and 5.0+).
  static let thumbnailIDs: Set<Int> = [0x0409, 0x040C]

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

  /// The resource block without its thumbnail resources, byte for byte otherwise. Walking stops at
  /// the first block that is not a well-formed resource; what follows it is dropped (it could hide
  /// a thumbnail).
  static func removingThumbnails(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    for r in resources(bytes) where !thumbnailIDs.contains(r.id) { out += bytes[r.whole] }
    return out
  }
}
