import PhotoCore

/// HEIC and AVIF in the format registry: two entries sharing libheif (HEIFLibrary). The
/// `ftyp` box's brands tell them apart (in Swift, `HEIFFormat.kind(ofBrands:)`); libheif reads
/// the boxes, decodes the primary image (a grid whole, its alpha image as alpha) and writes.
///
/// The primary image only: thumbnails, depth maps, other auxiliary images and other top-level
/// images are never decoded nor carried into a render (`photoedit audit` reports them). Its
/// orientation is HEIF's transforms (`irot`, `imir`, `clap`), applied by libheif; an EXIF
/// Orientation inside the file is not applied on top (docs/formats.md). A render is always lossy,
/// at the render's quality (x265 at `HEIFFormat.heicSettings`, aom at `avifSettings`).
struct HEIFFormat: FormatCodec {
  let format: ImageFormat

  var name: String { format == .avif ? "AVIF" : "HEIC" }
  var extensions: [String] { format == .avif ? ["avif"] : ["heic", "heif", "hif"] }
  var capabilities: FormatCapabilities {
    FormatCapabilities(alpha: true, bitDepths: [8, 10, 12], writable: true, lossy: true)
  }
  var metadataCarriers: [String] { ["Exif item", "mime item (XMP)", "colr (ICC)"] }

  /// x265's settings for HEIC renders: its `medium` preset (libheif's default is `slow`; at
  /// 15.9 MP the two took 655 s and 678 s here under heavy contention: docs/formats.md).
  static let heicSettings = [("preset", "medium")]
  /// aom's for AVIF renders: speed 6 (libheif's default; its 4 threads too).
  static let avifSettings = [("speed", "6")]

  /// What an `ftyp` box's brands name.
  enum Brands: Equatable {
    /// A still image (its major brand, or `mif1`/`miaf` with a compatible brand saying which).
    case still(ImageFormat)
    /// An image sequence (`avis`, `msf1`, `hevc`...): photoedit reads stills only.
    case sequence(String)
    /// The bytes end before the brands.
    case truncated
    /// Not an ISO base media file of images.
    case none
  }

  /// HEIF's still-image brands (ISO/IEC 23008-12), and the sequences'.
  static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis"]
  static let sequenceBrands: [String: String] = [
    "avis": "AVIF image sequence", "msf1": "HEIF image sequence", "hevc": "HEIF image sequence",
    "hevx": "HEIF image sequence", "hevm": "HEIF image sequence", "hevs": "HEIF image sequence",
  ]

  /// The kind of file an `ftyp` box at the start of `bytes` names: its major brand first (a
  /// sequence's major brand makes it a sequence, whatever else it is compatible with), then the
  /// compatible brands for a generic `mif1`/`miaf` one.
  static func kind(ofBrands bytes: [UInt8]) -> Brands {
    guard bytes.count >= 12 else {
      return bytes.count >= 8 && bytes.hasBytes(Array("ftyp".utf8), at: 4) ? .truncated : .none
    }
    guard bytes.hasBytes(Array("ftyp".utf8), at: 4) else { return .none }
    let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
    func brand(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
    let major = brand(8)
    var compatible: [String] = []
    var offset = 16
    while offset + 4 <= min(size, bytes.count) {
      compatible.append(brand(offset))
      offset += 4
    }
    if let sequence = sequenceBrands[major] { return .sequence(sequence) }
    if major == "avif" { return .still(.avif) }
    if heicBrands.contains(major) { return .still(.heic) }
    guard major == "mif1" || major == "miaf" else { return .none }
    if compatible.contains("avif") { return .still(.avif) }
    return .still(.heic)
  }

  func sniff(_ bytes: [UInt8]) -> SignatureMatch {
    switch Self.kind(ofBrands: bytes) {
    case .still(let kind): kind == format ? .matches : .none
    case .truncated: format == .heic ? .truncated : .none
    case .sequence, .none: .none
    }
  }

  /// libheif's side limit: no more than the pixel limit, nor than its own default (32768).
  static func maxSide(_ options: DecodeOptions) -> Int { min(options.maxPixels, 1 << 15) }

  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    try HEIFLibrary.withPrimary(bytes, format: format, maxSide: Self.maxSide(DecodeOptions())) {
      _, primary throws(CodecError) in info(primary)
    }
  }

