/// The canvases of a HEIF's derived images (`grid` and `iovl` items), read from its boxes: libheif
/// allocates a derived image at the size its item data says, which nothing ties to the `ispe`
/// property photoedit's limits are checked against (a 1.7 KB file whose `ispe` says 128x128 had
/// an overlay canvas of 20303x20303, 2.8 GB). ISO/IEC 14496-12 (boxes, `iloc`) and 23008-12
/// (6.6.2.3 grid, 6.6.2.4 overlay). Pure Swift, bounded by its input.
enum HEIFItems {
  /// A derived image's canvas: its item type and the width and height its data says.
  struct Canvas: Equatable {
    var type: String
    var width: Int, height: Int
  }

  /// Every `grid` and `iovl` item's canvas in `bytes`, or nil when the boxes cannot be read far
  /// enough to know them (libheif, which read the file, would still allocate them).
  static func derivedCanvases(_ bytes: [UInt8]) -> [Canvas]? {
    guard let children = metaChildren(bytes) else { return nil }
    guard let iinf = children.first(where: { $0.type == "iinf" }) else { return [] }
    guard let types = itemTypes(bytes, iinf) else { return nil }
    let derived = types.filter { $0.value == "grid" || $0.value == "iovl" }
    guard !derived.isEmpty else { return [] }
    guard let iloc = children.first(where: { $0.type == "iloc" }), let locations = extents(bytes, iloc) else {
      return nil
    }
    let idat = children.first(where: { $0.type == "idat" })?.body
    var canvases: [Canvas] = []
    for (id, type) in derived.sorted(by: { $0.key < $1.key }) {
      guard let location = locations[id] else { return nil }
      var data: [UInt8] = []
      for extent in location.extents where data.count < 20 {
        let base: Range<Int>
        switch location.method {
        case 0: base = 0..<bytes.count
        case 1:
          guard let idat else { return nil }
          base = idat
        default: return nil
        }
        let start = location.base &+ extent.offset
        guard start >= 0, start <= base.count else { return nil }
        let length = extent.length == 0 ? base.count - start : extent.length
        guard length >= 0, length <= base.count - start else { return nil }
        let from = base.lowerBound + start
        data += bytes[from..<from + min(length, 20 - data.count)]
      }
      // grid: version, flags, rows - 1, columns - 1; iovl: version, flags, 4 fill values.
      let sizeAt = type == "grid" ? 4 : 10
      guard data.count >= 2 else { return nil }
      let fieldBytes = data[1] & 1 == 1 ? 4 : 2
      guard data.count >= sizeAt + 2 * fieldBytes else { return nil }
      canvases.append(
        Canvas(
          type: type, width: uint(data, sizeAt, fieldBytes),
          height: uint(data, sizeAt + fieldBytes, fieldBytes)))
    }
    return canvases
  }

  /// The primary image's `irot` angle (0 to 3, quarter turns anticlockwise), from `pitm`,
  /// `ipma` and `ipco`; 0 when it has none or the boxes cannot be read.
  static func primaryRotation(_ bytes: [UInt8]) -> Int {
    guard let children = metaChildren(bytes),
      let pitm = children.first(where: { $0.type == "pitm" }), pitm.body.count >= 4,
      let iprp = children.first(where: { $0.type == "iprp" })
    else { return 0 }
    let properties = boxes(bytes, iprp.body)
    guard let ipco = properties.first(where: { $0.type == "ipco" }),
      let ipma = properties.first(where: { $0.type == "ipma" }), ipma.body.count >= 8
    else { return 0 }
    let listed = boxes(bytes, ipco.body)
    let primaryBytes = bytes[pitm.body.lowerBound] == 0 ? 2 : 4
    guard pitm.body.count >= 4 + primaryBytes else { return 0 }
    let primary = uint(bytes, pitm.body.lowerBound + 4, primaryBytes)
    let version = bytes[ipma.body.lowerBound]
    let wide = bytes[ipma.body.lowerBound + 3] & 1 == 1
    var at = ipma.body.lowerBound + 8
    for _ in 0..<uint(bytes, ipma.body.lowerBound + 4, 4) {
      let idBytes = version < 1 ? 2 : 4
      guard at + idBytes + 1 <= ipma.body.upperBound else { return 0 }
      let item = uint(bytes, at, idBytes)
      let count = Int(bytes[at + idBytes])
      at += idBytes + 1
      let size = wide ? 2 : 1
      guard at + count * size <= ipma.body.upperBound else { return 0 }
      if item == primary {
        for association in 0..<count {
          let index = uint(bytes, at + association * size, size) & (wide ? 0x7fff : 0x7f)
          guard index >= 1, index <= listed.count else { continue }
          let property = listed[index - 1]
          if property.type == "irot", property.body.count >= 1 {
            return Int(bytes[property.body.lowerBound] & 3)
          }
        }
        return 0
      }
      at += count * size
    }
    return 0
  }

