import Codecs
import PhotoCore

/// A decoded photo as the store needs it (Codecs' `DecodedImage`, which tests cannot build).
struct DecodedPhoto: Sendable {
  var image: Image
  var format: ImageFormat
  /// The EXIF orientation the file had; the pixels are already upright.
  var orientation: Int
  var subsampling: ChromaSubsampling?
  var metadata: ImageMetadata
  /// The upright size before any DCT scaling, in pixels.
  var fullWidth: Int, fullHeight: Int
  var warnings: [String]
}

extension DecodedPhoto {
  init(_ d: DecodedImage) {
    self.init(
      image: d.image, format: d.format, orientation: d.orientation, subsampling: d.subsampling,
      metadata: d.metadata, fullWidth: d.fullWidth, fullHeight: d.fullHeight, warnings: d.warnings)
  }
}

/// The codecs and filters the store renders with, behind one seam so that tests can run the
/// store's file protocol on tiny synthetic formats as well as on real JPEG and PNG.
protocol RenderEngine: Sendable {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(StoreError) -> DecodedPhoto
  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8]
  /// Known filter, version not newer, valid parameters; migrates an older filter version.
  func validate(_ operation: Operation) throws(StoreError) -> Operation
  func render(_ operation: Operation, on image: inout Image, context: FilterContext) throws(StoreError)
  func resolve(_ pending: PendingOperation, for image: Image, context: FilterContext) throws(StoreError)
    -> Operation
  func pending(from operation: Operation) throws(StoreError) -> PendingOperation
  /// The image laid over the recipe's background colour, for a JPEG output of a non-opaque image.
  func flattened(_ image: Image, operations: [Operation]) -> Image
  /// The image scaled down so its longest side is `longestSide` pixels.
  func resampled(_ image: Image, longestSide: Int) -> Image

  /// A photo to decode, filter and encode to JPEG as a pipeline, or nil when it cannot be
  /// streamed (see `JPEGStream`); then `decode`, `render` and `encode` do it one after the other.
  func stream(_ bytes: [UInt8], maxPixels: Int) throws(StoreError) -> (any PhotoStream)?
  /// True when the filter works row by row (`RowFilter`), so that a stream can run it.
  func isRowFilter(_ name: String) -> Bool
  /// The band renderer of a row filter's operation for an image of this size, else nil.
  func rowRenderer(_ operation: Operation, width: Int, height: Int) throws(StoreError)
    -> (@Sendable (ImageRows) -> Void)?
}

extension RenderEngine {
  func stream(_ bytes: [UInt8], maxPixels: Int) throws(StoreError) -> (any PhotoStream)? { nil }
  func isRowFilter(_ name: String) -> Bool { false }
  func rowRenderer(_ operation: Operation, width: Int, height: Int) throws(StoreError)
    -> (@Sendable (ImageRows) -> Void)?
  { nil }
}

/// A photo being decoded, filtered and encoded as a pipeline (`JPEGStream` behind a seam).
protocol PhotoStream {
  /// The photo as `decode` describes it, but with a 1x1 stand-in for its image.
  var decoded: DecodedPhoto { get }
  /// Calls `body` with a full-size image whose pixels are undefined (see `JPEGStream`).
  func withUndecodedImage<R>(_ body: (Image) throws(StoreError) -> R) throws(StoreError) -> R
  /// Decodes, runs `rows` on each band, and encodes to JPEG: the JPEG, and the decoder's
  /// harmless warnings.
  func run(
    quality: Int, subsampling: ChromaSubsampling, metadata: ImageMetadata,
    rows: (@Sendable (ImageRows) -> Void)?
  ) throws(StoreError) -> (jpeg: [UInt8], warnings: [String])
}

extension StoreError {
  init(_ error: FilterError) {
    switch error {
    case .unknownFilter(let name): self = .unknownFilter(name: name)
    default: self = .filter(error.description)
    }
  }
}

/// The real codecs and filters.
struct LiveEngine: RenderEngine {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(StoreError) -> DecodedPhoto {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    options.minimumLongestSide = minimumLongestSide
    do { return DecodedPhoto(try ImageCodec.decode(bytes, options: options)) } catch {
      throw .codec(error.description)
    }
  }

  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8] {
    let options = EncodeOptions(quality: quality, subsampling: subsampling, metadata: metadata)
    do { return try ImageCodec.encode(image, as: format, options: options) } catch {
      throw .codec(error.description)
    }
  }

  func validate(_ operation: Operation) throws(StoreError) -> Operation {
    do { return try Filters.validate(operation) } catch { throw StoreError(error) }
  }

  func render(_ operation: Operation, on image: inout Image, context: FilterContext) throws(StoreError) {
    do { try Filters.render(operation, on: &image, context: context) } catch { throw StoreError(error) }
  }

  func resolve(_ pending: PendingOperation, for image: Image, context: FilterContext) throws(StoreError)
    -> Operation
  {
    do { return try pending.resolve(for: image, context: context) } catch { throw StoreError(error) }
  }

  func pending(from operation: Operation) throws(StoreError) -> PendingOperation {
    do { return try Filters.pending(from: operation) } catch { throw StoreError(error) }
  }

  func flattened(_ image: Image, operations: [Operation]) -> Image {
    image.flattened(over: Filters.background(for: operations))
  }

  func resampled(_ image: Image, longestSide: Int) -> Image {
    image.resampled(longestSide: longestSide)
  }

  func stream(_ bytes: [UInt8], maxPixels: Int) throws(StoreError) -> (any PhotoStream)? {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    do { return try ImageCodec.jpegStream(bytes, options: options).map(LiveStream.init) } catch {
      throw .codec(error.description)
    }
  }

  func isRowFilter(_ name: String) -> Bool { Filters.isRowFilter(name) }

  func rowRenderer(_ operation: Operation, width: Int, height: Int) throws(StoreError)
    -> (@Sendable (ImageRows) -> Void)?
  {
    do { return try Filters.rowRenderer(operation, width: width, height: height) } catch {
      throw StoreError(error)
    }
  }
}

/// The real codecs' JPEG pipeline.
struct LiveStream: PhotoStream {
  let stream: JPEGStream
  let decoded: DecodedPhoto

  init(_ stream: JPEGStream) {
    self.stream = stream
    decoded = DecodedPhoto(stream.decoded)
  }

  func withUndecodedImage<R>(_ body: (Image) throws(StoreError) -> R) throws(StoreError) -> R {
    try stream.withUndecodedImage(body)
  }

  func run(
    quality: Int, subsampling: ChromaSubsampling, metadata: ImageMetadata,
    rows: (@Sendable (ImageRows) -> Void)?
  ) throws(StoreError) -> (jpeg: [UInt8], warnings: [String]) {
    let options = EncodeOptions(quality: quality, subsampling: subsampling, metadata: metadata)
    do { return try stream.run(encoding: options, rows: rows) } catch { throw .codec(error.description) }
  }
}
