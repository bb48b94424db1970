import PhotoCore

/// JPEG chroma subsampling for encoding.
public enum ChromaSubsampling: String, Sendable, CaseIterable, Codable {
  case s444 = "444"
  case s422 = "422"
  case s420 = "420"
}

/// Metadata carried from an input to its renders, through an allow-list
/// (`ImageMetadata.rendered(keepingMakerNote:)`): no thumbnail, preview or other image is ever
/// carried.
public struct ImageMetadata: Sendable, Equatable {
  /// The EXIF TIFF structure (after "Exif\0\0"), rebuilt from its allowed tags
  /// (`EXIF.rendered`): orientation 1, no IFD1.
  public var exif: [UInt8]?
  /// The whole ICC profile (reassembled from APP2 segments, or decompressed from iCCP).
  public var icc: [UInt8]?
  /// The XMP packet, rebuilt from its allowed properties (`XMP.sanitized`).
  public var xmp: [UInt8]?
  /// The Photoshop APP13 resource block: its allowed resources (`PhotoshopResources.rendered`).
  public var photoshop: [UInt8]?
  /// COM segments.
  public var comments: [[UInt8]] = []
  /// PNG colour chunks to carry into PNG outputs unchanged, as (type, data): gAMA, cHRM, sRGB, iCCP.
  public var pngChunks: [(type: String, data: [UInt8])] = []

  public init() {}

  public static func == (a: ImageMetadata, b: ImageMetadata) -> Bool {
    a.exif == b.exif && a.icc == b.icc && a.xmp == b.xmp && a.photoshop == b.photoshop
      && a.comments == b.comments && a.pngChunks.map(\.type) == b.pngChunks.map(\.type)
      && a.pngChunks.map(\.data) == b.pngChunks.map(\.data)
  }
}

/// What a file said about itself besides its pixels.
public struct ImageDetails: Sendable, Equatable {
  public var format: ImageFormat
  /// The EXIF orientation the file had (1...8); decoded pixels are already upright.
  public var orientation: Int
  /// The JPEG's chroma subsampling, when it maps to one we can write; nil for PNG.
  public var subsampling: ChromaSubsampling?
  public var metadata: ImageMetadata
  /// Harmless decoder warnings, one line each, for standard error.
  public var warnings: [String]
  /// The full size in pixels before any DCT scaling, upright (orientation applied).
  public var fullWidth: Int, fullHeight: Int
  /// A JPEG's quality, estimated from its quantisation tables (1...100); nil for PNG.
  public var quality: Int?
  /// True when the file stores its pixels losslessly (a PNG, a lossless WebP): a WebP render of
  /// it is lossless too (docs/formats.md).
  public var storedLossless: Bool

  public init(
    format: ImageFormat, orientation: Int = 1, subsampling: ChromaSubsampling? = nil,
    metadata: ImageMetadata = ImageMetadata(), warnings: [String] = [], fullWidth: Int, fullHeight: Int,
    quality: Int? = nil, storedLossless: Bool = false
  ) {
    (self.format, self.orientation, self.subsampling, self.quality) = (
      format, orientation, subsampling, quality
    )
    self.storedLossless = storedLossless
    (self.metadata, self.warnings, self.fullWidth, self.fullHeight) = (
      metadata, warnings, fullWidth, fullHeight
    )
  }
}

/// A decoded, upright image with what its file said about itself.
public struct DecodedImage: Sendable {
  /// Upright pixels: EXIF orientation already applied.
  public var image: Image
  public var details: ImageDetails

  public init(image: Image, details: ImageDetails) { (self.image, self.details) = (image, details) }

  public var format: ImageFormat { details.format }
  public var orientation: Int { details.orientation }
  public var subsampling: ChromaSubsampling? { details.subsampling }
  public var metadata: ImageMetadata { details.metadata }
  public var warnings: [String] { details.warnings }
  public var fullWidth: Int { details.fullWidth }
  public var fullHeight: Int { details.fullHeight }
}

