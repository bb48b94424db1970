import PhotoCore

/// WebP in the format registry: libwebp decodes and encodes the image (WebPLibrary), the RIFF
/// chunks and their metadata are read and written in Swift (WebPContainer).
///
/// Still images only (an animation is refused). A render is lossless when the original stores
/// its pixels losslessly (a lossless WebP, a PNG) and no `--quality` was asked for, else lossy
/// at the render's quality (default 90).
struct WebPFormat: FormatCodec {
  var format: ImageFormat { .webp }
  var name: String { "WebP" }
  var extensions: [String] { ["webp"] }
  var capabilities: FormatCapabilities {
    FormatCapabilities(alpha: true, bitDepths: [8], writable: true, lossy: true, losslessOption: true)
  }
  var metadataCarriers: [String] { ["EXIF", "ICCP", "XMP "] }

  /// The most pixels a side WebP holds (14 bits).
  static let maxSide = 16383

  /// "RIFF", a size, "WEBP".
  func sniff(_ bytes: [UInt8]) -> SignatureMatch {
    if bytes.hasBytes(WebPContainer.riff, at: 0), bytes.hasBytes(WebPContainer.webp, at: 8) {
      return .matches
    }
    return bytes.count >= 4 && bytes.count < 12 && bytes.starts(with: WebPContainer.riff) ? .truncated : .none
  }

  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    try info(bytes, container: try WebPContainer(bytes)).info
  }

  /// The upright size, the orientation and libwebp's buffers: a lossless bitstream is decoded
  /// whole into a buffer of 4 bytes a pixel before it is converted (VP8L's `pixels_`), a lossy
  /// one with alpha holds an alpha plane of 1 byte a pixel; both keep a few rows besides
  /// (counted as 64 bytes a column, with 1 MiB of tables).
  private func info(_ bytes: [UInt8], container: WebPContainer) throws(CodecError) -> (
    info: ImageInfo, features: WebPLibrary.Features
  ) {
    let features = try WebPLibrary.features(bytes)
    if features.animated || container.animated {
      throw .unsupported("animated WebP (photoedit reads still images)")
    }
    let turned = container.orientation >= 5
    var info = ImageInfo(
      format: .webp, width: turned ? features.height : features.width,
      height: turned ? features.width : features.height, orientation: container.orientation)
    let pixels = saturating(features.width, features.height)
    if features.lossless {
      info.decoderBuffers.coefficientBytes = saturating(pixels, 4)
      info.decoderBuffers.holdsCoefficients = true
    } else if features.hasAlpha {
      info.decoderBuffers.coefficientBytes = pixels
      info.decoderBuffers.holdsCoefficients = true
    }
    info.decoderBuffers.rowBytes = saturating(saturating(features.width, 64), plus: 1 << 20)
    return (info, features)
  }

  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
    let container = try WebPContainer(bytes)
    let (info, features) = try info(bytes, container: container)
    try ImageCodec.checkLimits(info, options: options)
    let (width, height) = (features.width, features.height)
    var failure: CodecError? = nil
    let stored = Image.filling(ImageSize(width, height)) { buffer in
      do throws(CodecError) {
        try WebPLibrary.decodeRGBA(
          bytes, width: width, height: height,
          into: UnsafeMutableBufferPointer(start: buffer.base, count: width * height * 4))
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    let upright = stored.uprighted(exifOrientation: container.orientation)
    return DecodedImage(
      image: upright,
      details: ImageDetails(
        format: .webp, orientation: container.orientation, metadata: container.metadata,
        fullWidth: upright.width, fullHeight: upright.height, storedLossless: features.lossless))
  }

  /// Lossless when `options.lossless`, else lossy at `options.quality`; the metadata (already
  /// `ImageCodec.renderable`) in the extended format's chunks.
  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    guard image.width <= Self.maxSide, image.height <= Self.maxSide else {
      throw .encodingFailed(
        .webp, "\(image.width)x\(image.height) is larger than WebP's \(Self.maxSide) pixels a side")
    }
    guard EncodeOptions.qualityRange.contains(options.quality) else {
      throw .encodingFailed(.webp, "quality \(options.quality) is not in 1...100")
    }
    let encoded = try WebPLibrary.encode(image, lossless: options.lossless, quality: options.quality)
    return try WebPContainer.assemble(
      encoded, width: image.width, height: image.height, hasAlpha: !image.isOpaque, metadata: options.metadata
    )
  }

  /// EXIF and XMP read for their own findings, any other chunk holding a picture, and what
  /// follows the RIFF.
  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] {
    guard let container = try? WebPContainer(bytes) else { return [] }
    var out: [MetadataFinding] = []
    for chunk in container.chunks {
      switch chunk.fourCC {
      case "VP8 ", "VP8L", "ALPH", "VP8X", "ICCP": continue
      case "EXIF":
        var tiff = Array(bytes[chunk.data])
        if tiff.starts(with: "Exif\0\0".asciiBytes) { tiff.removeFirst(6) }
        out += EXIF.findings(in: tiff)
      case "XMP ": out += XMP.findings(in: Array(bytes[chunk.data]))
      default:
        if EmbeddedImage.isPresent(in: bytes[chunk.data]) {
          out.append(.image("WebP", "'\(chunk.fourCC)' chunk"))
        }
      }
    }
    if EmbeddedImage.isPresent(in: bytes[container.trailing]) {
      out.append(.image("WebP", "data after the end of the image"))
    }
    return out
  }
}
