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
    let codec = try format(of: bytes).codec
    return try codec.withSource(bytes, options: options) { source in
      // A stream's buffers are drawn from the budget while it runs (see `decode`).
      guard let source, let info = try? codec.readInfo(bytes) else { return try body(source) }
      let reservation = try reserve(streamMemoryEstimate(info), options)
      defer { reservation.release() }
      return try body(source)
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
