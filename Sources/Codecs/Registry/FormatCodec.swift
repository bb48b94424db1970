import PhotoCore

/// What a format can hold and how photoedit writes it: the store and the CLI ask these instead
/// of naming formats.
public struct FormatCapabilities: Sendable, Equatable {
  /// The format stores transparency (a render with transparent pixels keeps them; a format
  /// without is laid over the steps' fill colour, else white).
  public var alpha: Bool
  /// The bit depths per channel photoedit reads; every decode gives 8 bits (docs/formats.md).
  public var bitDepths: [Int]
  /// photoedit writes it: an output's extension may name it, and a photo in it is rendered in
  /// place in its own format.
  public var writable: Bool
  /// Its encoding is lossy, with a quality (`--quality`, 1...100).
  public var lossy: Bool
  /// Its encoding has a chroma subsampling (`--subsampling`).
  public var subsampling: Bool
  /// Local edits can keep the original's compressed data outside them (JPEG's blocks): the
  /// store's lossless route.
  public var losslessRoute: Bool
  /// Its encoder writes lossless when `EncodeOptions.lossless` asks (WebP); others ignore it.
  public var losslessOption: Bool

  public init(
    alpha: Bool, bitDepths: [Int], writable: Bool, lossy: Bool, subsampling: Bool = false,
    losslessRoute: Bool = false, losslessOption: Bool = false
  ) {
    (self.alpha, self.bitDepths, self.writable, self.lossy) = (alpha, bitDepths, writable, lossy)
    (self.subsampling, self.losslessRoute, self.losslessOption) = (subsampling, losslessRoute, losslessOption)
  }
}

/// What a format's first bytes say.
public enum SignatureMatch: Sendable, Equatable {
  /// The bytes start with the format's signature.
  case matches
  /// The bytes are a beginning of the signature, too short to be a file of the format.
  case truncated
  /// Another format, or none.
  case none
}

/// A band-by-band writer of a format (`PixelSink`) and how to get its bytes once every band
/// is written.
public struct FormatSink {
  public let sink: any PixelSink
  public let finish: () throws(CodecError) -> [UInt8]

  public init(_ sink: any PixelSink, finish: @escaping () throws(CodecError) -> [UInt8]) {
    (self.sink, self.finish) = (sink, finish)
  }
}

/// One file format: its names, how it is recognised, read and written. Each format is a
/// folder of Codecs (`JPEG/`, `PNG/`, `WebP/`) with one type conforming to this, listed once in
/// `FormatRegistry.formats` (docs/contributing.md, "Adding a format").
public protocol FormatCodec: Sendable {
  /// The registry's name for it, which sidecars record.
  var format: ImageFormat { get }
  /// Its name in messages: "JPEG", "WebP".
  var name: String { get }
  /// Its file extensions, lowercase, without the dot, the usual one first.
  var extensions: [String] { get }
  var capabilities: FormatCapabilities { get }
  /// Where it keeps metadata, for documentation and `photoedit audit`'s containers: "EXIF
  /// (APP1)", "iCCP"...
  var metadataCarriers: [String] { get }

  /// Whether `bytes` (a file's first bytes, or all of them) are in this format.
  func sniff(_ bytes: [UInt8]) -> SignatureMatch
  /// The upright size, orientation and decoder buffers, from the headers only (cheap enough
  /// for every file of a folder).
  func readInfo(_ bytes: [UInt8]) throws(CodecError) -> ImageInfo
  /// The upright RGBA pixels and what the file says of itself, the limits checked from the
  /// header before any pixel memory is allocated.
  func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> DecodedImage
  /// Calls `body` with the photo as the planner's source, or with nil when the format (or this
  /// file) cannot be decoded a pass at a time.
  func withSource<R>(_ bytes: [UInt8], options: DecodeOptions, _ body: (PhotoSource?) throws -> R) throws -> R
  /// The file of `image` (metadata already `ImageCodec.renderable`). Only writable formats.
  func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8]
  /// A band-by-band writer for an output of `size` whose pixels are `opacity`; pixels that are
  /// not opaque are laid over `fill` by formats without alpha. nil when the format is written
  /// whole only.
  func sink(size: ImageSize, opacity: Opacity, fill: RGBA, options: EncodeOptions) throws(CodecError)
    -> FormatSink?
  /// What the file's metadata reveals (`photoedit audit`), read from its own bytes.
  func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding]
  /// True when `sink` gives a band-by-band writer (now: the environment can change it).
  var writesBands: Bool { get }
}

extension FormatCodec {
  public var writesBands: Bool { false }

  public func withSource<R>(_ bytes: [UInt8], options: DecodeOptions, _ body: (PhotoSource?) throws -> R)
    throws
    -> R
  {
    try body(nil)
  }

  public func sink(size: ImageSize, opacity: Opacity, fill: RGBA, options: EncodeOptions) throws(CodecError)
    -> FormatSink?
  {
    nil
  }

  public func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    throw .encodingFailed(format, "photoedit does not write \(name)")
  }
}

/// The formats photoedit reads, in the order their signatures are tried. Adding a format is
/// one line here and one folder of Codecs.
public enum FormatRegistry {
  public static let formats: [any FormatCodec] = [
    JPEGFormat(), PNGFormat(), HEIFFormat(format: .heic), HEIFFormat(format: .avif), WebPFormat(),
    TIFFFormat(),
  ]

  /// The codec of a registered format.
  static func codec(_ format: ImageFormat) -> any FormatCodec {
    // Every `ImageFormat` is made from a registry entry (`init(registering:)`, or
    // `init?(rawValue:)`, which checks).
    formats.first { $0.format == format }!
  }

  /// Every extension of every format read (`-r` walks find these), lowercase.
  public static var extensions: [String] { formats.flatMap(\.extensions) }

  /// ".jpg, .jpeg, .png or .webp": the extensions an output may end in, for messages.
  public static var writableExtensions: String {
    list(ImageFormat.writable.flatMap(\.codec.extensions).map { ".\($0)" }, and: "or")
  }

  /// "JPEG, PNG, HEIC, AVIF and WebP": the formats photoedit reads, for messages.
  public static var readableNames: String { list(formats.map(\.name), and: "and") }

  /// Items joined with commas and a last `and`/`or`.
  static func list(_ items: [String], and word: String) -> String {
    items.count < 2
      ? items.joined() : items.dropLast().joined(separator: ", ") + " \(word) " + items.last!
  }
}
