/// The Photoshop image resource blocks of APP13 ("8BIM" resources, which hold IPTC).
enum PhotoshopResources {
  /// Resource IDs of Photoshop's embedded thumbnails (4.0 and 5.0+).
  static let thumbnailIDs: Set<Int> = [0x0409, 0x040C]

  /// The resource block without its thumbnail resources, byte for byte otherwise. Walking stops at
  /// the first block that is not a well-formed resource; what follows it is dropped (it could hide
  /// a thumbnail).
  static func removingThumbnails(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    let signatures: [[UInt8]] = ["8BIM".asciiBytes, "8B64".asciiBytes, "PHUT".asciiBytes]
    while i + 12 <= bytes.count, signatures.contains(where: { bytes.hasBytes($0, at: i) }) {
      let id = bytes.uint16BE(at: i + 4)
      let nameLength = Int(bytes[i + 6])
      var p = i + 7 + nameLength
      if (1 + nameLength) % 2 == 1 { p += 1 }  // the Pascal name is padded to an even size
      guard p + 4 <= bytes.count else { break }
      let size = bytes.uint32BE(at: p)
      var end = p + 4 + size
      if size % 2 == 1 { end += 1 }
      guard end <= bytes.count || p + 4 + size == bytes.count else { break }
      end = min(end, bytes.count)
      if !thumbnailIDs.contains(id) { out += bytes[i..<end] }
      i = end
    }
    return out
  }
}
