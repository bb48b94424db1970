import PhotoCore

/// TIFF (and BigTIFF) in the format registry: libtiff reads the file from memory and converts
/// the image to RGBA, and writes renders (TIFFLibrary); the metadata is read in Swift from the
/// file's own directories (EXIF.Reader: classic TIFF only) and through libtiff (ICC, XMP,
/// Photoshop resources).
///
/// One image per file: a TIFF whose directory chain holds more than one full-resolution image
/// (a multi-page document) is refused, never cut to its first page. Reduced-resolution images
/// (NewSubfileType bit 0: thumbnails, previews) in the chain or in SubIFDs are never decoded
/// nor carried. Camera raws (DNG, CR2, NEF...) are TIFF structures too: they are known by their
/// extension before anything is read (`UnreadablePhotoFormat`), and a DNG named otherwise by its
/// DNGVersion tag.
///
/// A render is 8-bit RGB, or RGBA with unassociated alpha when it has transparent pixels,
/// compressed losslessly with Deflate and the horizontal predictor, whatever the original's
/// compression; it carries the ICC profile, the XMP, the Photoshop resources (IPTC) and the
/// EXIF (IFD0's tags, the Exif and GPS IFDs; never a MakerNote) as a JPEG render does
/// (docs/formats.md, "TIFF").
struct TIFFFormat: FormatCodec {
  var format: ImageFormat { .tiff }
  var name: String { "TIFF" }
  var extensions: [String] { ["tif", "tiff"] }
  var capabilities: FormatCapabilities {
    FormatCapabilities(alpha: true, bitDepths: [1, 2, 4, 8, 16], writable: true, lossy: false)
  }
  var metadataCarriers: [String] {
    ["IFD0 tags", "Exif IFD", "GPS IFD", "ICC (34675)", "XMP (700)", "Photoshop/IPTC (34377)"]
  }

  /// The most directories of the chain walked (thumbnails and pages together).
  static let maxDirectories = 64

  /// The byte orders' signatures, classic (42) and BigTIFF (43).
  static let signatures: [[UInt8]] = [
    [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B],
  ]

  func sniff(_ bytes: [UInt8]) -> SignatureMatch {
    guard Self.signatures.contains(where: { bytes.starts(with: $0) }) else { return .none }
    // The header: 8 bytes (16 for BigTIFF).
    return bytes.count >= (bytes[2] == 0x2B || bytes[3] == 0x2B ? 16 : 8) ? .matches : .truncated
  }

