/// EXIF as a render writes it: rebuilt, not patched, from an allow-list of standard tags that
/// hold no image data.
///
/// Only the tags of a declared list are copied, each only with the TIFF types the EXIF
/// specification gives it, into a new TIFF structure with fresh offsets. So nothing that is not
/// on the list survives: not IFD1 (the thumbnail) nor any IFD chained after it (a preview), not
/// JPEGInterchangeFormat or StripOffsets (the pointers to those pictures), not the private tags
/// a camera or a program adds (which may hold anything), not the bytes between the entries that
/// no entry points to (where an editor may have left a previous value or a preview). The
/// MakerNote, a camera's own opaque structure, is copied only when asked (never into a render
/// that hides faces). A kept value that holds an image anyway (`EmbeddedImage`: a MakerNote with
/// a JPEG preview inside) is dropped.
extension EXIF {
  /// What a kept tag may be: its TIFF types, and its count when the specification fixes it.
  struct TagRule: Sendable {
    var types: Set<Int>
    var count: Int? = nil
  }

  static let byte = TagRule(types: [1])
  static let ascii = TagRule(types: [2])
  static let short = TagRule(types: [3])
  static let long = TagRule(types: [4])
  static let shortOrLong = TagRule(types: [3, 4])
  static let rational = TagRule(types: [5])
  static let signedRational = TagRule(types: [10])
  static let undefined = TagRule(types: [7])

  /// The Exif IFD's pointer (in IFD0), the GPS IFD's (in IFD0) and the Interoperability IFD's
  /// (in the Exif IFD).
  static let exifPointer = 0x8769, gpsPointer = 0x8825, interopPointer = 0xA005
  static let orientationTag = 0x0112
  /// The MakerNote (in the Exif IFD): a camera's own structure, often with previews inside.
  static let makerNoteTag = 0x927C

  /// Which tags a rebuilt structure keeps, IFD by IFD; an IFD whose list is empty is not
  /// written. The pointer tags are never on a list: the rebuild writes its own.
  struct Rules: Sendable {
    var ifd0: [Int: TagRule]
    var exif: [Int: TagRule]
    var interop: [Int: TagRule]
    var gps: [Int: TagRule] = [:]
  }

  /// IFD0's tags a render keeps besides those `--strip-identifying` keeps (`keptInIFD0`): the
  /// free text (DocumentName, ImageDescription, Artist, HostComputer, Copyright), Windows' XP
  /// title, comment, author, keywords and subject (UCS-2 text), and the rating. Dropped among
  /// others: IFD1's and IFD0's picture pointers and sizes (StripOffsets 0x0111,
  /// StripByteCounts 0x0117, TileOffsets 0x0144, JPEGInterchangeFormat 0x0201 and its length
  /// 0x0202), SubIFDs 0x014A, XMP 0x02BC, IPTC 0x83BB, Photoshop 0x8649, ICC 0x8773 (each
  /// carried in its own place, or not at all), PrintIM 0xC4A5, DNG's private data 0xC634 and
  /// every private tag.
  static let renderedIFD0: [Int: TagRule] = keptInIFD0.merging([
    0x010D: ascii, 0x010E: ascii, 0x013B: ascii, 0x013C: ascii, 0x8298: ascii,
    0x9C9B: byte, 0x9C9C: byte, 0x9C9D: byte, 0x9C9E: byte, 0x9C9F: byte,  // XPTitle...XPSubject
    0x4746: short, 0x4749: short,  // Rating, RatingPercent
  ]) { kept, _ in kept }

  /// The Exif IFD's tags a render keeps besides `keptInExif`: the time-zone offsets, the user
  /// comment, the related sound file's name, the unique ID, the owner's name and the serial
  /// numbers, EXIF 3.0's title, photographer, editor and software names, pressure and water
  /// depth. The MakerNote 0x927C only as `rendered(_:keepingMakerNote:)` says. Dropped among
  /// others: DeviceSettingDescription 0xA40B (a camera's own structure), Microsoft's Padding
  /// 0xEA1C and OffsetSchema 0xEA1D, and every private tag.
  static let renderedExif: [Int: TagRule] = keptInExif.merging([
    0x9010: ascii, 0x9011: ascii, 0x9012: ascii,  // OffsetTime, ...Original, ...Digitized
    0x9286: undefined, 0xA004: ascii, 0xA420: ascii,  // UserComment, RelatedSoundFile, ImageUniqueID
    0xA430: ascii, 0xA431: ascii, 0xA435: ascii,  // CameraOwnerName, Body- and LensSerialNumber
    0xA436: ascii, 0xA437: ascii, 0xA438: ascii, 0xA439: ascii, 0xA43A: ascii, 0xA43B: ascii,
    0xA43C: ascii,  // ImageTitle ... MetadataEditingSoftware
    0x9402: rational, 0x9403: signedRational,  // Pressure, WaterDepth
  ]) { kept, _ in kept }

