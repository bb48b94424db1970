/// Joins baseline JPEGs of consecutive horizontal bands of one image into a single JPEG, with a
/// restart marker between bands, so that the bands can be compressed on all cores at once.
///
/// This is exact, not an approximation. A band whose height is a whole number of MCU rows is
/// compressed by libjpeg exactly as the same rows inside the whole image: chroma downsampling
/// (without smoothing) never looks across an MCU row, and edge padding happens only at the
/// image's right and bottom edges. A restart marker does what a band boundary does: it resets the
/// DC predictors and pads the entropy coder to a byte with 1-bits, as libjpeg does at the end of
/// an image. So the joined file decodes to the same pixels as one `tjCompress2` of the whole
/// image, and only its restart markers (two bytes per band) tell them apart.
enum JPEGBands {
  /// Joins `bands` (top to bottom) into one JPEG of `height` rows, or returns `nil` when they
  /// cannot be joined: not the baseline Huffman JPEGs this expects, already using restart markers,
  /// or differing in anything but their height (say, Huffman tables optimised per band because
  /// the environment set `TJ_OPTIMIZE`). The caller then compresses the whole image in one go.
  ///
  /// - Parameters:
  ///   - restartInterval: MCUs per band: every band but the last holds exactly this many.
  /// - Complexity: O(total size of the bands).
  static func join(_ bands: [[UInt8]], height: Int, restartInterval: Int) -> [UInt8]? {
    guard let first = bands.first, (1...65535).contains(height),
      (1...65535).contains(restartInterval)
    else { return nil }
    var layouts: [Layout] = []
    for band in bands {
      guard let layout = Layout(band) else { return nil }
      layouts.append(layout)
    }
    // Every band's header must be band 0's except for the frame's height.
    let reference = layouts[0].headerWithoutHeight(first)
    for (band, layout) in zip(bands, layouts).dropFirst() {
      guard layout.headerWithoutHeight(band) == reference else { return nil }
    }

    let head = layouts[0]
    var out: [UInt8] = []
    out.reserveCapacity(bands.reduce(0) { $0 + $1.count } + 6 + 2 * bands.count)
    out += first[0..<head.scanStart]
    out[head.frameHeightOffset] = UInt8(height >> 8)
    out[head.frameHeightOffset + 1] = UInt8(height & 0xFF)
    out += [0xFF, 0xDD, 0x00, 0x04, UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)]
    out += first[head.scanStart..<head.dataStart]
    for (index, (band, layout)) in zip(bands, layouts).enumerated() {
      if index > 0 { out += [0xFF, 0xD0 + UInt8((index - 1) & 7)] }
      out += band[layout.dataStart..<(band.count - 2)]
    }
    out += [0xFF, 0xD9]
    return out
  }

  /// Where a band's frame header, scan header and entropy-coded data are.
  private struct Layout {
    /// The offset of the SOF0/SOF1 segment's 16-bit height.
    var frameHeightOffset: Int
    /// The offset of the SOS marker, and of the first byte after the SOS segment.
    var scanStart: Int, dataStart: Int

    /// Walks the segments from SOI to the first SOS. The data must run to an EOI at the very end.
    init?(_ bytes: [UInt8]) {
      guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8,
        bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9
      else { return nil }
      var offset = 2
      var frameHeightOffset: Int?
      while offset + 4 <= bytes.count {
        guard bytes[offset] == 0xFF else { return nil }
        let marker = bytes[offset + 1]
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        let next = offset + 2 + length
        guard length >= 2, next <= bytes.count else { return nil }
        switch marker {
        case 0xC0, 0xC1:  // baseline or extended sequential Huffman
          guard frameHeightOffset == nil, length >= 8 else { return nil }
          frameHeightOffset = offset + 5
        case 0xC2...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
          return nil  // progressive, lossless or arithmetic: bands do not join this way
        case 0xDD:
          return nil  // restart markers already in use
        case 0xDA:
          // The entropy-coded data runs from the end of the SOS segment to the final EOI.
          guard let frameHeightOffset, next <= bytes.count - 2 else { return nil }
          self.frameHeightOffset = frameHeightOffset
          scanStart = offset
          dataStart = next
          return
        default:
          break
        }
        offset = next
      }
      return nil
    }

    /// The header bytes (SOI through SOS) with the frame's height zeroed.
    func headerWithoutHeight(_ bytes: [UInt8]) -> [UInt8] {
      var header = Array(bytes[0..<dataStart])
      header[frameHeightOffset] = 0
      header[frameHeightOffset + 1] = 0
      return header
    }
  }
}