  /// The image's directory and what reading it costs, the file open.
  private func open<R>(
    _ bytes: [UInt8], maxAllocation: Int,
    _ body: (OpaquePointer, TIFFLibrary.Messages, TIFFLibrary.Directory, ImageInfo) throws(CodecError) -> R
  ) throws(CodecError) -> R {
    try TIFFLibrary.withFile(bytes, maxAllocation: maxAllocation) { tif, messages throws(CodecError) in
      let full = try TIFFLibrary.fullImages(tif, messages, limit: Self.maxDirectories)
      guard let first = full.first else {
        throw .unsupported("TIFF holding reduced-resolution images only (no full-size image)")
      }
      if full.count > 1 { throw .unsupported("multi-page TIFF") }
      try TIFFLibrary.select(tif, messages, directory: first)
      let d = TIFFLibrary.directory(tif)
      if d.isDNG { throw .unreadableFormat("DNG") }
      guard d.width > 0, d.height > 0 else {
        throw .corruptData(.tiff, "the image is \(d.width)x\(d.height)")
      }
      let turned = d.orientation >= 5
      var info = ImageInfo(
        format: .tiff, width: turned ? d.height : d.width, height: turned ? d.width : d.height,
        orientation: d.orientation)
      // One strip or tile (a plane each when planes are separate), the 16-bit and colour
      // tables, a codec's working memory.
      info.decoderBuffers.rowBytes = saturating(d.blockBytes, plus: 1 << 20)
      return try body(tif, messages, d, info)
    }
  }

  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    try open(bytes, maxAllocation: DecodeOptions.defaultMaxMemoryBytes) { _, _, _, info in info }
  }

  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
    try open(bytes, maxAllocation: options.maxMemoryBytes) { tif, messages, d, info throws(CodecError) in
      try ImageCodec.checkLimits(info, options: options)
      var failure: CodecError? = nil
      let stored = Image.filling(ImageSize(d.width, d.height)) { buffer in
        do throws(CodecError) {
          try TIFFLibrary.decodeRGBA(
            tif, messages, width: d.width, height: d.height,
            into: UnsafeMutableBufferPointer(start: buffer.base, count: d.width * d.height * 4))
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
      var metadata = ImageMetadata()
      metadata.exif = Self.exif(bytes)
      metadata.icc = TIFFLibrary.bytesField(tif, TIFFLibrary.iccTag)
      metadata.xmp = TIFFLibrary.bytesField(tif, TIFFLibrary.xmpTag)
      metadata.photoshop = TIFFLibrary.bytesField(tif, TIFFLibrary.photoshopTag)
      let upright = stored.uprighted(exifOrientation: d.orientation)
      return DecodedImage(
        image: upright,
        details: ImageDetails(
          format: .tiff, orientation: d.orientation, metadata: metadata.rendered(keepingMakerNote: true),
          fullWidth: upright.width, fullHeight: upright.height,
          storedLossless: d.compression != 6 && d.compression != 7))
    }
  }

  /// IFD0's tags a TIFF's EXIF keeps: a render's (`EXIF.renderedIFD0`) but those that describe
  /// how the TIFF stores its pixels (sizes, bits, compression, photometric, samples, planes,
  /// YCbCr coding), which would be false of a render in another format.
  static let exifRules: EXIF.Rules = {
    var rules = EXIF.renderRules
    for tag in [0x0100, 0x0101, 0x0102, 0x0103, 0x0106, 0x0115, 0x011C, 0x0211, 0x0212, 0x0213, 0x0214] {
      rules.ifd0[tag] = nil
    }
    return rules
  }()

  /// A classic TIFF file is an EXIF structure: IFD0's descriptive tags, the Exif, GPS and
  /// Interoperability IFDs, rebuilt through `exifRules` (no MakerNote: its offsets point
  /// anywhere in the file). nil for BigTIFF (its EXIF is not read).
  static func exif(_ bytes: [UInt8]) -> [UInt8]? { EXIF.rebuilt(bytes, keeping: exifRules) }

  /// 8 bits, Deflate; the ICC profile, the XMP, the Photoshop resources and the EXIF (already
  /// `ImageCodec.renderable`;
  /// the EXIF's tags in the file's own directories, `attaching(_:to:)`, in its byte order).
  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    guard image.width > 0, image.height > 0, image.width <= Int(UInt32.max), image.height <= Int(UInt32.max)
    else { throw .encodingFailed(.tiff, "\(image.width)x\(image.height) pixels") }
    let tags = TIFFLibrary.Tags(
      icc: options.metadata.icc, xmp: options.metadata.xmp, photoshop: options.metadata.photoshop)
    guard let exif = options.metadata.exif, let order = EXIF.Reader(exif) else {
      return try TIFFLibrary.encode(image, tags: tags)
    }
    let render = try TIFFLibrary.encode(image, tags: tags, bigEndian: !order.littleEndian)
    return Self.attaching(exif, to: render) ?? render
  }

  /// The file's directories as an EXIF structure's (classic TIFF): IFD0's identifying tags, XMP,
  /// IPTC and Photoshop resources, the GPS and Exif IFDs, a second image in the chain (IFD1) and
  /// SubIFDs; the image's own strips are not a finding.
  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] {
    EXIF.findings(in: bytes, container: "TIFF", ownPixels: true)
  }
}
