import Codecs
import PhotoCore
import Recipe

/// The codecs the store renders with, behind one seam, so that tests can run the store's file
/// protocol on tiny synthetic formats as well as on real JPEG and PNG.
protocol RenderEngine: Sendable {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(CodecError) -> DecodedImage
  func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(CodecError) -> [UInt8]
  /// The format a file's bytes are in, or nil when they are not an image this engine reads.
  func format(of bytes: [UInt8]) -> ImageFormat?
  /// Calls `body` with the photo as the planner's source (`ImageCodec.withSource`), or with nil
  /// when it cannot be decoded a pass at a time; then the whole frame is decoded.
  func withSource(_ bytes: [UInt8], maxPixels: Int, _ body: (PhotoSource?) -> Void) throws(CodecError)
}

extension RenderEngine {
  func withSource(_ bytes: [UInt8], maxPixels: Int, _ body: (PhotoSource?) -> Void) throws(CodecError) {
    body(nil)
  }
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

  func withSource(_ bytes: [UInt8], maxPixels: Int, _ body: (PhotoSource?) -> Void) throws(CodecError) {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    do { try ImageCodec.withSource(bytes, options: options) { body($0) } } catch let error as CodecError {
      throw error
    } catch {
      throw .corruptData(.jpeg, "\(error)")  // the codecs throw only `CodecError`
    }
  }
}
