/// Reads and rewrites the EXIF TIFF structure (the bytes after "Exif\0\0").
///
/// Only what photoedit needs: the orientation tag, and removing IFD1 (the embedded thumbnail) so
/// that no picture of the original survives into a render. Every offset is bounds-checked; a
/// structure that cannot be walked is reported as nil.
enum EXIF {
  struct Reader {
    let bytes: [UInt8]
    let littleEndian: Bool

    init?(_ bytes: [UInt8]) {
      guard bytes.count >= 8 else { return nil }
      if bytes[0] == 0x49, bytes[1] == 0x49, bytes[2] == 42, bytes[3] == 0 {
        littleEndian = true
      } else if bytes[0] == 0x4D, bytes[1] == 0x4D, bytes[2] == 0, bytes[3] == 42 {
        littleEndian = false
      } else {
        return nil
      }
      self.bytes = bytes
    }

    func u16(_ i: Int) -> Int? {
      guard i >= 0, i + 2 <= bytes.count else { return nil }
      return littleEndian
        ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 : Int(bytes[i]) << 8 | Int(bytes[i + 1])
    }
    func u32(_ i: Int) -> Int? {
      guard let a = u16(i), let b = u16(i + 2) else { return nil }
      return littleEndian ? a | b << 16 : a << 16 | b
    }
    var ifd0: Int? { u32(4) }

    /// The entries of the IFD at `offset`: (tag, type, count, position of the entry).
    func entries(at offset: Int) -> [(tag: Int, type: Int, count: Int, entry: Int)]? {
      guard offset >= 8, let n = u16(offset), offset + 2 + n * 12 + 4 <= bytes.count else {
        return nil
      }
      return (0..<n).compactMap { k in
        let e = offset + 2 + k * 12
        guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { return nil }
        return (tag, type, count, e)
      }
    }

    /// Byte size of one value of a TIFF type (0 for unknown types).
    static func size(of type: Int) -> Int {
      switch type {
      case 1, 2, 6, 7: 1
      case 3, 8: 2
      case 4, 9, 11, 13: 4
      case 5, 10, 12: 8
      default: 0
      }
    }

    /// The byte range of an entry's value: inline (in the entry) or at its offset.
    func valueRange(type: Int, count: Int, entry: Int) -> Range<Int>? {
      let size = Reader.size(of: type) * count
      guard size > 0, count < 1 << 28 else { return nil }
      if size <= 4 { return (entry + 8)..<(entry + 8 + size) }
      guard let offset = u32(entry + 8), offset + size <= bytes.count else { return nil }
      return offset..<(offset + size)
    }
  }

  /// The orientation tag (0x0112) of IFD0 when it is 1...8: the first value of the first such
  /// entry of type SHORT, inline or out of line as its count says.
  static func orientation(in tiff: [UInt8]) -> Int? {
    guard let r = Reader(tiff), let ifd0 = r.ifd0, let entries = r.entries(at: ifd0),
      let at = orientationOffset(r, entries), let value = r.u16(at), (1...8).contains(value)
    else { return nil }
    return value
  }

  /// Where the orientation's first value lies. The reader and the sanitizer both use it, so
  /// that the value rewritten to 1 is the one read (an entry whose count is not 1 keeps its
  /// values out of line once they pass 4 bytes).
  private static func orientationOffset(
    _ r: Reader, _ entries: [(tag: Int, type: Int, count: Int, entry: Int)]
  ) -> Int? {
    guard let e = entries.first(where: { $0.tag == 0x0112 && $0.type == 3 && $0.count >= 1 }) else {
      return nil
    }
    return r.valueRange(type: e.type, count: e.count, entry: e.entry)?.lowerBound
  }

