import CJPEGShim
import Dispatch
import PhotoCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A baseline JPEG decoded, filtered and encoded to JPEG as a pipeline, through a window of a
/// few bands of rows: this thread decodes it a band at a time (libjpeg's scanline API, through
/// our C shim) into a free slot of the window, while other threads run the row filters on each
/// band already decoded and compress it as a JPEG of its own (`JPEGCodec.compressRows`), which
/// frees its slot; the bands are then joined with restart markers (`JPEGBands`).
///
/// Decoding and encoding overlap, so a 24 MP render takes about as long as its decode alone
/// (decode, filter, encode one after the other take half as long again), and the whole frame is
/// never in memory: the window holds 2 × cores + 2 bands of 128 rows, 8 at most (20 MB at
/// 24 MP on two cores, 27 MB at most, against 96 MB for the frame).
///
/// The pixels are exactly those of `ImageCodec.decode`, then the filters, then
/// `ImageCodec.encode`: libjpeg's defaults are TurboJPEG's, and the band joining is exact.
///
///     if let stream = try ImageCodec.jpegStream(bytes, options: DecodeOptions()) {
///       let (jpeg, warnings) = try stream.run(encoding: options, rows: { band in ... })
///     }
public final class JPEGStream {
  /// The photo as `ImageCodec.decode` describes it; the size is `fullWidth` x `fullHeight`, and
  /// the pixels go through `run`.
  public let details: ImageDetails
  private let bytes: [UInt8]

  /// The window's size limit in bands, whatever the core count.
  static let maximumSlots = 8

  init(bytes: [UInt8], details: ImageDetails) {
    (self.bytes, self.details) = (bytes, details)
  }

