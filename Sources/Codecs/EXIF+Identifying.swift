/// EXIF without what identifies a person, a device or a place (`--strip-identifying`).
///
/// The structure is rebuilt rather than patched: only the tags of a documented list are copied
/// (docs/codecs.md, "Publishing: identifying metadata"), each only with the TIFF types the EXIF
/// specification gives it, into a new TIFF structure with fresh offsets. So nothing that is not
/// on the list survives: not the GPS IFD, not a maker note, not the private tags a camera or a
/// program adds (which may hold anything), and not the bytes between the entries that no entry
/// points to (where an editor may have left a previous value).
extension EXIF {
  /// What a kept tag may be: its TIFF types, and its count when the specification fixes it.
  struct TagRule: Sendable {
    var types: Set<Int>
    var count: Int? = nil
  }

  private static let ascii = TagRule(types: [2])
  private static let short = TagRule(types: [3])
  private static let long = TagRule(types: [4])
  private static let shortOrLong = TagRule(types: [3, 4])
  private static let rational = TagRule(types: [5])
  private static let signedRational = TagRule(types: [10])
  private static let undefined = TagRule(types: [7])

  /// The Exif IFD's pointer (in IFD0), the GPS IFD's (in IFD0) and the Interoperability IFD's
  /// (in the Exif IFD).
  static let exifPointer = 0x8769, gpsPointer = 0x8825, interopPointer = 0xA005
  static let orientationTag = 0x0112

  /// IFD0's kept tags: the image's structure and colour, the camera's make and model, the
  /// software and the date. Dropped among others: ImageDescription 0x010E, DocumentName 0x010D
  /// (free text), Artist 0x013B, Copyright 0x8298 (names a person), HostComputer 0x013C (a
  /// computer's name), the GPS pointer 0x8825, XPTitle...XPSubject 0x9C9B-0x9C9F (Windows' title,
  /// comment, author, keywords, subject), XMP 0x02BC, IPTC 0x83BB and every private tag. The
  /// orientation 0x0112 is written as 1.
  static let keptInIFD0: [Int: TagRule] = [
    0x0100: shortOrLong, 0x0101: shortOrLong,  // ImageWidth, ImageLength
    0x0102: short, 0x0103: short, 0x0106: short,  // BitsPerSample, Compression, Photometric
    0x010F: ascii, 0x0110: ascii,  // Make, Model
    0x0115: short, 0x011A: rational, 0x011B: rational, 0x011C: short,  // samples, resolution
    0x0128: short, 0x012D: short,  // ResolutionUnit, TransferFunction
    0x0131: ascii, 0x0132: ascii,  // Software, DateTime
    0x013E: rational, 0x013F: rational,  // WhitePoint, PrimaryChromaticities
    0x0211: rational, 0x0212: short, 0x0213: short, 0x0214: rational,  // YCbCr, ReferenceBlackWhite
  ]