  /// The TIFF structure with orientation set to 1 and IFD1 (the thumbnail) removed.
  ///
  /// IFD0's link to IFD1 is cleared, and the bytes of IFD1's directory, of its values and of the
  /// thumbnail it points to are zeroed, except those the kept IFDs use themselves; when nothing
  /// the other IFDs use lies after them, the structure is cut there. Returns nil when IFD0
  /// cannot be read (the EXIF is then dropped).
  ///
  /// - Complexity: O(n log n) in the entries of the IFDs, plus O(size).
  static func sanitized(_ tiff: [UInt8]) -> [UInt8]? {
    guard let r = Reader(tiff), let ifd0 = r.ifd0, let entries0 = r.entries(at: ifd0) else {
      return nil
    }
    var out = tiff
    func put16(_ i: Int, _ v: Int) {
      if r.littleEndian {
        (out[i], out[i + 1]) = (UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF))
      } else {
        (out[i], out[i + 1]) = (UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
      }
    }
    if let at = orientationOffset(r, entries0) { put16(at, 1) }

    // Everything the kept IFDs (0, Exif, GPS, Interoperability) use, to know where to cut.
    var keptEnd = 8
    var kept: [Range<Int>] = [0..<8]
    var visited: Set<Int> = []
    func walk(_ offset: Int) {
      guard !visited.contains(offset), visited.count < 16, let entries = r.entries(at: offset) else {
        return
      }
      visited.insert(offset)
      kept.append(offset..<(offset + 2 + entries.count * 12 + 4))
      for e in entries {
        if let range = r.valueRange(type: e.type, count: e.count, entry: e.entry) {
          kept.append(range)
        }
        if [0x8769, 0x8825, 0xA005].contains(e.tag), let sub = r.u32(e.entry + 8) { walk(sub) }
      }
    }
    walk(ifd0)
    keptEnd = kept.map(\.upperBound).max() ?? 8

    let linkAt = ifd0 + 2 + entries0.count * 12
    guard let ifd1 = r.u32(linkAt), ifd1 != 0 else { return out }
    out.replaceSubrange(linkAt..<(linkAt + 4), with: [0, 0, 0, 0])
    var removed: [Range<Int>] = []
    if let entries1 = r.entries(at: ifd1) {
      removed.append(ifd1..<(ifd1 + 2 + entries1.count * 12 + 4))
      for e in entries1 {
        if let range = r.valueRange(type: e.type, count: e.count, entry: e.entry) {
          removed.append(range)
        }
      }
      // The thumbnail itself: JPEGInterchangeFormat + Length, or strips.
      func value(_ tag: Int) -> [Int] {
        guard let e = entries1.first(where: { $0.tag == tag }),
          let range = r.valueRange(type: e.type, count: e.count, entry: e.entry)
        else { return [] }
        let size = Reader.size(of: e.type)
        return stride(from: range.lowerBound, to: range.upperBound, by: size).compactMap {
          size == 2 ? r.u16($0) : size == 4 ? r.u32($0) : nil
        }
      }
      for (offsetsTag, lengthsTag) in [(0x0201, 0x0202), (0x0111, 0x0117)] {
        for (offset, length) in zip(value(offsetsTag), value(lengthsTag))
        where offset >= 8 && length > 0 && offset + length <= tiff.count {
          removed.append(offset..<(offset + length))
        }
      }
    }
    // Zero every removed byte that no kept IFD uses. Both lists are merged into sorted,
    // disjoint ranges first, so this is O(n log n) however many entries the IFDs have.
    let keep = merged(kept)
    var k = 0
    for range in merged(removed.map { $0.clamped(to: 0..<out.count) }) {
      var start = range.lowerBound
      while start < range.upperBound {
        while k < keep.count, keep[k].upperBound <= start { k += 1 }
        let end = k < keep.count ? min(range.upperBound, keep[k].lowerBound) : range.upperBound
        for i in start..<max(start, end) { out[i] = 0 }
        guard k < keep.count, keep[k].lowerBound < range.upperBound else { break }
        start = keep[k].upperBound
      }
    }
    // Cut the tail when only zeros (the removed parts, padding) follow what is kept.
    if keptEnd < out.count, out[keptEnd...].allSatisfy({ $0 == 0 }) {
      out.removeSubrange(keptEnd...)
    }
    return out
  }

  /// Sorted, disjoint, non-empty ranges covering the bytes `ranges` cover.
  private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
    var out: [Range<Int>] = []
    for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = out.last, range.lowerBound <= last.upperBound {
        out[out.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        out.append(range)
      }
    }
    return out
  }
}
