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
    let d: DecodedImage
    do { d = try ImageCodec.decode(bytes, options: options) } catch { throw .codec(error.description) }
    return DecodedPhoto(
      image: d.image, format: d.format, orientation: d.orientation, subsampling: d.subsampling,
      metadata: d.metadata, fullWidth: d.fullWidth, fullHeight: d.fullHeight, warnings: d.warnings)
  }

  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8] {
    var options = EncodeOptions()
    options.quality = quality
    options.subsampling = subsampling
    options.metadata = metadata
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
}
