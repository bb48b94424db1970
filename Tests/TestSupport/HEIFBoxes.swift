/// Edits of a HEIF file's boxes for tests, on files heif-enc made (`ftyp`, `meta`, `mdat`, in
/// that order): heif-enc 1.15 writes no `irot` (it copies a JPEG's EXIF orientation and leaves
/// the pixels as stored), so tests add one here, and make a header claim another size.
public enum HEIFBoxes {
  public struct Malformed: Error {}

  /// A box: its type and where it lies (header included).
  struct Box {
    var type: String
    var range: Range<Int>
    /// Where its children start (after the header, and a full box's version and flags).
    var body: Int
  }

  static func uint(_ b: [UInt8], _ at: Int, _ size: Int) -> Int {
    (0..<size).reduce(0) { $0 << 8 | Int(b[at + $1]) }
  }

  static func put(_ value: Int, _ size: Int, into b: inout [UInt8], at: Int) {
    for i in 0..<size { b[at + i] = UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - i))) }
  }

  /// The boxes in `range` of `b`.
  static func boxes(_ b: [UInt8], in range: Range<Int>) throws -> [Box] {
    var out: [Box] = []
    var i = range.lowerBound
    while i + 8 <= range.upperBound {
      let size = uint(b, i, 4)
      let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
      guard size >= 8, i + size <= range.upperBound else { throw Malformed() }
      let full = ["meta", "ipma", "iloc", "pitm", "iinf", "iref", "ispe", "irot"].contains(type)
      out.append(Box(type: type, range: i..<(i + size), body: i + 8 + (full ? 4 : 0)))
      i += size
    }
    return out
  }

  static func child(_ b: [UInt8], _ parent: Box, _ type: String) throws -> Box {
    guard let box = try boxes(b, in: parent.body..<parent.range.upperBound).first(where: { $0.type == type })
    else { throw Malformed() }
    return box
  }

  /// The file with an `irot` property (`angle` × 90° anticlockwise) given to its primary image:
  /// the property appended to `ipco`, associated in `ipma`, the enclosing sizes and `iloc`'s
  /// offsets into `mdat` moved by the bytes added. With `first`, the association comes before
  /// the others (before `ispe`, as Canon's cameras write it).
  public static func addingRotation(_ b: [UInt8], angle: UInt8, first: Bool = false) throws -> [UInt8] {
    let top = try boxes(b, in: 0..<b.count)
    guard let meta = top.first(where: { $0.type == "meta" }) else { throw Malformed() }
    let pitm = try child(b, meta, "pitm")
    let primary = uint(b, pitm.body, b[pitm.range.lowerBound + 8] == 0 ? 2 : 4)
    let iprp = try child(b, meta, "iprp")
    let ipco = try child(b, iprp, "ipco")
    let ipma = try child(b, iprp, "ipma")
    let iloc = try child(b, meta, "iloc")
    let index = try boxes(b, in: ipco.body..<ipco.range.upperBound).count + 1
    let version = b[ipma.range.lowerBound + 8]
    let wide = b[ipma.range.lowerBound + 11] & 1 == 1
    guard !wide, index < 128 else { throw Malformed() }
    // ipma's entries: item, association count, associations of one byte.
    var i = ipma.body + 4
    var entry: Int? = nil
    for _ in 0..<uint(b, ipma.body, 4) {
      let item = uint(b, i, version < 1 ? 2 : 4)
      i += version < 1 ? 2 : 4
      if item == primary { entry = i }
      i += 1 + Int(b[i])
    }
    guard let entry else { throw Malformed() }
    let irot: [UInt8] = [0, 0, 0, 9] + Array("irot".utf8) + [angle & 3]
    let added = irot.count + 1
    let associationAt = first ? entry + 1 : entry + 1 + Int(b[entry])
    guard ipco.range.upperBound <= entry else { throw Malformed() }
    /// Where a byte of `b` is in the result.
    func moved(_ p: Int) -> Int {
      p + (p >= ipco.range.upperBound ? irot.count : 0) + (p >= associationAt ? 1 : 0)
    }
    var out = b
    // From the end backwards, so that earlier offsets stay valid.
    out.insert(0x80 | UInt8(index), at: associationAt)
    out[entry] += 1
    out.insert(contentsOf: irot, at: ipco.range.upperBound)
    for box in [meta, iprp, ipco, ipma] {
      let grows = box.type == "ipco" ? irot.count : box.type == "ipma" ? 1 : added
      put(uint(b, box.range.lowerBound, 4) + grows, 4, into: &out, at: moved(box.range.lowerBound))
    }
    try shiftOffsets(&out, iloc: moved(iloc.range.lowerBound), past: meta.range.upperBound, by: added)
    return out
  }

  /// Moves every `iloc` offset (file offsets of construction method 0) that points past
  /// `past` (the end of `meta` before the edit) by `by` bytes; `iloc` is at `iloc` in `out`.
  static func shiftOffsets(_ out: inout [UInt8], iloc: Int, past: Int, by: Int) throws {
    let version = out[iloc + 8]
    var i = iloc + 12
    let offsetSize = Int(out[i] >> 4)
    let lengthSize = Int(out[i] & 15)
    let baseSize = Int(out[i + 1] >> 4)
    let indexSize = version >= 1 ? Int(out[i + 1] & 15) : 0
    i += 2
    let itemCount = uint(out, i, version < 2 ? 2 : 4)
    i += version < 2 ? 2 : 4
    for _ in 0..<itemCount {
      i += version < 2 ? 2 : 4
      var method = 0
      if version >= 1 {
        method = uint(out, i, 2) & 15
        i += 2
      }
      i += 2  // data reference index
      let base = baseSize > 0 ? uint(out, i, baseSize) : 0
      if baseSize > 0 && method == 0 && base >= past { put(base + by, baseSize, into: &out, at: i) }
      i += baseSize
      let extents = uint(out, i, 2)
      i += 2
      for _ in 0..<extents {
        i += indexSize
        if offsetSize > 0 && method == 0 {
          let offset = uint(out, i, offsetSize)
          if base + offset >= past && base < past { put(offset + by, offsetSize, into: &out, at: i) }
        }
        i += offsetSize + lengthSize
      }
    }
  }

  /// The file with every `ispe` property saying `width` × `height` (the coded image is
  /// unchanged: a header that lies about its size).
  public static func claimingSize(_ b: [UInt8], width: Int, height: Int) throws -> [UInt8] {
    let top = try boxes(b, in: 0..<b.count)
    guard let meta = top.first(where: { $0.type == "meta" }) else { throw Malformed() }
    let ipco = try child(b, try child(b, meta, "iprp"), "ipco")
    var out = b
    for box in try boxes(b, in: ipco.body..<ipco.range.upperBound) where box.type == "ispe" {
      put(width, 4, into: &out, at: box.body)
      put(height, 4, into: &out, at: box.body + 4)
    }
    return out
  }
}
