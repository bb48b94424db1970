#if canImport(Glibc)
  import Glibc
#endif

/// What a JPEG's marker segments say, read in Swift (TurboJPEG 2.1 exposes none of it).
struct JPEGHeader {
  /// Sample precision in bits (8 for the JPEGs libjpeg-turbo decodes here; 12 or 16 otherwise).
  var precision = 0
  /// The frame marker (0xC0 baseline, 0xC2 progressive, 0xC9 arithmetic, ...).
  var frameMarker: UInt8 = 0
  /// Stored size in pixels, before orientation.
  var width = 0, height = 0
  /// (id, horizontal sampling, vertical sampling) per component.
  var components: [(id: UInt8, h: Int, v: Int)] = []
  /// The Adobe APP14 transform byte (0 unknown/CMYK/RGB, 1 YCbCr, 2 YCCK), when present.
  var adobeTransform: Int?
  /// EXIF orientation 1...8 (1 when absent or out of range).
  var orientation = 1
  /// The raw TIFF structure of the first EXIF APP1 (after "Exif\0\0").
  var exif: [UInt8]?
  var xmp: [UInt8]?
  var iccChunks: [(sequence: Int, data: [UInt8])] = []
  var photoshop: [UInt8]?
  var comments: [[UInt8]] = []
  /// Where the first SOS segment starts.
  var firstScanOffset = 0
  /// How many components the first scan holds (fewer than the frame's: one scan per component).
  var firstScanComponents = 0
  /// The quantisation tables defined before the first scan, by destination (zigzag order).
  var quantTables: [Int: [Int]] = [:]
  /// The quality the file was saved at, estimated from its tables (`JPEGQuality`).
  var quality: Int? { JPEGQuality.estimate(tables: quantTables) }

  /// True when libjpeg keeps every DCT coefficient of the image while it decodes: a progressive
  /// file, or one whose components come in separate scans (libjpeg's `has_multiple_scans`).
  var holdsCoefficients: Bool {
    [0xC2, 0xC6, 0xCA, 0xCE].contains(frameMarker) || firstScanComponents < components.count
  }

  /// The bytes of libjpeg's whole-image coefficient buffer: per component, its blocks (8x8 pixels
  /// of that component, padded to whole MCUs) of 64 coefficients of 2 bytes.
  var coefficientBytes: Int {
    let hmax = components.map { Self.samplingFactor($0.h) }.max() ?? 1
    let vmax = components.map { Self.samplingFactor($0.v) }.max() ?? 1
    return components.reduce(0) { total, c in
      let (h, v) = (Self.samplingFactor(c.h), Self.samplingFactor(c.v))
      let across = roundUp((width * h + 8 * hmax - 1) / (8 * hmax), to: h)
      let down = roundUp((height * v + 8 * vmax - 1) / (8 * vmax), to: v)
      return total + across * down * 128
    }
  }

  /// The sample rows libjpeg works on: about three MCU rows of every component, and the
  /// converted output rows of one.
  var rowBufferBytes: Int {
    let vmax = components.map { Self.samplingFactor($0.v) }.max() ?? 1
    let padded = roundUp(width, to: 32)
    return components.count * padded * 8 * vmax * 3 + padded * 4 * 8 * vmax
  }

  /// A sampling factor as libjpeg accepts it (1...4; it refuses a file with any other).
  private static func samplingFactor(_ value: Int) -> Int { min(max(value, 1), 4) }

  /// The metadata a render carries (`ImageMetadata.rendered`, with the MakerNote): EXIF without
  /// thumbnail (orientation 1), ICC, XMP (orientation 1), IPTC, comments; only what the
  /// allow-lists keep.
  var metadata: ImageMetadata {
    var metadata = ImageMetadata()
    metadata.exif = exif
    metadata.icc = icc
    metadata.xmp = xmp
    metadata.photoshop = photoshop
    metadata.comments = comments
    return metadata.rendered(keepingMakerNote: true)
  }

  /// The ICC profile reassembled from its APP2 chunks in sequence order.
  var icc: [UInt8]? {
    guard !iccChunks.isEmpty else { return nil }
    return iccChunks.sorted { $0.sequence < $1.sequence }.flatMap(\.data)
  }

