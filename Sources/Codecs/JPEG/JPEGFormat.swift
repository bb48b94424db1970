import PhotoCore

/// JPEG in the format registry: libjpeg-turbo's decoder and encoder (JPEGCodec, JPEGSource,
/// JPEGSink), the markers read in Swift (JPEGMarkers), and the lossless route (Lossless/).
struct JPEGFormat: FormatCodec {
  var format: ImageFormat { .jpeg }
  var name: String { "JPEG" }
  var extensions: [String] { ["jpg", "jpeg"] }
  var capabilities: FormatCapabilities {
    FormatCapabilities(
      alpha: false, bitDepths: [8], writable: true, lossy: true, subsampling: true, losslessRoute: true)
  }
  var metadataCarriers: [String] {
    ["EXIF (APP1)", "XMP (APP1)", "ICC (APP2)", "Photoshop/IPTC (APP13)", "comments (COM)"]
  }

  var writesBands: Bool { JPEGSink.isAvailable }

  func sniff(_ bytes: [UInt8]) -> SignatureMatch {
    if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 { return .matches }
    return bytes == [0xFF] ? .truncated : .none
  }

  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    ImageInfo(jpeg: try JPEGMarkers.parseHeader(bytes, metadata: false))
  }

  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
    let decoded = try JPEGCodec.decode(bytes, options: options)
    let header = decoded.header
    let turned = header.orientation >= 5
    return DecodedImage(
      image: decoded.image.uprighted(exifOrientation: header.orientation),
      details: ImageDetails(
        format: .jpeg, orientation: header.orientation, subsampling: header.subsampling,
        metadata: header.metadata, warnings: decoded.warnings,
        fullWidth: turned ? header.height : header.width,
        fullHeight: turned ? header.width : header.height, quality: header.quality))
  }

  func withSource<R>(_ bytes: [UInt8], options: DecodeOptions, _ body: (PhotoSource?) throws -> R) throws -> R
  {
    let header = try JPEGMarkers.parseHeader(bytes, metadata: true)
    let info = ImageInfo(jpeg: header)
    try ImageCodec.checkStreamLimits(info, options: options)
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
  }

  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    try JPEGCodec.encode(image, options: options)
  }

  /// Bands joined with restart markers, unless the environment changes TurboJPEG's output
  /// (`JPEGSink.isAvailable`).
  func sink(size: ImageSize, opacity: Opacity, fill: RGBA, options: EncodeOptions) throws(CodecError)
    -> FormatSink?
  {
    guard JPEGSink.isAvailable else { return nil }
    let jpeg = try JPEGSink(size: size, options: options, fill: opacity == .opaque ? nil : fill)
    return FormatSink(jpeg, finish: jpeg.finish)
  }

  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] { JPEGMarkers.findings(in: bytes) }
}