  /// The Exif IFD's kept tags: exposure, lens and flash settings, colour, the dates and times of
  /// capture (the local clock time: dates are kept), lens make, model and specification.
  /// Dropped among others: the time-zone offsets OffsetTime* 0x9010-0x9012 (they narrow where the
  /// photo was taken), MakerNote 0x927C, UserComment 0x9286, RelatedSoundFile 0xA004,
  /// ImageUniqueID 0xA420, CameraOwnerName 0xA430, BodySerialNumber 0xA431, LensSerialNumber
  /// 0xA435, EXIF 3.0's ImageTitle, Photographer, ImageEditor and the software names
  /// 0xA436-0xA43C, Pressure 0x9402 and WaterDepth 0x9403 (they give an altitude or depth),
  /// DeviceSettingDescription 0xA40B (a camera's own structure), Microsoft's Padding 0xEA1C and
  /// OffsetSchema 0xEA1D, and every private tag.
  static let keptInExif: [Int: TagRule] = [
    0x829A: rational, 0x829D: rational, 0x8822: short, 0x8824: ascii,  // exposure time, f-number
    0x8827: short, 0x8828: undefined, 0x8830: short,  // ISO, OECF, SensitivityType
    0x8831: long, 0x8832: long, 0x8833: long, 0x8834: long, 0x8835: long,  // ISO variants
    0x9000: TagRule(types: [7], count: 4),  // ExifVersion
    0x9003: ascii, 0x9004: ascii,  // DateTimeOriginal, DateTimeDigitized
    0x9101: TagRule(types: [7], count: 4), 0x9102: rational,  // ComponentsConfiguration, bits
    0x9201: signedRational, 0x9202: rational, 0x9203: signedRational, 0x9204: signedRational,
    0x9205: rational, 0x9206: rational, 0x9207: short, 0x9208: short, 0x9209: short,
    0x920A: rational, 0x9214: short,  // FocalLength, SubjectArea
    0x9290: ascii, 0x9291: ascii, 0x9292: ascii,  // SubSecTime*
    0x9400: signedRational, 0x9401: rational,  // Temperature, Humidity
    0x9404: signedRational, 0x9405: signedRational,  // Acceleration, CameraElevationAngle
    0xA000: TagRule(types: [7], count: 4), 0xA001: short,  // FlashpixVersion, ColorSpace
    0xA002: shortOrLong, 0xA003: shortOrLong,  // PixelXDimension, PixelYDimension
    0xA20B: rational, 0xA20C: undefined, 0xA20E: rational, 0xA20F: rational, 0xA210: short,
    0xA214: short, 0xA215: rational, 0xA217: short,  // SubjectLocation, ExposureIndex, sensing
    0xA300: undefined, 0xA301: undefined, 0xA302: undefined,  // FileSource, SceneType, CFA
    0xA401: short, 0xA402: short, 0xA403: short, 0xA404: rational, 0xA405: short,
    0xA406: short, 0xA407: short, 0xA408: short, 0xA409: short, 0xA40A: short, 0xA40C: short,
    0xA432: rational, 0xA433: ascii, 0xA434: ascii,  // LensSpecification, LensMake, LensModel
    0xA460: short, 0xA461: short, 0xA462: undefined,  // composite image
    0xA500: rational,  // Gamma
  ]

  /// The Interoperability IFD's kept tags. Its tag numbers are the GPS IFD's too, so the
  /// counts are fixed: a GPS IFD pointed at as the Interoperability IFD keeps nothing.
  static let keptInInterop: [Int: TagRule] = [
    0x0001: TagRule(types: [2], count: 4), 0x0002: TagRule(types: [7], count: 4),
    0x1000: ascii, 0x1001: shortOrLong, 0x1002: shortOrLong,
  ]

  /// One entry to write: its tag, type and count, and its value's bytes (in the structure's
  /// byte order, `count` values of the type's size).
  private struct Entry {
    var tag: Int, type: Int, count: Int
    var value: [UInt8]
  }

