/// Reads and rewrites the EXIF TIFF structure (the bytes after "Exif\0\0").
///
/// Only what photoedit needs: the orientation tag here, and the structure rebuilt from an
/// allow-list of tags (EXIF+Rebuilt.swift), so that no picture of the original survives into a
/// render. Every offset is bounds-checked; a structure that cannot be walked is reported as nil.
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

  /// Where the orientation's first value lies (an entry whose count is not 1 keeps its values
  /// out of line once they pass 4 bytes).
  private static func orientationOffset(
    _ r: Reader, _ entries: [(tag: Int, type: Int, count: Int, entry: Int)]
  ) -> Int? {
    guard let e = entries.first(where: { $0.tag == 0x0112 && $0.type == 3 && $0.count >= 1 }) else {
      return nil
    }
    return r.valueRange(type: e.type, count: e.count, entry: e.entry)?.lowerBound
  }
}
