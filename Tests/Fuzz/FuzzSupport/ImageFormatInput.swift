// Shared by the fuzz targets of the formats read through a library (WebP, HEIC and AVIF, TIFF).
import PhotoCore

@testable import Codecs

/// One input of a format target: the header read, audit's findings, and a decode with small
/// limits (262,144 pixels, 32 MB); a decoded image of at most `maxEncodedPixels` is encoded
/// again with its metadata, as `format` (nil: the format it was read as), lossless when
/// `keepingLossless` and the file was.
public func fuzzImageInput(
  _ data: UnsafePointer<UInt8>, _ size: Int, maxEncodedPixels: Int, as format: ImageFormat? = nil,
  keepingLossless: Bool = false
) {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var options = DecodeOptions()
  options.maxPixels = 1 << 18
  options.maxMemoryBytes = 32 << 20
  _ = try? ImageCodec.readInfo(bytes)
  _ = ImageCodec.metadataFindings(in: bytes)
  guard let decoded = try? ImageCodec.decode(bytes, options: options),
    decoded.image.width * decoded.image.height <= maxEncodedPixels
  else { return }
  var encode = EncodeOptions(metadata: decoded.metadata)
  if keepingLossless { encode.lossless = decoded.details.storedLossless }
  _ = try? ImageCodec.encode(decoded.image, as: format ?? decoded.format, options: encode)
}
