import PhotoCore

#if canImport(Glibc)
  import Glibc
#endif

/// A JPEG written band by band for the planner: each band of `BandPlan.standard` rows (128,
/// fewer only for the widest images) is compressed as a JPEG of its own by `tjCompress2` on
/// whichever core hands it over, and the bands are joined with restart markers (`JPEGBands`):
/// the same bytes as `ImageCodec.encode` of the whole image, on any number of cores.
public final class JPEGSink: PixelSink, @unchecked Sendable {
  private let plan: BandPlan
  private let options: EncodeOptions
  private let fill: RGBA?
  private let results: BandResults

  public var bandHeight: Int { plan.bandHeight }
  public var needsOrder: Bool { false }

  /// A sink for an image of `size`, encoded with `options` (metadata as `ImageCodec.encode`
  /// writes it); pixels that are not opaque are first laid over `fill` (nil: the output is
  /// known to be opaque).
  ///
  /// - Throws: `.encodingFailed` for what libjpeg cannot write (quality, size).
  public init(size: ImageSize, options: EncodeOptions, fill: RGBA?) throws(CodecError) {
    try JPEGCodec.checkEncodable(width: size.width, height: size.height, options: options)
    plan = BandPlan.standard(width: size.width, height: size.height, subsampling: options.subsampling)
    var options = options
    options.metadata = ImageCodec.renderable(options)
    (self.options, self.fill) = (options, fill)
    results = BandResults(plan.count)
  }

  /// False when the environment asks TurboJPEG for bands that cannot be joined (optimised
  /// Huffman tables, arithmetic coding, restart markers, progressive): then encode whole images.
  public static var isAvailable: Bool { !compressionIsChangedByEnvironment }

  /// TurboJPEG reads these to optimise Huffman tables, code arithmetically, add restart markers
  /// or write progressive JPEGs: bands compressed so cannot be joined.
  static let compressionIsChangedByEnvironment =
    ["TJ_OPTIMIZE", "TJ_ARITHMETIC", "TJ_RESTART", "TJ_PROGRESSIVE"].contains { (name: String) in
      getenv(name) != nil
    }

  public func write(band index: Int, _ pixels: PixelBuffer) throws {
    precondition(pixels.rect.rows == plan.rows(index), "band \(index) is rows \(plan.rows(index))")
    if let fill { pixels.flatten(over: fill) }
    results.set(index, Result { () throws(CodecError) in try JPEGCodec.compressRows(pixels, options) })
  }

  /// The JPEG, once every band is written.
  public func finish() throws(CodecError) -> [UInt8] {
    let jpeg = try plan.join(try results.all()) { () throws(CodecError) in
      throw .encodingFailed(.jpeg, "the bands of a JPEG could not be joined")
    }
    return JPEGCodec.withMetadata(jpeg, options.metadata)
  }
}
