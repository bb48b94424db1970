/// The limits a decode is checked against from the header, before any pixel memory is
/// allocated: pixels, rows (PNG), scans (JPEG, see `JPEGMarkers.maxScans`) and memory.
extension ImageCodec {
  /// Each PNG row costs libpng about as much as this many pixels (a call, a filter and the
  /// transforms per row): a 1x10,000,000 PNG takes as long to decode as a 3162x3162 one
  /// (measured here). So the pixel limit counts every row as at least this wide.
  static let rowCostInPixels = 64

  /// The memory, in bytes, that decoding the file `info` describes needs: the RGBA frame (at
  /// the DCT scale `options.minimumLongestSide` asks for, for JPEG), a second frame while an
  /// EXIF orientation other than 1 is applied, libjpeg's whole-image coefficient buffer for
  /// progressive and multi-scan JPEGs (2 bytes per coefficient, 64 per block of each
  /// component), the decoder's working rows and TurboJPEG's row pointers.
  ///
  /// It is what `decode` checks against `options.maxMemoryBytes` before allocating anything.
  /// Metadata is not in it: a JPEG's is its own bytes, and a PNG's inflated text and profile
  /// are held to `PNGCodec.maxInflatedBytes` (64 MB) in all.
  ///
  ///     let info = try ImageCodec.readInfo(bytes)
  ///     if ImageCodec.decodeMemoryEstimate(info) + tables > budget { ... }
  public static func decodeMemoryEstimate(_ info: ImageInfo, options: DecodeOptions = DecodeOptions())
    -> Int
  {
    let (width, height) = scaledSize(info, options)
    let frame = saturating(width, height, 4)
    var total = frame
    if info.orientation != 1 { total = saturating(total, plus: frame) }
    if info.decoderBuffers.holdsCoefficients {
      total = saturating(total, plus: info.decoderBuffers.coefficientBytes)
    }
    total = saturating(total, plus: info.decoderBuffers.rowBytes)
    if info.format == .jpeg { total = saturating(total, plus: saturating(height, 8)) }
    return total
  }

  /// The memory the damage scan of a JPEG needs (`cjpeg_find_damage`, run after a harmless
  /// warning): libjpeg reads every coefficient of the file while the decoded frame is held.
  static func damageScanEstimate(_ info: ImageInfo, options: DecodeOptions) -> Int {
    let (width, height) = scaledSize(info, options)
    return saturating(
      saturating(width, height, 4),
      plus: saturating(info.decoderBuffers.coefficientBytes, plus: info.decoderBuffers.rowBytes))
  }

  /// Refuses, before anything is allocated, an image over the pixel limit, a PNG whose rows
  /// alone are (`rowCostInPixels`), and a decode over the memory budget.
  static func checkLimits(_ info: ImageInfo, options: DecodeOptions) throws(CodecError) {
    let (width, height) = info.orientation >= 5 ? (info.height, info.width) : (info.width, info.height)
    if saturating(width, height) > options.maxPixels {
      throw .tooLarge(width: width, height: height, limit: options.maxPixels)
    }
    if info.format == .png, width < rowCostInPixels, saturating(height, rowCostInPixels) > options.maxPixels {
      throw .tooManyRows(width: width, height: height, limit: options.maxPixels / rowCostInPixels)
    }
    let estimate = decodeMemoryEstimate(info, options: options)
    if estimate > options.maxMemoryBytes {
      throw .memoryBudgetExceeded(estimate: estimate, budget: options.maxMemoryBytes)
    }
  }

  /// The size the decoder writes: DCT-scaled for a JPEG with `minimumLongestSide`, else full.
  private static func scaledSize(_ info: ImageInfo, _ options: DecodeOptions) -> (Int, Int) {
    guard info.format == .jpeg else { return (info.width, info.height) }
    return JPEGCodec.scaledSize(
      width: info.width, height: info.height, minimumLongestSide: options.minimumLongestSide)
  }
}

extension ImageInfo {
  /// A JPEG's upright size, orientation and decoder buffers, from its parsed header.
  init(jpeg header: JPEGHeader) {
    let turned = header.orientation >= 5
    self.init(
      format: .jpeg, width: turned ? header.height : header.width,
      height: turned ? header.width : header.height,
      orientation: (1...8).contains(header.orientation) ? header.orientation : 1)
    decoderBuffers.coefficientBytes = header.coefficientBytes
    decoderBuffers.holdsCoefficients = header.holdsCoefficients
    decoderBuffers.rowBytes = header.rowBufferBytes
  }

  /// A PNG's upright size, orientation and libpng's working rows, from its IHDR (and eXIf).
  init(png s: PNGCodec.Structure) {
    let turned = s.orientation >= 5
    self.init(
      format: .png, width: turned ? s.height : s.width, height: turned ? s.width : s.height,
      orientation: s.orientation)
    // libpng's row and previous row (png_read_start_row): the width rounded up to 8 pixels at
    // up to 8 bytes a pixel (16-bit RGBA before scaling), plus its slack; and zlib's window.
    let pixelBytes = s.bitDepth == 16 ? 8 : 4
    let row = saturating(roundUp(s.width, to: 8), pixelBytes) + 1 + pixelBytes + 48
    decoderBuffers.rowBytes = saturating(saturating(row, 2), plus: 64 << 10)
  }
}

/// `value` rounded up to a multiple of `step` (> 0).
func roundUp(_ value: Int, to step: Int) -> Int { (value + step - 1) / step * step }

/// The product, or Int.max when it overflows (sizes from a hostile header can be 2^31 each).
func saturating(_ factors: Int...) -> Int {
  var product = 1
  for f in factors {
    let (r, overflow) = product.multipliedReportingOverflow(by: f)
    if overflow { return .max }
    product = r
  }
  return product
}

/// The sum, or Int.max when it overflows.
func saturating(_ a: Int, plus b: Int) -> Int {
  let (r, overflow) = a.addingReportingOverflow(b)
  return overflow ? .max : r
}
