/// A TIFF render's EXIF: a render's EXIF structure (`EXIF.rendered`: header, IFD0, the Exif,
/// Interoperability and GPS IFDs and their values) is a TIFF structure itself, so a TIFF render
/// carries it as a TIFF does: IFD0's descriptive tags beside the image's own, and the Exif and
/// GPS IFDs pointed to from there.
extension TIFFFormat {
  /// `render` (a classic TIFF of one image, in `exif`'s byte order, as `TIFFLibrary.encode`
  /// writes it) with `exif` appended and a new IFD0 at the end: the image's entries and IFD0's
  /// entries of `exif` that the image does not have (its own tags win), in ascending tag order.
  /// Every offset in the appended structure is moved by where it lands; the image's first IFD
  /// stays where libtiff wrote it, no longer pointed to. The MakerNote is never carried (its
  /// offsets are its own: moved, it would no longer be read right).
  ///
  /// - Returns: nil when the two are not the same byte order, when either cannot be walked, or
  ///   when the result would pass 4 GiB; the caller then writes the render without EXIF.
  static func attaching(_ exif: [UInt8], to render: [UInt8]) -> [UInt8]? {
    guard let exif = EXIF.rendered(exif, keepingMakerNote: false),
      let e = EXIF.Reader(exif), let r = EXIF.Reader(render), e.littleEndian == r.littleEndian,
      let exifIFD0 = e.ifd0, let exifEntries = e.entries(at: exifIFD0),
      let renderIFD0 = r.ifd0, let renderEntries = r.entries(at: renderIFD0)
    else { return nil }
    // The structure without its 8-byte header lands at `base`: offset x moves to x + delta.
    let base = (render.count + 1) & ~1
    let delta = base - 8
    var out = render + [UInt8](repeating: 0, count: base - render.count) + exif[8...]
    guard out.count + 2 + (renderEntries.count + exifEntries.count) * 12 + 4 < 1 << 32 else { return nil }
    func put32(_ v: Int, at i: Int) {
      let bytes = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
      for k in 0..<4 { out[i + k] = bytes[e.littleEndian ? k : 3 - k] }
    }
    /// The 12 bytes of `exif`'s entry at `entry`, its offset moved when its value is out of
    /// line or it points to an IFD.
    func moved(_ entry: Int, tag: Int, type: Int, count: Int) -> [UInt8]? {
      var bytes = Array(exif[entry..<(entry + 12)])
      let pointer = [EXIF.exifPointer, EXIF.gpsPointer, EXIF.interopPointer].contains(tag)
      guard pointer || EXIF.Reader.size(of: type) * count > 4 else { return bytes }
      guard let offset = e.u32(entry + 8) else { return nil }
      let v = offset + delta
      let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
      for k in 0..<4 { bytes[8 + k] = le[e.littleEndian ? k : 3 - k] }
      return bytes
    }
    // The Exif, Interoperability and GPS IFDs move with the structure: their entries' offsets
    // are moved where they now lie (IFD0's are written in the new IFD0 below).
    var subIFDs: [Int] = []
    for entry in exifEntries where entry.tag == EXIF.exifPointer || entry.tag == EXIF.gpsPointer {
      guard let at = e.u32(entry.entry + 8) else { return nil }
      subIFDs.append(at)
      if entry.tag == EXIF.exifPointer, let inner = e.entries(at: at),
        let interop = inner.first(where: { $0.tag == EXIF.interopPointer }), let at = e.u32(interop.entry + 8)
      {
        subIFDs.append(at)
      }
    }
    for at in subIFDs {
      guard let entries = e.entries(at: at) else { return nil }
      for entry in entries {
        guard let bytes = moved(entry.entry, tag: entry.tag, type: entry.type, count: entry.count) else {
          return nil
        }
        out.replaceSubrange((entry.entry + delta)..<(entry.entry + delta + 12), with: bytes)
      }
      // No IFD is chained after these.
      put32(0, at: at + delta + 2 + entries.count * 12)
    }
    // The new IFD0: the image's entries as libtiff wrote them, and the EXIF's others.
    var merged: [(tag: Int, bytes: [UInt8])] = renderEntries.map {
      ($0.tag, Array(render[$0.entry..<($0.entry + 12)]))
    }
    let own = Set(renderEntries.map(\.tag))
    for entry in exifEntries where !own.contains(entry.tag) {
      guard let bytes = moved(entry.entry, tag: entry.tag, type: entry.type, count: entry.count) else {
        return nil
      }
      merged.append((entry.tag, bytes))
    }
    merged.sort { $0.tag < $1.tag }
    if out.count % 2 == 1 { out.append(0) }
    let ifd0 = out.count
    out +=
      e.littleEndian
      ? [UInt8(merged.count & 0xFF), UInt8(merged.count >> 8)]
      : [UInt8(merged.count >> 8), UInt8(merged.count & 0xFF)]
    for entry in merged { out += entry.bytes }
    out += [0, 0, 0, 0]
    put32(ifd0, at: 4)
    return out
  }
}