  /// A box: its type and the range of its body (after the header).
  private struct Box {
    var type: String
    var body: Range<Int>
  }

  /// The boxes inside the file's `meta` box (a full box: 4 bytes of version and flags first),
  /// or nil when it has none.
  private static func metaChildren(_ bytes: [UInt8]) -> [Box]? {
    guard let meta = boxes(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }), meta.body.count >= 4
    else { return nil }
    return boxes(bytes, meta.body.lowerBound + 4..<meta.body.upperBound)
  }

  /// The boxes in `range` of `bytes`, up to the first that runs past it (libheif reads a file
  /// with trailing bytes that are no box).
  private static func boxes(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
    var out: [Box] = []
    var offset = range.lowerBound
    while offset < range.upperBound {
      guard range.upperBound - offset >= 8 else { break }
      var size = uint(bytes, offset, 4)
      var header = 8
      if size == 1 {
        guard range.upperBound - offset >= 16 else { break }
        size = uint(bytes, offset + 8, 8)
        header = 16
      } else if size == 0 {
        size = range.upperBound - offset
      }
      guard size >= header, size <= range.upperBound - offset else { break }
      let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
      out.append(Box(type: type, body: offset + header..<offset + size))
      offset += size
    }
    return out
  }

  /// Each item's type, from `iinf`'s `infe` boxes of version 2 and 3 (earlier ones name no image).
  private static func itemTypes(_ bytes: [UInt8], _ iinf: Box) -> [Int: String]? {
    let body = iinf.body
    guard body.count >= 4 else { return nil }
    let countBytes = bytes[body.lowerBound] == 0 ? 2 : 4
    guard body.count >= 4 + countBytes else { return nil }
    var types: [Int: String] = [:]
    for infe in boxes(bytes, body.lowerBound + 4 + countBytes..<body.upperBound) where infe.type == "infe" {
      guard infe.body.count >= 4 else { return nil }
      let version = bytes[infe.body.lowerBound]
      guard version >= 2 else { continue }
      let idBytes = version == 2 ? 2 : 4
      let typeAt = infe.body.lowerBound + 4 + idBytes + 2
      guard typeAt + 4 <= infe.body.upperBound else { return nil }
      types[uint(bytes, infe.body.lowerBound + 4, idBytes)] = String(
        decoding: bytes[typeAt..<typeAt + 4], as: UTF8.self)
    }
    return types
  }

  /// Where an item's data is: its construction method (0 the file, 1 `idat`), base offset and
  /// extents.
  private struct Location {
    var method: Int
    var base: Int
    var extents: [(offset: Int, length: Int)]
  }

  /// Every item's location, from `iloc` (versions 0, 1 and 2).
  private static func extents(_ bytes: [UInt8], _ iloc: Box) -> [Int: Location]? {
    var at = iloc.body.lowerBound
    let end = iloc.body.upperBound
    func read(_ size: Int) -> Int? {
      guard (0...8).contains(size), end - at >= size else { return nil }
      defer { at += size }
      return uint(bytes, at, size)
    }
    guard let version = read(1), version <= 2, read(3) != nil, let sizes = read(1), let more = read(1),
      let count = read(version < 2 ? 2 : 4)
    else { return nil }
    let (offsetSize, lengthSize, baseSize) = (sizes >> 4, sizes & 15, more >> 4)
    let indexSize = version == 0 ? 0 : more & 15
    var out: [Int: Location] = [:]
    for _ in 0..<count {
      guard let id = read(version < 2 ? 2 : 4) else { return nil }
      var method = 0
      if version > 0 {
        guard let value = read(2) else { return nil }
        method = value & 15
      }
      guard read(2) != nil, let base = read(baseSize), let extentCount = read(2) else { return nil }
      var location = Location(method: method, base: base, extents: [])
      // Extents of no bytes each: one is a whole file or `idat`; more would only cost time.
      if indexSize + offsetSize + lengthSize == 0, extentCount > 1 { return nil }
      for _ in 0..<extentCount {
        guard read(indexSize) != nil, let offset = read(offsetSize), let length = read(lengthSize) else {
          return nil
        }
        location.extents.append((offset, length))
      }
      out[id] = location
    }
    return out
  }

  /// A big-endian unsigned number of `size` bytes at `at` (at most 8; the caller checked the
  /// bounds).
  private static func uint(_ bytes: [UInt8], _ at: Int, _ size: Int) -> Int {
    var value: UInt64 = 0
    for index in 0..<size { value = value << 8 | UInt64(bytes[at + index]) }
    return Int(truncatingIfNeeded: min(value, UInt64(Int.max)))
  }
}