  /// The EXIF without identifying tags: IFD0, the Exif IFD and the Interoperability IFD with
  /// only the tags of `keptInIFD0`, `keptInExif` and `keptInInterop` (each with an allowed
  /// type and count, the first of a tag only), an orientation of 1, no GPS IFD and no IFD1 (no
  /// thumbnail). An ASCII value ends at its first NUL (what follows it is dropped).
  ///
  /// The result is a new TIFF structure in the input's byte order: the header, IFD0, its
  /// values, the Exif IFD, its values, the Interoperability IFD, its values; entries in
  /// ascending tag order, every directory and out-of-line value at an even offset (a zero byte
  /// pads), inline values left-justified and zero-padded. Applying it twice gives the same bytes.
  ///
  /// - Returns: nil when IFD0 cannot be read, when nothing is left to keep, or when the result
  ///   would be larger than the input allows (entries of a damaged file that share one value):
  ///   the EXIF is then dropped.
  /// - Complexity: O(n log n) in the entries, plus O(size).
  static func withoutIdentifying(_ tiff: [UInt8]) -> [UInt8]? {
    guard let r = Reader(tiff), let ifd0 = r.ifd0, let entries0 = r.entries(at: ifd0) else {
      return nil
    }
    /// The first value of a pointer entry (LONG or IFD) whose count is 1.
    func pointer(_ tag: Int, in entries: [(tag: Int, type: Int, count: Int, entry: Int)]) -> Int? {
      guard let e = entries.first(where: { $0.tag == tag }), e.type == 4 || e.type == 13, e.count == 1
      else { return nil }
      return r.u32(e.entry + 8)
    }
    func kept(_ entries: [(tag: Int, type: Int, count: Int, entry: Int)], _ rules: [Int: TagRule]) -> [Entry]
    {
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
          // that stripping the result again keeps exactly what it holds.
          if let fixed = rule.count, fixed != count { continue }
        }
        out.append(Entry(tag: e.tag, type: e.type, count: count, value: value))
      }
      return out.sorted { $0.tag < $1.tag }
    }

    var ifd0Entries = kept(entries0, keptInIFD0)
    if entries0.contains(where: { $0.tag == orientationTag }) {
      let one: [UInt8] = r.littleEndian ? [1, 0] : [0, 1]
      ifd0Entries.append(Entry(tag: orientationTag, type: 3, count: 1, value: one))
      ifd0Entries.sort { $0.tag < $1.tag }
    }
    var exifEntries: [Entry] = []
    var interopEntries: [Entry] = []
    if let offset = pointer(exifPointer, in: entries0), let entries = r.entries(at: offset) {
      exifEntries = kept(entries, keptInExif)
      if let offset = pointer(interopPointer, in: entries), let entries = r.entries(at: offset) {
        interopEntries = kept(entries, keptInInterop)
      }
    }
    guard !ifd0Entries.isEmpty || !exifEntries.isEmpty else { return nil }

    // Lay the structure out: each IFD's size depends only on its own entries, so the offsets
    // are known before anything is written.
    func valueBytes(_ entries: [Entry]) -> Int {
      entries.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
    }
    let hasInterop = !interopEntries.isEmpty
    let hasExif = !exifEntries.isEmpty || hasInterop
    if hasInterop {
      exifEntries.append(Entry(tag: interopPointer, type: 4, count: 1, value: [0, 0, 0, 0]))
      exifEntries.sort { $0.tag < $1.tag }
    }
    if hasExif {
      ifd0Entries.append(Entry(tag: exifPointer, type: 4, count: 1, value: [0, 0, 0, 0]))
      ifd0Entries.sort { $0.tag < $1.tag }
    }
    func directorySize(_ entries: [Entry]) -> Int { 2 + entries.count * 12 + 4 }
    let ifd0At = 8
    let exifAt = ifd0At + directorySize(ifd0Entries) + valueBytes(ifd0Entries)
    let interopAt = exifAt + (hasExif ? directorySize(exifEntries) + valueBytes(exifEntries) : 0)
    let size = interopAt + (hasInterop ? directorySize(interopEntries) + valueBytes(interopEntries) : 0)
    // A well-formed input keeps fewer bytes than it has, plus at most two a kept entry (an
    // alignment byte, an ASCII NUL); more means values shared by entries of a damaged file.
    guard size <= tiff.count + 2 * (ifd0Entries.count + exifEntries.count + interopEntries.count) + 8 else {
      return nil
    }

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
        } else if e.value.count <= 4 {
          out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
        } else {
          put32(valueAt)
          valueAt += (e.value.count + 1) & ~1
        }
      }
      put32(0)  // no next IFD: IFD1, the thumbnail, is not written
      for e in entries where e.value.count > 4 {
        out += e.value
        if e.value.count % 2 == 1 { out.append(0) }
      }
    }
    write(ifd0Entries, at: ifd0At)
    if hasExif { write(exifEntries, at: exifAt) }
    if hasInterop { write(interopEntries, at: interopAt) }
    precondition(out.count == size, "EXIF laid out as \(size) bytes, written as \(out.count)")
    return out
  }
}