/// Options for decoding.
public struct DecodeOptions: Sendable {
  /// Refuse images with more pixels than this, checked from the header before any allocation.
  public var maxPixels: Int = DecodeOptions.defaultMaxPixels
  /// The default pixel limit: 250 megapixels.
  public static let defaultMaxPixels = 250_000_000
  /// Refuse files whose decoding would need more memory than this, in bytes (default 2 GiB):
  /// the decoder's own buffers, estimated from the header (`ImageCodec.decodeMemoryEstimate`)
  /// before any pixel memory is allocated.
  public var maxMemoryBytes: Int = DecodeOptions.defaultMaxMemoryBytes
  /// The default: the process's memory budget (`MemoryBudget.process.limit`, 2 GiB unless
  /// `--max-memory` says otherwise).
  public static var defaultMaxMemoryBytes: Int { MemoryBudget.process.limit }
  /// The budget a decode draws its memory from while it runs (the frame's part for as long as
  /// the decoded image lives): the process's, shared by every photo a batch works on at once.
  public var budget: MemoryBudget = .process
  /// When set, a JPEG is decoded with DCT-domain scaling to the smallest scale whose longest side
  /// is still at least this many pixels. PNG ignores it.
  public var minimumLongestSide: Int? = nil
  public init() {}
}

/// Options for encoding.
public struct EncodeOptions: Sendable {
  public var quality: Int
  public var subsampling: ChromaSubsampling
  public var metadata: ImageMetadata
  /// `.stripped` writes `metadata.removingIdentifying()` instead of `metadata`.
  public var metadataPolicy: MetadataPolicy
  /// True for a render that hides faces (a faceblur step): its metadata keeps no MakerNote, an
  /// opaque structure in which cameras keep previews of the original.
  public var hidesFaces: Bool
  /// WebP: write lossless instead of lossy at `quality` (JPEG and PNG ignore it).
  public var lossless: Bool = false
  /// JPEG quality: 1...100.
  public static let qualityRange = 1...100
  /// The quality of a render unless the command line or the sidecar says otherwise.
  public static let defaultQuality = 90

  public init(
    quality: Int = EncodeOptions.defaultQuality, subsampling: ChromaSubsampling = .s420,
    metadata: ImageMetadata = ImageMetadata(),
    metadataPolicy: MetadataPolicy = .kept, hidesFaces: Bool = false
  ) {
    (self.quality, self.subsampling, self.metadata) = (quality, subsampling, metadata)
    (self.metadataPolicy, self.hidesFaces) = (metadataPolicy, hidesFaces)
  }
}

/// What a file's header says about it, read without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
  public var format: ImageFormat
  /// Upright size in pixels (EXIF orientation applied to the stored size).
  public var width: Int, height: Int
  /// The EXIF orientation the file has (1...8; a PNG's comes from its eXIf chunk, else 1).
  public var orientation: Int
  /// What the decoder keeps besides the frame, in bytes (see `ImageCodec.decodeMemoryEstimate`).
  public var decoderBuffers = DecoderBuffers()

  public init(format: ImageFormat, width: Int, height: Int, orientation: Int) {
    (self.format, self.width, self.height, self.orientation) = (format, width, height, orientation)
  }
}

/// The buffers a decoder allocates besides the RGBA frame, sized from a file's header.
public struct DecoderBuffers: Sendable, Equatable {
  /// libjpeg's whole-image buffer of DCT coefficients (2 bytes per coefficient, 64 per 8x8
  /// block of each component): held by a progressive JPEG or one with a scan per component, and
  /// by the damage scan of any JPEG. 0 for PNG.
  public var coefficientBytes = 0
  /// True when decoding holds `coefficientBytes` (progressive or multi-scan JPEG).
  public var holdsCoefficients = false
  /// The decoder's working rows: libpng's two rows at the widest pixel layout it goes through,
  /// libjpeg's MCU rows.
  public var rowBytes = 0
  public init() {}
}

/// Decodes and encodes the registry's formats (`FormatRegistry`): JPEG, PNG, HEIC, AVIF, WebP and
/// TIFF.
///
///     let decoded = try ImageCodec.decode(bytes)          // upright RGBA + metadata
///     var options = EncodeOptions()
///     options.metadata = decoded.metadata                 // EXIF, ICC, XMP, IPTC, comments
///     let jpeg = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
public enum ImageCodec {
  /// The format a file's first bytes name.
  ///
  /// - Throws: `.empty`, `.unreadableFormat` for a photo in a format photoedit does not read
  ///   (a GIF named `x.jpg`), `.notAnImage`, or `.truncated` when the file is shorter than a
  ///   signature.
  public static func format(of bytes: [UInt8]) throws(CodecError) -> ImageFormat {
    if bytes.isEmpty { throw .empty }
    var truncated: ImageFormat? = nil
    for codec in FormatRegistry.formats {
      switch codec.sniff(bytes) {
      case .matches: return codec.format
      case .truncated: truncated = truncated ?? codec.format
      case .none: break
      }
    }
    if let truncated { throw .truncated(truncated) }
    if let name = UnreadablePhotoFormat.name(ofSignature: bytes) { throw .unreadableFormat(name) }
    throw .notAnImage
  }