  /// The GPS IFD's tags a render keeps: every tag of EXIF 2.32's GPS IFD, 0x0000...0x001F.
  static let renderedGPS: [Int: TagRule] = [
    0x0000: TagRule(types: [1], count: 4),  // GPSVersionID
    0x0001: ascii, 0x0002: rational, 0x0003: ascii, 0x0004: rational,  // latitude, longitude
    0x0005: byte, 0x0006: rational, 0x0007: rational,  // altitude, time stamp
    0x0008: ascii, 0x0009: ascii, 0x000A: ascii, 0x000B: rational,  // satellites, status, DOP
    0x000C: ascii, 0x000D: rational, 0x000E: ascii, 0x000F: rational,  // speed, track
    0x0010: ascii, 0x0011: rational, 0x0012: ascii,  // image direction, map datum
    0x0013: ascii, 0x0014: rational, 0x0015: ascii, 0x0016: rational,  // destination
    0x0017: ascii, 0x0018: rational, 0x0019: ascii, 0x001A: rational,
    0x001B: undefined, 0x001C: undefined,  // ProcessingMethod, AreaInformation
    0x001D: ascii, 0x001E: short, 0x001F: rational,  // DateStamp, Differential, HPositioningError
  ]

  /// The tags every render keeps, MakerNote aside.
  static let renderRules = Rules(
    ifd0: renderedIFD0, exif: renderedExif, interop: keptInInterop, gps: renderedGPS)

  /// The EXIF a render carries: `rebuilt` with `renderRules`, and the MakerNote too when
  /// `keepingMakerNote` (a render that hides faces does not: it is opaque, and cameras keep
  /// previews in it).
  ///
  /// - Returns: nil when IFD0 cannot be read or nothing is left to keep.
  static func rendered(_ tiff: [UInt8], keepingMakerNote: Bool) -> [UInt8]? {
    var rules = renderRules
    if keepingMakerNote { rules.exif[makerNoteTag] = undefined }
    return rebuilt(tiff, keeping: rules)
  }

  /// One entry to write: its tag, type and count, and its value's bytes (in the structure's
  /// byte order, `count` values of the type's size).
  private struct Entry {
    var tag: Int, type: Int, count: Int
    var value: [UInt8]
  }