  /// The upright size (libheif's, transforms applied: orientation 1) and libheif's buffers: the
  /// decoded planes (of the coded size, `ispe`, counted as 4:4:4 with alpha, 1 byte a sample, 2
  /// above 8 bits or when unknown: `allowance`), a second set while a transform turns them, and its interleaved RGBA image, which photoedit copies.
  private func info(_ primary: HEIFLibrary.Primary) -> ImageInfo {
    var info = ImageInfo(format: format, width: primary.width, height: primary.height, orientation: 1)
    let pixels = primary.codedPixels
    let sampleBytes = Self.sampleBytes(primary)
    info.decoderBuffers.coefficientBytes = saturating(
      saturating(pixels, 4, sampleBytes, 2), plus: saturating(pixels, 4))
    info.decoderBuffers.holdsCoefficients = true
    info.decoderBuffers.rowBytes = 1 << 20
    return info
  }

  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage {
    try HEIFLibrary.withPrimary(bytes, format: format, maxSide: Self.maxSide(options)) {
      handle, primary throws(CodecError) in
      try ImageCodec.checkLimits(info(primary), options: options)
      try checkDerivedCanvases(bytes, primary)
      let (width, height) = (primary.width, primary.height)
      var failure: CodecError? = nil
      var decoded = (width: width, height: height)
      var image = Image.filling(ImageSize(width, height)) { buffer in
        do throws(CodecError) {
          decoded = try HEIFLibrary.decodeRGBA(
            handle, format: format, width: width, height: height, allowance: Self.allowance(primary),
            into: UnsafeMutableBufferPointer(start: buffer.base, count: width * height * 4))
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
      if decoded.width != width {
        image = Image(width: decoded.width, height: decoded.height, bytes: image.bytes)
      }
      return DecodedImage(
        image: image,
        details: ImageDetails(
          format: format, metadata: Self.metadata(primary), fullWidth: decoded.width,
          fullHeight: decoded.height))
    }
  }

  /// Bytes a sample of the decoder's planes: 1 at 8 bits, 2 above (or when unknown).
  private static func sampleBytes(_ primary: HEIFLibrary.Primary) -> Int {
    let bits = max(primary.lumaBits, primary.chromaBits)
    return bits > 8 || bits <= 0 ? 2 : 1
  }

  /// What the decoders may hold for the coded pictures of one decode (`HEIFDecodeGuard`): the
  /// header's coded pixels as 4 planes (4:4:4 with alpha; a 4:2:0 picture needs 1.5, so a
  /// grid's tiles may overhang its canvas), plus 64 KiB for the coding blocks' rounding of a
  /// tiny image. Part of the decode's memory estimate (`info`).
  static func allowance(_ primary: HEIFLibrary.Primary) -> Int {
    saturating(saturating(primary.codedPixels, 4, sampleBytes(primary)), plus: 64 << 10)
  }

  /// Refuses a file with a derived image (`grid`, `iovl`) whose canvas holds more pixels than
  /// the header's coded size: libheif allocates the canvas the item data says, unchecked
  /// against `ispe`.
  private func checkDerivedCanvases(_ bytes: [UInt8], _ primary: HEIFLibrary.Primary) throws(CodecError) {
    guard let canvases = HEIFItems.derivedCanvases(bytes) else {
      throw .corruptData(format, "the size of a derived image (grid or overlay) cannot be read")
    }
    for canvas in canvases where saturating(canvas.width, canvas.height) > primary.codedPixels {
      throw .corruptData(
        format,
        "its \(canvas.type) image is \(canvas.width)x\(canvas.height), larger than its header's "
          + "\(primary.width)x\(primary.height)")
    }
  }

  /// The metadata a HEIF gives its renders, through the allow-list as a JPEG's: its EXIF's
  /// orientation becomes 1 there (the transforms rule the pixels).
  static func metadata(_ primary: HEIFLibrary.Primary) -> ImageMetadata {
    var metadata = ImageMetadata()
    metadata.exif = primary.exif
    metadata.icc = primary.icc
    metadata.xmp = primary.xmp
    return metadata.rendered(keepingMakerNote: true)
  }

  /// Lossy at `options.quality` (`options.lossless` is not offered: `losslessOption` is false);
  /// the metadata (already `ImageCodec.renderable`) in the file's items.
  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    guard EncodeOptions.qualityRange.contains(options.quality) else {
      throw .encodingFailed(format, "quality \(options.quality) is not in 1...100")
    }
    let side = Self.maxSide(DecodeOptions())
    guard image.width <= side, image.height <= side else {
      throw .encodingFailed(format, "\(image.width)x\(image.height) is larger than \(side) pixels a side")
    }
    return try HEIFLibrary.encode(
      image, format: format, quality: options.quality,
      settings: format == .avif ? Self.avifSettings : Self.heicSettings, metadata: options.metadata)
  }

  /// EXIF and XMP read for their own findings, and every picture besides the primary image's
  /// own: thumbnails, depth maps, auxiliary and other top-level images.
  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] {
    let primary = try? HEIFLibrary.withPrimary(bytes, format: format, maxSide: Self.maxSide(DecodeOptions()))
    {
      _, primary throws(CodecError) in primary
    }
    guard let primary else { return [] }
    var out = primary.otherImages.map { MetadataFinding.image(name, $0) }
    if let exif = primary.exif { out += EXIF.findings(in: exif) }
    if let xmp = primary.xmp { out += XMP.findings(in: xmp) }
    return out
  }
}
