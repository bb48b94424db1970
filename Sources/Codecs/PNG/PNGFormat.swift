import PhotoCore

/// PNG in the format registry: libpng through CPNGShim (PNGCodec, PNGSource, PNGSink), the
/// chunks read and written in Swift.
struct PNGFormat: FormatCodec {
  var format: ImageFormat { .png }
  var name: String { "PNG" }
  var extensions: [String] { ["png"] }
  var capabilities: FormatCapabilities {
    FormatCapabilities(alpha: true, bitDepths: [1, 2, 4, 8, 16], writable: true, lossy: false)
  }
  var metadataCarriers: [String] { ["eXIf", "iCCP", "iTXt (XMP)", "gAMA", "cHRM", "sRGB"] }

  var writesBands: Bool { true }

  func sniff(_ bytes: [UInt8]) -> SignatureMatch {
    if bytes.hasBytes(PNGCodec.signature, at: 0) { return .matches }
    return PNGCodec.signature.starts(with: bytes) ? .truncated : .none
  }

  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    ImageInfo(png: try PNGCodec.walk(bytes, full: false))
  }

  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
    let (image, structure) = try PNGCodec.decode(bytes, options: options)
    let upright = image.uprighted(exifOrientation: structure.orientation)
    return DecodedImage(
      image: upright,
      details: ImageDetails(
        format: .png, orientation: structure.orientation, metadata: Self.metadata(structure),
        fullWidth: upright.width, fullHeight: upright.height, storedLossless: true))
  }

  /// Non-interlaced PNGs only: libpng gives an interlaced one's rows after its last pass.
  func withSource<R>(_ bytes: [UInt8], options: DecodeOptions, _ body: (PhotoSource?) throws -> R) throws -> R
  {
    let structure = try PNGCodec.walk(bytes, full: true)
    let info = ImageInfo(png: structure)
    guard !structure.interlaced else { return try body(nil) }
    try ImageCodec.checkStreamLimits(info, options: options)
    let details = ImageDetails(
      format: .png, orientation: structure.orientation, metadata: Self.metadata(structure),
      fullWidth: info.width, fullHeight: info.height, storedLossless: true)
    return try bytes.withUnsafeBufferPointer { data in
      let source = PNGSource(data, structure: structure, hasTransparency: structure.mayHaveTransparency)
      return try body(PhotoSource(source: source, details: details))
    }
  }

  /// The metadata a PNG's chunks give its renders.
  static func metadata(_ structure: PNGCodec.Structure) -> ImageMetadata {
    var metadata = ImageMetadata()
    metadata.pngChunks = structure.colourChunks
    metadata.icc = structure.icc
    metadata.exif = structure.exif
    metadata.xmp = structure.xmp
    return metadata.rendered(keepingMakerNote: true)
  }

  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    try PNGCodec.encode(image, options: options)
  }

  /// RGB or RGBA as the pixels say (`opacity` must be known: the store holds the image when
  /// it is not).
  func sink(size: ImageSize, opacity: Opacity, fill: RGBA, options: EncodeOptions) throws(CodecError)
    -> FormatSink?
  {
    let png = try PNGSink(size: size, withAlpha: opacity == .transparent, options: options)
    return FormatSink(png, finish: png.finish)
  }

  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] { PNGCodec.findings(in: bytes) }
}