/// How an image is cut into horizontal bands of whole MCU rows for a banded JPEG encode, and how
/// the bands' JPEGs are joined again.
struct BandPlan: Sendable {
  let height: Int
  /// MCUs in a row, MCU rows in a band (every band but the last), and rows in a band.
  let mcusPerRow: Int, mcuRowsPerBand: Int, bandHeight: Int
  let count: Int

  /// About `bands` bands; a restart interval counts MCUs in 16 bits, so very wide images get more.
  init(width: Int, height: Int, subsampling: ChromaSubsampling, bands: Int) {
    let mcu = JPEGCodec.mcuSize(subsampling)
    let mcuRows = (height + mcu.height - 1) / mcu.height
    let wanted = max(1, bands)
    self.init(
      width: width, height: height, subsampling: subsampling,
      mcuRowsPerBand: (mcuRows + wanted - 1) / wanted)
  }

  /// Rows per band in `standard`: small enough that a band-by-band render (`JPEGSink`) starts
  /// compressing early, that its last band after the decode is short and that the planner's
  /// window is small; large enough that each band's compressor start-up (tables and headers) does
  /// not matter.
  static let standardRows = 128

  /// The bands every JPEG is written in: 128 rows (fewer for the widest images), so that a JPEG's
  /// bytes depend on its pixels and settings only, never on the machine or the path.
  static func standard(width: Int, height: Int, subsampling: ChromaSubsampling) -> BandPlan {
    let mcu = JPEGCodec.mcuSize(subsampling)
    return BandPlan(
      width: width, height: height, subsampling: subsampling, mcuRowsPerBand: standardRows / mcu.height)
  }

  private init(width: Int, height: Int, subsampling: ChromaSubsampling, mcuRowsPerBand wanted: Int) {
    let mcu = JPEGCodec.mcuSize(subsampling)
    self.height = height
    mcusPerRow = (width + mcu.width - 1) / mcu.width
    mcuRowsPerBand = max(1, min(wanted, 65535 / mcusPerRow))
    bandHeight = mcuRowsPerBand * mcu.height
    count = (height + bandHeight - 1) / bandHeight
  }

  /// The rows of band `k`.
  func rows(_ k: Int) -> Range<Int> { (k * bandHeight)..<min(height, (k + 1) * bandHeight) }

  /// The bands' JPEGs as one; when they cannot be joined (see `JPEGBands.join`), `orElse`.
  func join(_ bands: [[UInt8]], orElse whole: () throws(CodecError) -> [UInt8]) throws(CodecError) -> [UInt8]
  {
    if bands.count == 1 { return bands[0] }
    if let joined = JPEGBands.join(bands, height: height, restartInterval: mcuRowsPerBand * mcusPerRow) {
      return joined
    }
    return try whole()
  }
}

/// Each band's compressed JPEG or error, written by the workers, each to its own slot.
final class BandResults: @unchecked Sendable {
  private let slots: UnsafeMutableBufferPointer<Result<[UInt8], CodecError>?>

  init(_ count: Int) {
    slots = .allocate(capacity: count)
    slots.initialize(repeating: nil)
  }

  deinit { slots.deinitialize().deallocate() }

  func set(_ k: Int, _ result: Result<[UInt8], CodecError>) { slots[k] = result }

  /// Every band's JPEG, in order; the first failure, if any band failed.
  func all() throws(CodecError) -> [[UInt8]] {
    var bands: [[UInt8]] = []
    for slot in slots {
      guard let slot else { throw .encodingFailed(.jpeg, "a band was not encoded") }
      bands.append(try slot.get())
    }
    return bands
  }
}