  /// Decodes a whole file's bytes to upright RGBA, with the metadata to carry into renders.
  ///
  /// The EXIF orientation is applied to the pixels (`Image.uprighted(exifOrientation:)`); the
  /// returned metadata has orientation 1 and no thumbnails. The pixel limit is checked from the
  /// header before any pixel memory is allocated. A JPEG with `options.minimumLongestSide` is
  /// decoded with DCT-domain scaling (1/8 ... 1/1).
  ///
  /// - Throws: `CodecError`; every case means the file is bad data (or too large).
  /// - Complexity: O(width × height).
  public static func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions())
    throws(CodecError) -> DecodedImage
  {
    let codec = try format(of: bytes).codec
    // The decoder's memory is drawn from the process's budget before it is allocated, and the
    // frame's stays drawn for as long as the image lives. A header that cannot be read draws
    // nothing: the decode then says what is wrong with it.
    // A decode over `maxMemoryBytes` on its own is refused by the codec, as it always was.
    guard let info = try? codec.readInfo(bytes),
      case let estimate = decodeMemoryEstimate(info, options: options), estimate <= options.maxMemoryBytes
    else { return try codec.decode(bytes, options: options) }
    let reservation = try reserve(estimate, options)
    var decoded = try codec.decode(bytes, options: options)
    reservation.shrink(to: decoded.image.bytes.count)
    decoded.image.memory = reservation
    return decoded
  }

  /// Draws `bytes` for decoding from `options.budget`, as a `CodecError`.
  static func reserve(_ bytes: Int, _ options: DecodeOptions) throws(CodecError) -> MemoryBudget.Reservation {
    do { return try options.budget.reserve(bytes, for: "decoding") } catch {
      if error.heldByOthers == 0 && error.heldByAsker == 0 {
        throw .memoryBudgetExceeded(estimate: error.needed, budget: error.limit)
      }
      throw .memoryBudgetShared(error)
    }
  }

  /// Reads the format, upright size, orientation and the decoder's buffers from the headers
  /// only: a JPEG's segments up to its first scan, a PNG's chunks up to its first IDAT. No
  /// pixels are decoded, so this is cheap enough to call on every file of a folder.
  ///
  /// - Throws: `CodecError` when the header itself is missing or damaged.
  public static func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo {
    try format(of: bytes).codec.readInfo(bytes)
  }

  /// Renders carry only the metadata of the allow-lists (`ImageMetadata.rendered`: never an
  /// image besides their own pixels, orientation 1), whoever built the metadata; without a
  /// MakerNote when `options.hidesFaces`; with `.stripped`, without identifying metadata either.
  /// Every encode (whole, streamed or lossless) goes through here.
  static func renderable(_ options: EncodeOptions) -> ImageMetadata {
    renderable(options.metadata, policy: options.metadataPolicy, hidesFaces: options.hidesFaces)
  }

  /// As `renderable(_:)`, for metadata, a policy and whether the render hides faces.
  static func renderable(_ metadata: ImageMetadata, policy: MetadataPolicy, hidesFaces: Bool) -> ImageMetadata
  {
    let metadata = policy == .stripped ? metadata.removingIdentifying() : metadata
    return metadata.rendered(keepingMakerNote: !hidesFaces)
  }

  /// Encodes an image; an image with any non-opaque pixel gets an alpha channel in PNG.
  ///
  /// JPEG: `tjCompress2` at `options.quality` and `options.subsampling`, followed by the
  /// metadata segments of `renderable` (EXIF with orientation 1 and no thumbnail, XMP, ICC over
  /// as many APP2 segments as needed, Photoshop/IPTC, comments). PNG: 8-bit RGB or RGBA
  /// with the PNG colour chunks (gAMA, cHRM, sRGB, iCCP) or an iCCP made from the ICC profile.
  /// With `options.metadataPolicy` `.stripped`, the metadata is first
  /// `ImageMetadata.removingIdentifying()`.
  ///
  /// - Complexity: O(width × height).
  public static func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions())
    throws(CodecError) -> [UInt8]
  {
    var options = options
    options.metadata = renderable(options)
    return try format.codec.encode(image, options: options)
  }
}