  /// The chroma subsampling, when it is one photoedit writes.
  var subsampling: ChromaSubsampling? {
    guard components.count == 3, components[1].h == 1, components[1].v == 1,
      components[2].h == 1, components[2].v == 1
    else { return nil }
    switch (components[0].h, components[0].v) {
    case (1, 1): return .s444
    case (2, 1): return .s422
    case (2, 2): return .s420
    default: return nil
    }
  }
}

/// Reads and writes JPEG marker segments.
enum JPEGMarkers {
  static let exifSignature = "Exif\0\0".asciiBytes
  static let xmpSignature = "http://ns.adobe.com/xap/1.0/\0".asciiBytes
  static let iccSignature = "ICC_PROFILE\0".asciiBytes
  static let photoshopSignature = "Photoshop 3.0\0".asciiBytes
  static let adobeSignature = "Adobe".asciiBytes

  /// Parses the segments up to the first scan.
  ///
  /// - Parameter metadata: also collect EXIF, XMP, ICC, Photoshop and comments (orientation is
  ///   always read).
  /// - Throws: `.notAnImage` without SOI, `.truncated` when the header is cut, `.corruptData` for
  ///   a bad segment length or frame header, `.unsupported` for 12-bit, lossless or hierarchical.
  static func parseHeader(_ bytes: [UInt8], metadata: Bool) throws(CodecError) -> JPEGHeader {
    guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF else {
      throw .notAnImage
    }
    var header = JPEGHeader()
    var sawFrame = false
    var i = 2
    while true {
      // Find the next marker, skipping fill bytes and any stray bytes.
      while i < bytes.count, bytes[i] != 0xFF { i += 1 }
      while i < bytes.count, bytes[i] == 0xFF { i += 1 }
      guard i < bytes.count else { throw .truncated(.jpeg) }
      let marker = bytes[i]
      i += 1
      // FF 00 is not a marker (libjpeg skips it as stray bytes); SOI, TEM and RSTn stand alone.
      if marker == 0x00 || marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
        continue
      }
      if marker == 0xD9 { throw .corruptData(.jpeg, "no image data before the end marker") }
      guard i + 2 <= bytes.count else { throw .truncated(.jpeg) }
      let length = bytes.uint16BE(at: i)
      guard length >= 2 else { throw .corruptData(.jpeg, "bad segment length") }
      let start = i + 2
      let end = i + length
      guard end <= bytes.count else { throw .truncated(.jpeg) }
      // A signature counts only when the whole of it lies inside the segment: a segment shorter
      // than its signature (`FF E1 00 02` then `Exif\0\0`) is an empty segment of another kind.
      func signed(_ signature: [UInt8]) -> Bool {
        end - start >= signature.count && bytes.hasBytes(signature, at: start)
      }
      switch marker {
      case 0xDA:
        guard sawFrame else { throw .corruptData(.jpeg, "scan before the frame header") }
        header.firstScanOffset = i - 2
        header.firstScanComponents = end > start ? Int(bytes[start]) : 0
        return header
      case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
        guard !sawFrame else { throw .corruptData(.jpeg, "two frame headers") }
        sawFrame = true
        try parseFrame(bytes, start, end, marker, into: &header)
      case 0xE1 where header.exif == nil && signed(exifSignature):
        let tiff = Array(bytes[(start + exifSignature.count)..<end])
        header.orientation = EXIF.orientation(in: tiff) ?? 1
        if metadata { header.exif = tiff }
      case 0xE1 where metadata && header.xmp == nil && signed(xmpSignature):
        header.xmp = Array(bytes[(start + xmpSignature.count)..<end])
      case 0xE2 where metadata && signed(iccSignature) && end - start >= iccSignature.count + 2:
        let sequence = Int(bytes[start + 12])
        header.iccChunks.append((sequence, Array(bytes[(start + 14)..<end])))
      case 0xED where metadata && signed(photoshopSignature):
        // Appended in place: concatenating copies would cost O(n²) over many segments.
        if header.photoshop == nil { header.photoshop = [] }
        header.photoshop!.append(contentsOf: bytes[(start + photoshopSignature.count)..<end])
      case 0xEE where signed(adobeSignature) && end - start >= 12:
        header.adobeTransform = Int(bytes[start + 11])
      case 0xFE where metadata:
        header.comments.append(Array(bytes[start..<end]))
      case 0xDB:
        header.quantTables.merge(JPEGQuality.tables(inDQT: bytes[start..<end]) ?? [:]) { $1 }
      default:
        break
      }
      i = end
    }
  }

  private static func parseFrame(
    _ bytes: [UInt8], _ start: Int, _ end: Int, _ marker: UInt8, into header: inout JPEGHeader
  ) throws(CodecError) {
    guard end - start >= 6 else { throw .corruptData(.jpeg, "short frame header") }
    header.frameMarker = marker
    header.precision = Int(bytes[start])
    header.height = bytes.uint16BE(at: start + 1)
    header.width = bytes.uint16BE(at: start + 3)
    let count = Int(bytes[start + 5])
    guard count >= 1, end - start >= 6 + count * 3 else {
      throw .corruptData(.jpeg, "bad frame header")
    }
    for c in 0..<count {
      let o = start + 6 + c * 3
      header.components.append((bytes[o], Int(bytes[o + 1] >> 4), Int(bytes[o + 1] & 15)))
    }
    switch marker {
    case 0xC3, 0xC7, 0xCB, 0xCF: throw .unsupported("lossless JPEG")
    case 0xC5, 0xC6, 0xCD, 0xCE: throw .unsupported("hierarchical JPEG")
    default: break
    }
    if header.precision != 8 {
      throw .unsupported("\(header.precision)-bit JPEG (only 8-bit samples are supported)")
    }
    guard header.width > 0, header.height > 0 else {
      throw .unsupported("JPEG whose height is defined later in the file (DNL)")
    }
    guard count == 1 || count == 3 || count == 4 else {
      throw .unsupported("JPEG with \(count) colour components")
    }
  }

  /// The most scans a JPEG may have. libjpeg's simple progression writes 10 for colour, 6 for
  /// grey and 18 for CMYK (`cjpeg -progressive`, `jpegtran -progressive`); cameras, Pillow and
  /// libjpeg-turbo's test files have 10 or fewer; jpegtran and cjpeg accept scan scripts of at
  /// most 100 scans. Every scan of a progressive file is another pass over the image's blocks
  /// (about 2.5 ms a scan at 16 megapixels here), so files with hundreds of scans cost seconds.
  static let maxScans = 100

  /// What a walk from the first scan to the end-of-image marker found.
  struct ScanWalk: Equatable {
    /// The scans (SOS markers) seen, the first one included.
    var scans = 0
    /// True when the walk reached an end-of-image marker after the last scan.
    var reachesEnd = false
    /// Where the bytes after that end-of-image marker start, when it was reached.
    var end: Int? = nil
  }

  /// Walks every segment and scan after the first scan's SOS, the way libjpeg's marker reader
  /// does: between segments it skips stray bytes (and `FF 00`) up to the next marker; an
  /// APPn-like segment whose length is below 2 holds nothing (libjpeg's `skip_variable` reads
  /// on from there); a marker without a length (RSTn, TEM, and the undefined codes 02...BF,
  /// which libjpeg discards when it resynchronises) is skipped alone. So every SOS that libjpeg
  /// can reach is counted: the count is an upper bound of the scans it would decode.
  ///
  /// - Complexity: O(file size), with `memchr` over the entropy-coded bytes.
  static func walkScans(_ bytes: [UInt8], from scanOffset: Int) -> ScanWalk {
    bytes.withUnsafeBufferPointer { p in
      var walk = ScanWalk()
      let n = p.count
      guard let base = p.baseAddress, scanOffset >= 0 else { return walk }
      /// The next 0xFF at or after `j`, or n.
      func nextFF(_ j: Int) -> Int {
        guard j < n, let hit = memchr(base + j, 0xFF, n - j) else { return n }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
      }
      var i = nextFF(scanOffset)
      while i + 1 < n {
        var m = i + 1
        while m < n, p[m] == 0xFF { m += 1 }
        guard m < n else { return walk }
        let marker = p[m]
        if marker == 0xD9 {
          walk.reachesEnd = true
          walk.end = m + 1
          return walk
        }
        if marker < 0xC0 || marker == 0xD8 || (0xD0...0xD7).contains(marker) {
          i = nextFF(m + 1)
          continue
        }
        guard m + 2 < n else { return walk }
        let length = max(2, Int(p[m + 1]) << 8 | Int(p[m + 2]))
        var j = m + 1 + length
        // A segment that runs past the end: libjpeg stops there (it inserts an end marker).
        guard j <= n else { return walk }
        guard marker == 0xDA else {
          i = nextFF(j)
          continue
        }
        walk.scans += 1
        // Entropy-coded data: up to the first 0xFF that starts a marker (not 00, RSTn or fill).
        while true {
          j = nextFF(j)
          var k = j + 1
          while k < n, p[k] == 0xFF { k += 1 }
          guard k < n else { return walk }
          if p[k] == 0x00 || (0xD0...0xD7).contains(p[k]) {
            j = k + 1
            continue
          }
          i = k - 1
          break
        }
      }
      return walk
    }
  }

  /// Checks that the entropy-coded data after the first scan reaches an end-of-image marker,
  /// walking every segment and scan in between (`walkScans`), and returns the number of scans.
  /// libjpeg-turbo only warns about a cut file.
  ///
  /// - Throws: `.truncated(.jpeg)` when the file ends before its end-of-image marker.
  ///
  /// - Complexity: O(file size), with `memchr` over the entropy-coded bytes.
  @discardableResult
  static func checkComplete(_ bytes: [UInt8], from scanOffset: Int) throws(CodecError) -> Int {
    let walk = walkScans(bytes, from: scanOffset)
    if walk.reachesEnd { return walk.scans }
    // The walk lost its way: either the file is cut, or damaged data looked like a marker. A
    // cut file has no end-of-image marker after its first scan at all (0xFF in entropy-coded
    // data is always followed by 0x00 or RSTn); a damaged one is left to libjpeg to describe.
    let hasEnd: Bool = bytes.withUnsafeBufferPointer { p in
      var j = max(0, scanOffset)
      while j + 1 < p.count, let hit = memchr(p.baseAddress! + j, 0xFF, p.count - j - 1) {
        j = p.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        if p[j + 1] == 0xD9 { return true }
        j += 1
      }
      return false
    }
    if !hasEnd { throw .truncated(.jpeg) }
    return walk.scans
  }

  /// The marker segments that carry `metadata` into a JPEG, in file order: EXIF (APP1), XMP
  /// (APP1), ICC (APP2, split into as many chunks as needed), Photoshop/IPTC (APP13), comments.
  /// A part that cannot fit its segments (EXIF or XMP over 64 KB) is left out.
  static func segments(for metadata: ImageMetadata) -> [UInt8] {
    var out: [UInt8] = []
    func segment(_ marker: UInt8, _ parts: [UInt8]...) {
      let length = parts.reduce(2) { $0 + $1.count }
      guard length <= 0xFFFF else { return }
      out.append(0xFF)
      out.append(marker)
      out.appendUInt16BE(length)
      for part in parts { out += part }
    }
    if let exif = metadata.exif, !exif.isEmpty { segment(0xE1, exifSignature, exif) }
    if let xmp = metadata.xmp, !xmp.isEmpty { segment(0xE1, xmpSignature, xmp) }
    if let icc = metadata.icc, !icc.isEmpty {
      let chunk = 0xFFFF - 2 - 14
      let count = (icc.count + chunk - 1) / chunk
      if count <= 255 {
        for k in 0..<count {
          let part = Array(icc[(k * chunk)..<min(icc.count, (k + 1) * chunk)])
          segment(0xE2, iccSignature, [UInt8(k + 1), UInt8(count)], part)
        }
      }
    }
    if let photoshop = metadata.photoshop, !photoshop.isEmpty {
      let chunk = 0xFFFF - 2 - photoshopSignature.count
      var k = 0
      while k < photoshop.count {
        segment(0xED, photoshopSignature, Array(photoshop[k..<min(photoshop.count, k + chunk)]))
        k += chunk
      }
    }
    for comment in metadata.comments where !comment.isEmpty { segment(0xFE, comment) }
    return out
  }
}
