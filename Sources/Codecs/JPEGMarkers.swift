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

  /// The metadata a render carries: EXIF without thumbnail (orientation 1), ICC, XMP
  /// (orientation 1), IPTC without Photoshop's thumbnails, comments.
  var metadata: ImageMetadata {
    var metadata = ImageMetadata()
    metadata.exif = exif.flatMap(EXIF.sanitized)
    metadata.icc = icc
    metadata.xmp = xmp.map(XMP.withOrientationOne)
    metadata.photoshop = photoshop.map(PhotoshopResources.removingThumbnails)
    if metadata.photoshop?.isEmpty == true { metadata.photoshop = nil }
    metadata.comments = comments
    return metadata
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
      if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
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

  /// Checks that the entropy-coded data after the first scan reaches an end-of-image marker,
  /// walking every segment and scan in between. libjpeg-turbo only warns about a cut file.
  ///
  /// - Throws: `.truncated(.jpeg)` when the file ends before its end-of-image marker.
  ///
  /// - Complexity: O(file size), with `memchr` over the entropy-coded bytes.
  static func checkComplete(_ bytes: [UInt8], from scanOffset: Int) throws(CodecError) {
    let found: Bool = bytes.withUnsafeBufferPointer { p in
      let n = p.count
      var i = scanOffset  // at the 0xFF of a marker
      while i + 1 < n {
        guard p[i] == 0xFF else { return false }
        var m = i + 1
        while m < n, p[m] == 0xFF { m += 1 }
        guard m < n else { return false }
        let marker = p[m]
        if marker == 0xD9 { return true }
        if marker == 0x01 || (0xD0...0xD7).contains(marker) {
          var j = m + 1
          while j < n, p[j] != 0xFF { j += 1 }
          i = j
          continue
        }
        guard m + 2 < n else { return false }
        let length = Int(p[m + 1]) << 8 | Int(p[m + 2])
        var j = m + 1 + length
        guard length >= 2, j <= n else { return false }
        if marker == 0xDA {
          // Entropy-coded data: stop at the first 0xFF that starts a marker (not 00, RSTn or fill).
          while true {
            guard j < n, let hit = memchr(p.baseAddress! + j, 0xFF, n - j) else { return false }
            j = p.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var k = j + 1
            while k < n, p[k] == 0xFF { k += 1 }
            guard k < n else { return false }
            let next = p[k]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
              j = k + 1
              continue
            }
            j = k - 1
            break
          }
        } else {
          // Between segments, skip stray bytes up to the next marker as libjpeg does.
          while j < n, p[j] != 0xFF { j += 1 }
        }
        i = j
      }
      return false
    }
    if found { return }
    // The walk lost its way: either the file is cut, or damaged data looked like a marker. A
    // cut file has no end-of-image marker after its first scan at all (0xFF in entropy-coded
    // data is always followed by 0x00 or RSTn); a damaged one is left to libjpeg to describe.
    let hasEnd: Bool = bytes.withUnsafeBufferPointer { p in
      var j = scanOffset
      while j + 1 < p.count, let hit = memchr(p.baseAddress! + j, 0xFF, p.count - j - 1) {
        j = p.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        if p[j + 1] == 0xD9 { return true }
        j += 1
      }
      return false
    }
    if !hasEnd { throw .truncated(.jpeg) }
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
