import CJPEGShim
import CTurboJPEG
import PhotoCore

/// JPEG through libjpeg-turbo's TurboJPEG API. TurboJPEG reports errors as return codes (its own
/// setjmp stays inside the library), so no C frame ever jumps over Swift. The C names of
/// libjpeg-turbo appear in the JPEG folder only (here, JPEGSource, JPEGSink and the
/// lossless route's files).
enum JPEGCodec {
  /// A decoded JPEG before orientation is applied.
  struct Decoded {
    var image: Image
    var header: JPEGHeader
    var warnings: [String]
  }

  /// libjpeg warnings that leave the pixels intact: they go to `warnings`, and decoding goes on.
  /// CJPEGShim knows the same four by their message codes.
  static let harmlessWarnings = [
    "extraneous bytes before marker", "bad ICC marker", "unknown JFIF revision",
    "Unknown Adobe color transform",
  ]

  /// Decodes a JPEG to RGBA at the scale `minimumLongestSide` asks for, as stored (no orientation).
  ///
  /// Wraps `tjDecompressHeader3`, `tjGetScalingFactors` and `tjDecompress2` (`TJPF_RGBA`, or
  /// `TJPF_CMYK` converted here). The size comes from our own SOF parse, which also works for
  /// 4:1:0 files that `tjDecompressHeader3` refuses.
  ///
  /// - Complexity: O(width × height) after scaling, plus one `memchr` pass over the file.
  static func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> Decoded {
    var header = try JPEGMarkers.parseHeader(bytes, metadata: true)
    let (width, height) = (header.width, header.height)
    try checkDecodable(header, bytes, options: options)

    guard let handle = tjInitDecompress() else { throw .corruptData(.jpeg, "cannot start libjpeg-turbo") }
    defer { tjDestroy(handle) }

    // Colour space: TurboJPEG's when it reads the header, else from the component count.
    var tjWidth: Int32 = 0
    var tjHeight: Int32 = 0
    var tjSubsampling: Int32 = 0
    var tjColorspace: Int32 = -1
    let headerStatus = bytes.withUnsafeBufferPointer { p in
      tjDecompressHeader3(
        handle, p.baseAddress, UInt(p.count), &tjWidth, &tjHeight, &tjSubsampling, &tjColorspace)
    }
    let isCMYK: Bool
    if headerStatus == 0 {
      // libjpeg must read the frame our limits were checked against.
      guard Int(tjWidth) == width, Int(tjHeight) == height else {
        throw .corruptData(.jpeg, "libjpeg reads another size than the frame header says")
      }
      isCMYK = tjColorspace == Int32(TJCS_CMYK.rawValue) || tjColorspace == Int32(TJCS_YCCK.rawValue)
    } else {
      isCMYK = header.components.count == 4
    }

    let (scaledWidth, scaledHeight) = scaledSize(
      width: width, height: height, minimumLongestSide: options.minimumLongestSide)
    let pixelFormat = isCMYK ? Int32(TJPF_CMYK.rawValue) : Int32(TJPF_RGBA.rawValue)
    let count = scaledWidth * scaledHeight * 4
    var status: Int32 = 0
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      // The pages are mapped on another core while TurboJPEG writes them.
      status = PageFaults.populating(UnsafeMutableRawBufferPointer(buffer)) {
        bytes.withUnsafeBufferPointer { p in
          tjDecompress2(
            handle, p.baseAddress, UInt(p.count), buffer.baseAddress, Int32(scaledWidth), 0,
            Int32(scaledHeight), pixelFormat, TJFLAG_LIMITSCANS)
        }
      }
      // On failure the buffer may be partly written; it is discarded below either way.
      initialized = count
    }
    var warnings: [String] = []
    if status != 0 {
      let message = String(cString: tjGetErrorStr2(handle))
      let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
      guard isWarning && harmlessWarnings.contains(where: { message.contains($0) }) else {
        throw error(fromLibjpeg: message, isWarning: isWarning)
      }
      // TurboJPEG reports the first warning's text only: damage after a harmless warning would
      // go unseen, so read the entropy-coded data again and look at every warning.
      try checkForDamage(bytes, ImageInfo(jpeg: header), options: options)
      warnings.append(message)
    }
    var image = Image(width: scaledWidth, height: scaledHeight, bytes: pixels)
    if isCMYK {
      convertCMYKToRGBA(&image, inverted: header.adobeTransform != nil)
    }
    header.orientation = (1...8).contains(header.orientation) ? header.orientation : 1
    return Decoded(image: image, header: header, warnings: warnings)
  }

  /// Refuses, before any pixel memory is allocated, a JPEG over the pixel limit or the memory
  /// budget (`ImageCodec.checkLimits`), one whose entropy-coded data does not run to an EOI (a
  /// cut file), and one with more scans than `JPEGMarkers.maxScans`.
  static func checkDecodable(_ header: JPEGHeader, _ bytes: [UInt8], options: DecodeOptions)
    throws(CodecError)
  {
    try ImageCodec.checkLimits(ImageInfo(jpeg: header), options: options)
    let scans = try JPEGMarkers.checkComplete(bytes, from: header.firstScanOffset)
    if scans > JPEGMarkers.maxScans { throw .tooManyScans(count: scans, limit: JPEGMarkers.maxScans) }
  }

  /// Reads the whole file's entropy-coded data again with libjpeg (`cjpeg_find_damage`:
  /// `jpeg_read_coefficients`, no IDCT) and throws the first warning that means damage. It
  /// holds every coefficient of the image while the frame is held, so it is checked against
  /// the memory budget first.
  static func checkForDamage(_ bytes: [UInt8], _ info: ImageInfo, options: DecodeOptions) throws(CodecError) {
    let estimate = ImageCodec.damageScanEstimate(info, options: options)
    if estimate > options.maxMemoryBytes {
      throw .memoryBudgetExceeded(estimate: estimate, budget: options.maxMemoryBytes)
    }
    var damage = [CChar](repeating: 0, count: 256)
    let found = bytes.withUnsafeBufferPointer {
      cjpeg_find_damage($0.baseAddress, $0.count, &damage, damage.count)
    }
    if found != 0 {
      throw error(fromLibjpeg: String(cMessage: damage), isWarning: found == 1)
    }
  }

  /// The size TurboJPEG decodes to: the smallest scaling factor (at most 1/1) whose longest side
  /// is still at least `minimumLongestSide` pixels; the full size when nil.
  static func scaledSize(width: Int, height: Int, minimumLongestSide: Int?) -> (Int, Int) {
    guard let minimum = minimumLongestSide else { return (width, height) }
    var count: Int32 = 0
    guard let factors = tjGetScalingFactors(&count) else { return (width, height) }
    let longest = max(width, height)
    var best = (num: 1, denom: 1)
    for k in 0..<Int(count) {
      let (num, denom) = (Int(factors[k].num), Int(factors[k].denom))
      guard num <= denom else { continue }  // never enlarge
      let side = (longest * num + denom - 1) / denom
      if side >= minimum && num * best.denom < best.num * denom { best = (num, denom) }
    }
    // TJSCALED(dimension, factor): ceil(dimension * num / denom).
    return (
      (width * best.num + best.denom - 1) / best.denom,
      (height * best.num + best.denom - 1) / best.denom
    )
  }

  /// Maps a libjpeg message to the error a user reads. Every warning that is not harmless means
  /// damaged data (libjpeg would have returned padded or garbled pixels).
  static func error(fromLibjpeg message: String, isWarning: Bool) -> CodecError {
    if message.contains("Premature end of JPEG file") { return .truncated(.jpeg) }
    if isWarning {
      var detail = message
      if detail.hasPrefix("Corrupt JPEG data: ") { detail.removeFirst("Corrupt JPEG data: ".count) }
      return .corruptData(.jpeg, detail)
    }
    if message.contains("Unsupported JPEG data precision") {
      return .unsupported("JPEG with sample precision other than 8 bits")
    }
    if message.contains("Unsupported color conversion") || message.contains("Unsupported JPEG process") {
      return .unsupported(message)
    }
    var detail = message
    if detail.hasPrefix("Corrupt JPEG data: ") { detail.removeFirst("Corrupt JPEG data: ".count) }
    return .corruptData(.jpeg, detail)
  }

  /// Converts TurboJPEG's CMYK (4 bytes a pixel, in place) to opaque RGB. Adobe files (those
  /// with an APP14 segment, as Photoshop writes) store inverted values.
  ///
  /// - Complexity: O(width × height).
  private static func convertCMYKToRGBA(_ image: inout Image, inverted: Bool) {
    let rows = image.height
    let rowBytes = image.width * 4
    let width = image.width
    image.bytes.withUnsafeMutableBufferPointer { p in
      let base = UncheckedPointer(p.baseAddress!)
      Parallel.forEachRowRange(rows) { range in
        for y in range { convertCMYKRow(base.pointer + y * rowBytes, count: width, inverted: inverted) }
      }
    }
  }

  /// Converts `count` CMYK pixels (4 bytes each, in place) to opaque RGBA: with inverted values
  /// (Adobe files), ink-free = c, so R = c × k / 255.
  static func convertCMYKRow(_ q: UnsafeMutablePointer<UInt8>, count: Int, inverted: Bool) {
    for i in stride(from: 0, to: count * 4, by: 4) {
      var c = UInt32(q[i])
      var m = UInt32(q[i + 1])
      var y = UInt32(q[i + 2])
      var k = UInt32(q[i + 3])
      if !inverted { (c, m, y, k) = (255 - c, 255 - m, 255 - y, 255 - k) }
      q[i] = UInt8((c * k + 127) / 255)
      q[i + 1] = UInt8((m * k + 127) / 255)
      q[i + 2] = UInt8((y * k + 127) / 255)
      q[i + 3] = 255
    }
  }

  /// Encodes RGBA to JPEG with `tjCompress2`, then inserts the metadata segments after the JFIF
  /// APP0 segment that TurboJPEG writes.
  ///
  /// - Complexity: O(width × height), spread over all cores (see `compress`).
  static func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    try checkEncodable(width: image.width, height: image.height, options: options)
    return withMetadata(try compress(image, options: options), options.metadata)
  }

  /// Refuses what libjpeg cannot write, before any work is done.
  static func checkEncodable(width: Int, height: Int, options: EncodeOptions) throws(CodecError) {
    guard EncodeOptions.qualityRange.contains(options.quality) else {
      throw .encodingFailed(.jpeg, "quality \(options.quality) is not in 1...100")
    }
    guard width <= 65500, height <= 65500 else {
      throw .encodingFailed(.jpeg, "\(width)x\(height) is larger than libjpeg allows (65500)")
    }
  }

  /// A JPEG from TurboJPEG with the metadata segments inserted after its JFIF APP0 segment.
  static func withMetadata(_ encoded: [UInt8], _ metadata: ImageMetadata) -> [UInt8] {
    var insertAt = 2
    if encoded.count >= 6, encoded[2] == 0xFF, encoded[3] == 0xE0 {
      insertAt = 4 + (Int(encoded[4]) << 8 | Int(encoded[5]))
    }
    let segments = JPEGMarkers.segments(for: metadata)
    var out: [UInt8] = []
    out.reserveCapacity(encoded.count + segments.count)
    out += encoded[0..<insertAt]
    out += segments
    out += encoded[insertAt...]
    return out
  }

  /// Compresses the image in horizontal bands of whole MCU rows, one `tjCompress2` per band on
  /// all cores, and joins them with restart markers (`JPEGBands`). The pixels are those of one
  /// `tjCompress2` of the whole image; the bands only make it faster (0.13 s to about 0.07 s for
  /// 24 MP on two cores). Bands that cannot be joined take one call.
  ///
  /// The bands are `BandPlan.standard`'s, whatever the machine, and the band-by-band writer
  /// (`JPEGSink`) cuts the same ones: the same pixels always give the same bytes, on any number
  /// of cores and by either path (the store compares renders by their SHA-256).
  ///
  /// - Parameter bands: about how many bands to cut instead (tests); 1 is one call.
  static func compress(_ image: Image, options: EncodeOptions, bands: Int? = nil) throws(CodecError)
    -> [UInt8]
  {
    let plan =
      bands.map {
        BandPlan(width: image.width, height: image.height, subsampling: options.subsampling, bands: $0)
      }
      ?? .standard(width: image.width, height: image.height, subsampling: options.subsampling)
    let (width, height) = (image.width, image.height)
    return try image.bytes.withUnsafeBufferPointer { p throws(CodecError) in
      // Read only: tjCompress2 takes a const buffer.
      let base = UncheckedSendable(UnsafeMutablePointer(mutating: p.baseAddress!))
      func compress(_ rows: Range<Int>) throws(CodecError) -> [UInt8] {
        try compressRows(
          base.value + rows.lowerBound * width * 4, width: width, height: rows.count, pitch: width * 4,
          options)
      }
      guard plan.count > 1 else { return try compress(0..<height) }
      let results = BandResults(plan.count)
      Parallel.forEach(plan.count) { k in
        results.set(k, Result { () throws(CodecError) in try compress(plan.rows(k)) })
      }
      return try plan.join(try results.all(), orElse: { () throws(CodecError) in try compress(0..<height) })
    }
  }

  /// One `tjCompress2` of the pixels of a buffer (the rows of one band, every column), as a JPEG
  /// of its own.
  static func compressRows(_ pixels: PixelBuffer, _ options: EncodeOptions) throws(CodecError) -> [UInt8] {
    try compressRows(
      pixels.base, width: pixels.rect.width, height: pixels.rect.height, pitch: pixels.stride, options)
  }

  /// One `tjCompress2` of `height` rows of `width` RGBA pixels, `pitch` bytes apart.
  private static func compressRows(
    _ base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, pitch: Int, _ options: EncodeOptions
  ) throws(CodecError) -> [UInt8] {
    guard let handle = tjInitCompress() else { throw .encodingFailed(.jpeg, "cannot start libjpeg-turbo") }
    defer { tjDestroy(handle) }
    let subsampling: TJSAMP =
      switch options.subsampling {
      case .s444: TJSAMP_444
      case .s422: TJSAMP_422
      case .s420: TJSAMP_420
      }
    // TurboJPEG compresses with the fast integer DCT by default. libjpeg-turbo's usage notes say
    // it makes "little or no perceptible quality difference" at quality 90 and below, and a
    // growing one above (1-3 dB PSNR at 97), so above 90 take the accurate DCT (measured here:
    // cjpeg on 24 MP, 0.10 s fast vs 0.13 s accurate).
    let flags = options.quality > 90 ? TJFLAG_ACCURATEDCT : 0
    var jpeg: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    let status = tjCompress2(
      handle, base, Int32(width), Int32(pitch), Int32(height),
      Int32(TJPF_RGBA.rawValue), &jpeg, &size, Int32(subsampling.rawValue), Int32(options.quality), flags)
    defer { if let jpeg { tjFree(jpeg) } }
    guard status == 0, let jpeg, size >= 4 else {
      throw .encodingFailed(.jpeg, String(cString: tjGetErrorStr2(handle)))
    }
    return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
  }

  /// The MCU size in pixels of a JPEG we write at this subsampling.
  static func mcuSize(_ subsampling: ChromaSubsampling) -> (width: Int, height: Int) {
    switch subsampling {
    case .s444: (8, 8)
    case .s422: (16, 8)
    case .s420: (16, 16)
    }
  }
}

/// A raw pointer handed to row-parallel workers that write disjoint rows.
struct UncheckedPointer: @unchecked Sendable {
  let pointer: UnsafeMutablePointer<UInt8>
  init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
}