  /// The stream for `bytes`, or nil when the photo cannot be streamed: anything but a baseline
  /// 8-bit JPEG with one or three components, an EXIF orientation other than 1 (turning needs
  /// the whole image), or a DCT-scaled decode. The pixel limit is checked, and the file checked
  /// to be complete, before anything is allocated.
  static func open(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> JPEGStream? {
    guard options.minimumLongestSide == nil, !compressionIsChangedByEnvironment else { return nil }
    let header = try JPEGMarkers.parseHeader(bytes, metadata: true)
    guard header.frameMarker == 0xC0 || header.frameMarker == 0xC1, header.precision == 8,
      header.components.count == 1 || header.components.count == 3, header.orientation == 1,
      header.adobeTransform != 2
    else { return nil }
    try JPEGCodec.checkDecodable(header, bytes, options: options)
    let details = ImageDetails(
      format: .jpeg, orientation: 1, subsampling: header.subsampling, metadata: header.metadata,
      fullWidth: header.width, fullHeight: header.height)
    return JPEGStream(bytes: bytes, details: details)
  }

  /// TurboJPEG reads these to optimise Huffman tables, code arithmetically, add restart markers
  /// or write progressive JPEGs. Bands compressed so cannot be joined, and a stream has no whole
  /// frame to compress again, so then photos are not streamed.
  static let compressionIsChangedByEnvironment =
    ["TJ_OPTIMIZE", "TJ_ARITHMETIC", "TJ_RESTART", "TJ_PROGRESSIVE"].contains { (name: String) in
      getenv(name) != nil
    }

  /// Decodes the whole photo, running `rows` on every band as soon as it is decoded and
  /// compressing it, and returns the JPEG with `options.metadata` (as `ImageCodec.encode` writes
  /// it) and libjpeg's harmless warnings. Call it once.
  ///
  /// - Parameter rows: called on disjoint bands from several threads at once (a `RowFilter`'s
  ///   renderers); nil leaves the pixels as decoded. A band lives in the window only until it is
  ///   compressed: keep no pointer to it.
  /// - Throws: `CodecError` for a damaged file (as `ImageCodec.decode` would) or a failed encode.
  public func run(encoding options: EncodeOptions, rows transform: (@Sendable (ImageRows) -> Void)?)
    throws(CodecError) -> (jpeg: [UInt8], warnings: [String])
  {
    let (width, height) = (details.fullWidth, details.fullHeight)
    try JPEGCodec.checkEncodable(width: width, height: height, options: options)
    let plan = BandPlan.standard(width: width, height: height, subsampling: options.subsampling)
    let window = BandWindow(
      slots: min(plan.count, 2 * Parallel.workerCount + 2, Self.maximumSlots),
      bytesPerSlot: plan.bandHeight * width * 4)
    let results = BandResults(plan.count)
    let ready = (0..<plan.count).map { _ in DispatchSemaphore(value: 0) }
    let finished = DispatchSemaphore(value: 0)
    let next = Atomic<Int>(0)
    let failed = Atomic<Bool>(false)

    @Sendable func band(_ k: Int) -> ImageRows {
      ImageRows(base: window.slot(k), width: width, height: height, rows: plan.rows(k))
    }
    // Filters and compresses band k (claimed, decoded), frees its slot and says so. Once the
    // decode failed, bands are only counted off.
    @Sendable func process(_ k: Int) {
      if !failed.load(ordering: .acquiring) {
        let rows = band(k)
        transform?(rows)
        results.set(k, Result { () throws(CodecError) in try JPEGCodec.compressRows(rows, options) })
      }
      window.release(k)
      finished.signal()
    }
    // The helpers take bands in order, waiting until each is decoded.
    @Sendable func help() {
      while true {
        let k = next.add(1, ordering: .relaxed).oldValue
        guard k < plan.count else { return }
        ready[k].wait()
        process(k)
      }
    }
    // The decoder takes a band only when it is already decoded (below `limit`).
    func claimDecoded(below limit: Int) -> Int? {
      var k = next.load(ordering: .relaxed)
      while k < limit {
        let (exchanged, original) = next.compareExchange(expected: k, desired: k + 1, ordering: .relaxed)
        if exchanged { return k }
        k = original
      }
      return nil
    }

    // While this thread decodes, the other cores take bands. When the window is full, this
    // thread compresses a decoded band itself rather than wait, so the pipeline never depends on
    // a helper having started (with every core busy in a batch, one may start late: it then
    // finds no band left, and touches nothing). At the end it takes what is left, and waits for
    // the bands, never for the helpers.
    for _ in 0..<min(max(1, Parallel.workerCount - 1), Self.maximumSlots) {
      DispatchQueue.global().async { help() }
    }
    var signalled = 0
    let outcome = Self.decode(
      bytes, width: width, height: height, bandHeight: plan.bandHeight,
      destination: { k in
        while !window.tryAcquire(k) {
          if let j = claimDecoded(below: k) {
            process(j)
          } else {
            window.acquire(k)
            break
          }
        }
        return window.slot(k)
      },
      decodedBand: { k in
        ready[k].signal()
        signalled = k + 1
      })
    if case .failure = outcome { failed.store(true, ordering: .releasing) }
    while signalled < plan.count {  // after a failure, wake every band
      ready[signalled].signal()
      signalled += 1
    }
    while let k = claimDecoded(below: plan.count) { process(k) }
    for _ in 0..<plan.count { finished.wait() }

    let warnings = try outcome.get()
    let jpeg = try plan.join(try results.all()) { () throws(CodecError) in
      throw .encodingFailed(.jpeg, "the bands of a streamed JPEG could not be joined")
    }
    return (
      JPEGCodec.withMetadata(jpeg, ImageCodec.renderable(options)),
      warnings
    )
  }

  /// Decodes the photo band by band: band k's rows go to `destination(k)`, a band's worth of
  /// rows `width * 4` bytes apart, and `decodedBand(k)` follows once they are all there. Returns
  /// libjpeg's harmless warnings; any other warning, wherever it comes, is damage.
  private static func decode(
    _ bytes: [UInt8], width: Int, height: Int, bandHeight: Int,
    destination: (Int) -> UnsafeMutablePointer<UInt8>, decodedBand: (Int) -> Void
  ) -> Result<[String], CodecError> {
    var message = [CChar](repeating: 0, count: 256)
    func text() -> String { String(cMessage: message) }
    return bytes.withUnsafeBufferPointer { p -> Result<[String], CodecError> in
      guard let reader = cjpeg_reader_open(p.baseAddress, p.count, &message, message.count) else {
        return .failure(JPEGCodec.error(fromLibjpeg: text(), isWarning: false))
      }
      defer { cjpeg_reader_close(reader) }
      guard Int(cjpeg_reader_width(reader)) == width, Int(cjpeg_reader_height(reader)) == height else {
        return .failure(.corruptData(.jpeg, "libjpeg reads another size than the frame header says"))
      }
      var k = 0
      while k * bandHeight < height {
        let rows = (k * bandHeight)..<min(height, (k + 1) * bandHeight)
        let slot = destination(k)
        var done = 0
        while done < rows.count {
          let n = cjpeg_reader_read(
            reader, slot + done * width * 4, UInt32(min(16, rows.count - done)), &message, message.count)
          guard n > 0 else {
            return .failure(
              n < 0 ? JPEGCodec.error(fromLibjpeg: text(), isWarning: false) : .truncated(.jpeg))
          }
          done += Int(n)
        }
        decodedBand(k)
        k += 1
      }
      if cjpeg_reader_finish(reader, &message, message.count) != 0 {
        return .failure(JPEGCodec.error(fromLibjpeg: text(), isWarning: false))
      }
      if let harmful = cjpeg_reader_harmful_warning(reader) {
        return .failure(JPEGCodec.error(fromLibjpeg: String(cString: harmful), isWarning: true))
      }
      return .success(
        (0..<cjpeg_reader_warning_count(reader)).compactMap {
          cjpeg_reader_warning(reader, $0).map(String.init(cString:))
        })
    }
  }
}

/// A few band-sized buffers that bands take in turn: band k uses slot k mod `count`, and the
/// decoder waits (or works) until band k - count has released it.
final class BandWindow: @unchecked Sendable {
  private let memory: UnsafeMutableRawPointer
  private let bytesPerSlot: Int
  private let free: [DispatchSemaphore]

  init(slots: Int, bytesPerSlot: Int) {
    self.bytesPerSlot = bytesPerSlot
    memory = .allocate(byteCount: max(1, slots * bytesPerSlot), alignment: 64)
    free = (0..<max(1, slots)).map { _ in DispatchSemaphore(value: 1) }
  }

  deinit { memory.deallocate() }

  /// The first byte of band k's slot.
  func slot(_ k: Int) -> UnsafeMutablePointer<UInt8> {
    (memory + (k % free.count) * bytesPerSlot).assumingMemoryBound(to: UInt8.self)
  }

  /// Takes band k's slot if it is free now.
  func tryAcquire(_ k: Int) -> Bool { free[k % free.count].wait(timeout: .now()) == .success }
  /// Takes band k's slot, waiting until band k - count releases it.
  func acquire(_ k: Int) { free[k % free.count].wait() }
  /// Gives band k's slot back.
  func release(_ k: Int) { free[k % free.count].signal() }
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

  /// Rows per band in `standard`: small enough that the pipeline starts encoding early, that its
  /// last band after the decode is short and that its window is small; large enough that each
  /// band's compressor start-up (tables and headers) does not matter.
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
