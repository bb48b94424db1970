import Codecs
import PhotoCore

/// The codecs the store renders with, behind one seam, so that tests can run the store's file
/// protocol on tiny synthetic formats as well as on real JPEG and PNG.
protocol RenderEngine: Sendable {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(CodecError) -> DecodedImage
  func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(CodecError) -> [UInt8]
  /// The format a file's bytes are in, or nil when they are not an image this engine reads.
  func format(of bytes: [UInt8]) -> ImageFormat?
  /// A photo to decode, filter and encode to JPEG as a pipeline, or nil when it cannot be
  /// streamed (see `JPEGStream`); then `decode`, the steps and `encode` run one after the other.
  func stream(_ bytes: [UInt8], maxPixels: Int) throws(CodecError) -> (any PhotoStream)?
}

extension RenderEngine {
  func stream(_ bytes: [UInt8], maxPixels: Int) throws(CodecError) -> (any PhotoStream)? { nil }
}

/// A photo being decoded, filtered and encoded as a pipeline (`JPEGStream` behind a seam).
protocol PhotoStream {
  /// The photo as `decode` describes it.
  var details: ImageDetails { get }
  /// Decodes, runs `rows` on each band, and encodes to JPEG: the JPEG, and the decoder's
  /// harmless warnings.
  func run(encoding options: EncodeOptions, rows: (@Sendable (ImageRows) -> Void)?) throws(CodecError)
    -> (jpeg: [UInt8], warnings: [String])
}

/// The real codecs.
struct LiveEngine: RenderEngine {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(CodecError) -> DecodedImage {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    options.minimumLongestSide = minimumLongestSide
    return try ImageCodec.decode(bytes, options: options)
  }

  func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    try ImageCodec.encode(image, as: format, options: options)
  }

  func format(of bytes: [UInt8]) -> ImageFormat? { try? ImageCodec.format(of: bytes) }

  func stream(_ bytes: [UInt8], maxPixels: Int) throws(CodecError) -> (any PhotoStream)? {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    return try ImageCodec.jpegStream(bytes, options: options)
  }
}

extension JPEGStream: PhotoStream {}
