import CJPEGShim
import Dispatch
import PhotoCore
import Synchronization

/// A baseline JPEG decoded, filtered and encoded to JPEG as a pipeline: this thread decodes it a
/// band of rows at a time (libjpeg's scanline API, through our C shim), while other threads run
/// the row filters on each band already decoded and compress it (`JPEGCodec.compressRows`); the
/// bands are then joined with restart markers (`JPEGBands`). Decoding and encoding overlap, so a
/// 24 MP render takes about as long as its decode alone, where decode, filter, encode one after
/// the other take half as long again.
///
/// The pixels are exactly those of `ImageCodec.decode`, then the filters, then
/// `ImageCodec.encode`: libjpeg's defaults are TurboJPEG's, and the band joining is exact.
///
///     if let stream = try ImageCodec.jpegStream(bytes, options: DecodeOptions()) {
///       let (image, jpeg, warnings) = try stream.run(encoding: options, rows: { band in ... })
///     }
public final class JPEGStream {
  /// The photo as `ImageCodec.decode` describes it, except that its `image` is a 1x1 stand-in:
  /// the size is `fullWidth` x `fullHeight`, and the pixels come from `run`.
  public let decoded: DecodedImage
  private let bytes: [UInt8]
  /// The full-size image the decoder writes into.
  private var image: Image

  /// Rows per band, about: small enough that encoding starts early and the last band after the
  /// decode is short, large enough that each band's compressor start-up does not matter.
  static let bandRows = 256

  init(bytes: [UInt8], decoded: DecodedImage) {
    var described = decoded
    described.image = Self.standIn
    (self.bytes, self.decoded, image) = (bytes, described, decoded.image)
  }

  static let standIn = Image(width: 1, height: 1, bytes: [0, 0, 0, 0])

  /// Calls `body` with the full-size image before it is decoded (its pixels are undefined), for
  /// code that needs only its size, such as a row filter's `resolve`. `body` must not keep it:
  /// `run` would then have to copy the whole buffer.
  public func withUndecodedImage<R, E: Error>(_ body: (Image) throws(E) -> R) throws(E) -> R {
    try body(image)
  }

