import PhotoCore

/// A photo opened for the planner: its pixels as a source (as stored, before the orientation),
/// and what `ImageCodec.decode` says of it.
public struct PhotoSource {
  /// The stored pixels, a pass at a time.
  public let source: any PixelSource
  /// As `decode`'s (the full size is upright); `warnings` is empty: the passes report them.
  public let details: ImageDetails
}

extension ImageCodec {
  /// Calls `body` with the photo as a planner source, or with nil when it cannot be decoded a
  /// pass at a time (an interlaced PNG: `decode` it whole). The limits are checked first from
  /// the header, as for `decode` but for a stream (`streamMemoryEstimate`: no frame is held).
  ///
  /// - Throws: `CodecError` for a file that is bad data or too large, and what `body` throws.
  public static func withSource<R>(
    _ bytes: [UInt8], options: DecodeOptions = DecodeOptions(), _ body: (PhotoSource?) throws -> R
  ) throws -> R {
    switch try format(of: bytes) {
    case .jpeg:
      let header = try JPEGMarkers.parseHeader(bytes, metadata: true)
      let info = ImageInfo(jpeg: header)
      try checkStreamLimits(info, options: options)
      let scans = try JPEGMarkers.checkComplete(bytes, from: header.firstScanOffset)
      if scans > JPEGMarkers.maxScans {
        throw CodecError.tooManyScans(count: scans, limit: JPEGMarkers.maxScans)
      }
      let details = ImageDetails(
        format: .jpeg, orientation: info.orientation, subsampling: header.subsampling,
        metadata: header.metadata,
        fullWidth: info.width, fullHeight: info.height, quality: header.quality)
      return try bytes.withUnsafeBufferPointer { data in
        try body(PhotoSource(source: JPEGSource(data, header: header), details: details))
      }
    case .png:
      let structure = try PNGCodec.walk(bytes, full: true)
      let info = ImageInfo(png: structure)
      guard !structure.interlaced else { return try body(nil) }
      try checkStreamLimits(info, options: options)
      var metadata = ImageMetadata()
      metadata.pngChunks = structure.colourChunks
      metadata.icc = structure.icc
      metadata.exif = structure.exif
      metadata.xmp = structure.xmp
      metadata = metadata.rendered(keepingMakerNote: true)
      let details = ImageDetails(
        format: .png, orientation: structure.orientation, metadata: metadata, fullWidth: info.width,
        fullHeight: info.height)
      return try bytes.withUnsafeBufferPointer { data in
        let source = PNGSource(data, structure: structure, hasTransparency: structure.mayHaveTransparency)
        return try body(PhotoSource(source: source, details: details))
      }
    }
  }

  /// The memory a stream of the file `info` describes needs: the decoder's own buffers (a
  /// progressive JPEG's coefficients), and at most the planner's window or pass of the image's
  /// rows (`Planner.defaultBudget`, or 8 slots of 128 rows, whichever is larger), twice over for
  /// the bands in flight. No frame.
  public static func streamMemoryEstimate(_ info: ImageInfo) -> Int {
    var total = info.decoderBuffers.rowBytes
    if info.decoderBuffers.holdsCoefficients {
      total = saturating(total, plus: info.decoderBuffers.coefficientBytes)
    }
    let window = max(Planner.defaultBudget, saturating(8 * 128, info.width, 4))
    return saturating(total, plus: saturating(window, 2))
  }

  /// The pixel limits of `checkLimits`, and the memory budget against a stream's estimate.
  static func checkStreamLimits(_ info: ImageInfo, options: DecodeOptions) throws(CodecError) {
    var unlimited = options
    unlimited.maxMemoryBytes = .max
    try checkLimits(info, options: unlimited)
    let estimate = streamMemoryEstimate(info)
    if estimate > options.maxMemoryBytes {
      throw .memoryBudgetExceeded(estimate: estimate, budget: options.maxMemoryBytes)
    }
  }
}