  /// A new TIFF structure with only the tags `rules` lists (each with an allowed type and
  /// count, the first entry of a tag only, its value holding no image), an orientation of 1 when
  /// IFD0 had one, and no IFD1 (no thumbnail) nor any IFD chained after IFD0. An ASCII value ends
  /// at its first NUL (what follows it is dropped).
  ///
  /// The result is in the input's byte order: the header, IFD0, its values, the Exif IFD, its
  /// values, the Interoperability IFD, its values, the GPS IFD, its values; entries in ascending
  /// tag order, every directory and out-of-line value at an even offset (a zero byte pads),
  /// inline values left-justified and zero-padded. A kept MakerNote comes right after the Exif
  /// IFD's other values, or at the offset it had when that lies further (zeros between: maker
  /// notes often give offsets from the TIFF header into themselves) and the result stays within
  /// the input's size. Rebuilding the result again gives the same bytes.
  ///
  /// - Returns: nil when IFD0 cannot be read, when nothing is left to keep, when the result
  ///   would be larger than the input allows (entries of a damaged file that share one value),
  ///   or when its values side by side make an image signature: the EXIF is then dropped.
  /// - Complexity: O(n log n) in the entries, plus O(size).
  static func rebuilt(_ tiff: [UInt8], keeping rules: Rules) -> [UInt8]? {
    guard let r = Reader(tiff), let ifd0 = r.ifd0, let entries0 = r.entries(at: ifd0) else {
      return nil
    }
    typealias Found = (tag: Int, type: Int, count: Int, entry: Int)
    /// The first value of a pointer entry (LONG or IFD) whose count is 1.
    func pointer(_ tag: Int, in entries: [Found]) -> Int? {
      guard let e = entries.first(where: { $0.tag == tag }), e.type == 4 || e.type == 13, e.count == 1
      else { return nil }
      return r.u32(e.entry + 8)
    }
    var makerNoteWasAt: Int?
    func kept(_ entries: [Found], _ rules: [Int: TagRule]) -> [Entry] {
      var out: [Entry] = []
      var seen: Set<Int> = []
      for e in entries where !seen.contains(e.tag) {
        seen.insert(e.tag)
        guard let rule = rules[e.tag], rule.types.contains(e.type), rule.count.map({ $0 == e.count }) ?? true,
          e.count >= 1, let range = r.valueRange(type: e.type, count: e.count, entry: e.entry)
        else { continue }
        var value = Array(tiff[range])
        var count = e.count
        if e.type == 2 {
          // ASCII: up to and with the first NUL; one is added when there is none.
          if let nul = value.firstIndex(of: 0) { value.removeSubrange((nul + 1)...) } else { value.append(0) }
          count = value.count
          // A fixed-length string that had no room for its NUL is malformed: it is dropped, so
          // that rebuilding the result again keeps exactly what it holds.
          if let fixed = rule.count, fixed != count { continue }
        }
        if EmbeddedImage.isPresent(in: value) { continue }
        if e.tag == makerNoteTag, value.count > 4 { makerNoteWasAt = range.lowerBound }
        out.append(Entry(tag: e.tag, type: e.type, count: count, value: value))
      }
      return out.sorted { $0.tag < $1.tag }
    }

    var ifd0Entries = kept(entries0, rules.ifd0)
    if entries0.contains(where: { $0.tag == orientationTag }) {
      let one: [UInt8] = r.littleEndian ? [1, 0] : [0, 1]
      ifd0Entries.removeAll { $0.tag == orientationTag }
      ifd0Entries.append(Entry(tag: orientationTag, type: 3, count: 1, value: one))
      ifd0Entries.sort { $0.tag < $1.tag }
    }
    var exifEntries: [Entry] = []
    var interopEntries: [Entry] = []
    var gpsEntries: [Entry] = []
    if let offset = pointer(exifPointer, in: entries0), let entries = r.entries(at: offset) {
      exifEntries = kept(entries, rules.exif)
      if let offset = pointer(interopPointer, in: entries), let entries = r.entries(at: offset) {
        interopEntries = kept(entries, rules.interop)
      }
    }
    if !rules.gps.isEmpty, let offset = pointer(gpsPointer, in: entries0), let entries = r.entries(at: offset)
    {
      gpsEntries = kept(entries, rules.gps)
    }
    guard !ifd0Entries.isEmpty || !exifEntries.isEmpty || !gpsEntries.isEmpty else { return nil }
    // The MakerNote's value is written last, apart from the Exif IFD's other values.
    let makerNote = makerNoteWasAt != nil ? exifEntries.first { $0.tag == makerNoteTag } : nil

    // Lay the structure out: each IFD's size depends only on its own entries, so the offsets
    // are known before anything is written.
    func valueBytes(_ entries: [Entry]) -> Int {
      entries.reduce(0) {
        $0
          + ($1.value.count > 4 && !($1.tag == makerNoteTag && makerNote != nil)
            ? ($1.value.count + 1) & ~1 : 0)
      }
    }
    let hasInterop = !interopEntries.isEmpty
    let hasExif = !exifEntries.isEmpty || hasInterop
    let hasGPS = !gpsEntries.isEmpty
    if hasInterop {
      exifEntries.append(Entry(tag: interopPointer, type: 4, count: 1, value: [0, 0, 0, 0]))
      exifEntries.sort { $0.tag < $1.tag }
    }
    if hasExif { ifd0Entries.append(Entry(tag: exifPointer, type: 4, count: 1, value: [0, 0, 0, 0])) }
    if hasGPS { ifd0Entries.append(Entry(tag: gpsPointer, type: 4, count: 1, value: [0, 0, 0, 0])) }
    ifd0Entries.sort { $0.tag < $1.tag }
    func directorySize(_ entries: [Entry]) -> Int { 2 + entries.count * 12 + 4 }
    let ifd0At = 8
    let exifAt = ifd0At + directorySize(ifd0Entries) + valueBytes(ifd0Entries)
    let exifEnd = exifAt + (hasExif ? directorySize(exifEntries) + valueBytes(exifEntries) : 0)
    // A well-formed input keeps fewer bytes than it has, plus at most two a kept entry (an
    // alignment byte, an ASCII NUL); more means values shared by entries of a damaged file.
    let entryCount = ifd0Entries.count + exifEntries.count + interopEntries.count + gpsEntries.count
    let limit = tiff.count + 2 * entryCount + 8
    /// The layout with the MakerNote at `at`: where it, the Interoperability and GPS IFDs go.
    func layout(makerNoteAt at: Int) -> (makerNote: Int, interop: Int, gps: Int, size: Int) {
      let interopAt = makerNote.map { (at + $0.value.count + 1) & ~1 } ?? exifEnd
      let gpsAt = interopAt + (hasInterop ? directorySize(interopEntries) + valueBytes(interopEntries) : 0)
      return (at, interopAt, gpsAt, gpsAt + (hasGPS ? directorySize(gpsEntries) + valueBytes(gpsEntries) : 0))
    }
    // The MakerNote where it was when that lies past the Exif IFD's values (and the result
    // stays within the input's size), else right after them.
    var placed = layout(makerNoteAt: max(exifEnd, makerNoteWasAt ?? 0))
    if placed.size > limit { placed = layout(makerNoteAt: exifEnd) }
    let (makerNoteAt, interopAt, gpsAt, size) = placed
    guard size <= limit else { return nil }

    var out: [UInt8] = []
    out.reserveCapacity(size)
    func put16(_ v: Int) {
      if r.littleEndian { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] } else { out.appendUInt16BE(v) }
    }
    func put32(_ v: Int) {
      if r.littleEndian {
        out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
      } else {
        out.appendUInt32BE(v)
      }
    }
    out += r.littleEndian ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
    put32(ifd0At)
    func write(_ entries: [Entry], at start: Int) {
      precondition(out.count == start, "IFD laid out at \(start), written at \(out.count)")
      var valueAt = start + directorySize(entries)
      put16(entries.count)
      for e in entries {
        put16(e.tag)
        put16(e.type)
        put32(e.count)
        // The pointers are the entries added above: the rules keep no pointer tag.
        if e.tag == exifPointer {
          put32(exifAt)
        } else if e.tag == interopPointer {
          put32(interopAt)
        } else if e.tag == gpsPointer {
          put32(gpsAt)
        } else if e.value.count <= 4 {
          out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
        } else if e.tag == makerNoteTag, makerNote != nil {
          put32(makerNoteAt)
        } else {
          put32(valueAt)
          valueAt += (e.value.count + 1) & ~1
        }
      }
      put32(0)  // no next IFD: IFD1, the thumbnail, is not written
      for e in entries where e.value.count > 4 && !(e.tag == makerNoteTag && makerNote != nil) {
        out += e.value
        if e.value.count % 2 == 1 { out.append(0) }
      }
    }
    write(ifd0Entries, at: ifd0At)
    if hasExif { write(exifEntries, at: exifAt) }
    if let makerNote {
      out += [UInt8](repeating: 0, count: makerNoteAt - out.count)
      out += makerNote.value
      if out.count % 2 == 1 { out.append(0) }
    }
    if hasInterop { write(interopEntries, at: interopAt) }
    if hasGPS { write(gpsEntries, at: gpsAt) }
    precondition(out.count == size, "EXIF laid out as \(size) bytes, written as \(out.count)")
    // Each kept value holds no image signature, but neighbouring values (two rationals, say) can
    // make one between them: such an EXIF is dropped whole, so no render's EXIF shows an image's
    // start to a carving tool or to `photoedit audit`.
    return EmbeddedImage.isPresent(in: out) ? nil : out
  }
}