  /// The stream for `bytes`, or nil when the photo cannot be streamed: anything but a baseline
  /// 8-bit JPEG with one or three components, an EXIF orientation other than 1 (turning needs
  /// the whole image), or a DCT-scaled decode. The pixel limit is checked, and the file checked
  /// to be complete, before the image is allocated.
  static func open(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> JPEGStream? {
    guard options.minimumLongestSide == nil else { return nil }
    let header = try JPEGMarkers.parseHeader(bytes, metadata: true)
    guard header.frameMarker == 0xC0 || header.frameMarker == 0xC1, header.precision == 8,
      header.components.count == 1 || header.components.count == 3, header.orientation == 1,
      header.adobeTransform != 2
    else { return nil }
    if header.width * header.height > options.maxPixels {
      throw .tooLarge(width: header.width, height: header.height, limit: options.maxPixels)
    }
    try JPEGMarkers.checkComplete(bytes, from: header.firstScanOffset)
    let count = header.width * header.height * 4
    // Every byte is written by the decoder before anything reads it.
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    let decoded = DecodedImage(
      image: Image(width: header.width, height: header.height, bytes: pixels), format: .jpeg, orientation: 1,
      subsampling: header.subsampling, metadata: header.metadata, warnings: [],
      fullWidth: header.width, fullHeight: header.height)
    return JPEGStream(bytes: bytes, decoded: decoded)
  }

  /// Decodes the whole photo, running `rows` on every band as soon as it is decoded and
  /// compressing it, and returns the filtered image, the JPEG with `options.metadata` (as
  /// `ImageCodec.encode` writes it), and libjpeg's harmless warnings. Call it once.
  ///
  /// - Parameter rows: called on disjoint bands from several threads at once (a `RowFilter`'s
  ///   renderers); nil leaves the pixels as decoded.
  /// - Throws: `CodecError` for a damaged file (as `ImageCodec.decode` would) or a failed encode.
  public func run(encoding options: EncodeOptions, rows transform: (@Sendable (ImageRows) -> Void)?)
    throws(CodecError) -> (image: Image, jpeg: [UInt8], warnings: [String])
  {
    try JPEGCodec.checkEncodable(width: image.width, height: image.height, options: options)
    var image = self.image
    self.image = Self.standIn  // one owner: no copy on write
    let plan = BandPlan(
      width: image.width, height: image.height, subsampling: options.subsampling,
      rowsPerBand: Self.bandRows)
    let results = BandResults(plan.count)
    let ready = (0..<plan.count).map { _ in DispatchSemaphore(value: 0) }
    let finished = DispatchSemaphore(value: 0)
    let next = Atomic<Int>(0)
    let failed = Atomic<Bool>(false)

    let decodeResult: Result<[String], CodecError> = image.withRows { all in
      // Takes the next band in order, waits until it is decoded, filters and compresses it, and
      // says so. Once the decode failed, bands are only counted off.
      @Sendable func work() {
        while true {
          let k = next.add(1, ordering: .relaxed).oldValue
          guard k < plan.count else { return }
          ready[k].wait()
          if !failed.load(ordering: .acquiring) {
            let band = all.band(plan.rows(k))
            transform?(band)
            results.set(k, Result { () throws(CodecError) in try JPEGCodec.compressRows(band, options) })
          }
          finished.signal()
        }
      }
      // While this thread decodes, the other cores take bands; then this thread takes the rest.
      // It waits for the bands, not for the helpers: a helper that starts late (every core busy
      // with a batch) finds no band left and touches nothing.
      for _ in 0..<max(1, Parallel.workerCount - 1) { DispatchQueue.global().async { work() } }
      var signalled = 0
      let outcome = Self.decode(bytes, into: all) { decodedRows in
        while signalled < plan.count, plan.rows(signalled).upperBound <= decodedRows {
          ready[signalled].signal()
          signalled += 1
        }
      }
      if case .failure = outcome { failed.store(true, ordering: .releasing) }
      while signalled < plan.count {  // after a failure, wake every band
        ready[signalled].signal()
        signalled += 1
      }
      work()
      for _ in 0..<plan.count { finished.wait() }
      return outcome
    }
    let warnings = try decodeResult.get()
    let jpeg = try plan.join(try results.all()) { () throws(CodecError) in
      try JPEGCodec.compress(image, options: options, bands: 1)
    }
    return (image, JPEGCodec.withMetadata(jpeg, ImageCodec.renderable(options.metadata)), warnings)
  }

  /// Decodes every row into `all`, calling `progress` with the number of rows done after each
  /// step. Returns libjpeg's harmless warnings; any other warning is damage, as in
  /// `JPEGCodec.decode`.
  private static func decode(_ bytes: [UInt8], into all: ImageRows, progress: (Int) -> Void)
    -> Result<[String], CodecError>
  {
    var message = [CChar](repeating: 0, count: 256)
    func text() -> String {
      String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return bytes.withUnsafeBufferPointer { p -> Result<[String], CodecError> in
      guard let reader = cjpeg_reader_open(p.baseAddress, p.count, &message, message.count) else {
        return .failure(JPEGCodec.error(fromLibjpeg: text(), isWarning: false))
      }
      defer { cjpeg_reader_close(reader) }
      guard Int(cjpeg_reader_width(reader)) == all.width, Int(cjpeg_reader_height(reader)) == all.height else {
        return .failure(.corruptData(.jpeg, "libjpeg reads another size than the frame header says"))
      }
      var done = 0
      while done < all.height {
        let n = cjpeg_reader_read(reader, all.row(done), UInt32(min(16, all.height - done)), &message, message.count)
        guard n > 0 else {
          return .failure(
            n < 0 ? JPEGCodec.error(fromLibjpeg: text(), isWarning: false) : .truncated(.jpeg))
        }
        done += Int(n)
        progress(done)
      }
      if cjpeg_reader_finish(reader, &message, message.count) != 0 {
        return .failure(JPEGCodec.error(fromLibjpeg: text(), isWarning: false))
      }
      var warnings: [String] = []
      for i in 0..<cjpeg_reader_warning_count(reader) {
        guard let warning = cjpeg_reader_warning(reader, i) else { break }
        let line = String(cString: warning)
        guard JPEGCodec.harmlessWarnings.contains(where: { line.contains($0) }) else {
          return .failure(JPEGCodec.error(fromLibjpeg: line, isWarning: true))
        }
        warnings.append(line)
      }
      return .success(warnings)
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

  /// Bands of about `rowsPerBand` rows.
  init(width: Int, height: Int, subsampling: ChromaSubsampling, rowsPerBand: Int) {
    let mcu = JPEGCodec.mcuSize(subsampling)
    self.init(
      width: width, height: height, subsampling: subsampling,
      mcuRowsPerBand: max(1, rowsPerBand / mcu.height))
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
  func join(_ bands: [[UInt8]], orElse whole: () throws(CodecError) -> [UInt8]) throws(CodecError) -> [UInt8] {
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

extension ImageCodec {
  /// A JPEG to decode, filter and encode again as a pipeline (see `JPEGStream`), or nil when it
  /// cannot be streamed; then decode and encode it the usual way.
  public static func jpegStream(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) throws(CodecError)
    -> JPEGStream?
  {
    guard try format(of: bytes) == .jpeg else { return nil }
    return try JPEGStream.open(bytes, options: options)
  }
}
