import PhotoCore

// CONTRACT (owned by the codecs work; the signatures below are what Recipe and the CLI call).

/// The file formats photoedit reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
  case jpeg, png

  /// The format an output path's extension names (.jpg, .jpeg, .png; any case), or nil.
  public init?(pathExtension path: String) {
    let lower = path.lowercased()
    if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") {
      self = .jpeg
    } else if lower.hasSuffix(".png") {
      self = .png
    } else {
      return nil
    }
  }
}

/// JPEG chroma subsampling for encoding.
public enum ChromaSubsampling: String, Sendable, CaseIterable, Codable {
  case s444 = "444", s422 = "422", s420 = "420"
}

/// Metadata carried from an input to its renders. Thumbnails are never carried.
public struct ImageMetadata: Sendable, Equatable {
  /// The EXIF TIFF structure (after "Exif\0\0"), with orientation rewritten to 1 and IFD1 removed.
  public var exif: [UInt8]?
  /// The whole ICC profile (reassembled from APP2 segments, or decompressed from iCCP).
  public var icc: [UInt8]?
  /// The XMP packet.
  public var xmp: [UInt8]?
  /// The Photoshop APP13 resource block (IPTC), with thumbnail resources removed.
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

/// A decoded, upright image with what its file said about itself.
public struct DecodedImage: Sendable {
  /// Upright pixels: EXIF orientation already applied.
  public var image: Image
  public var format: ImageFormat
  /// The EXIF orientation the file had (1...8); the pixels are already upright.
  public var orientation: Int
  /// The JPEG's chroma subsampling, when it maps to one we can write; nil for PNG.
  public var subsampling: ChromaSubsampling?
  public var metadata: ImageMetadata
  /// Harmless decoder warnings, one line each, for standard error.
  public var warnings: [String]
  /// The stored size before DCT scaling and orientation (pixels, upright).
  public var fullWidth: Int, fullHeight: Int
}

/// Options for decoding.
public struct DecodeOptions: Sendable {
  /// Refuse images with more pixels than this, checked from the header before any allocation.
  public var maxPixels: Int = 250_000_000
  /// When set, a JPEG is decoded with DCT-domain scaling to the smallest scale whose longest side
  /// is still at least this many pixels. PNG ignores it.
  public var minimumLongestSide: Int? = nil
  public init() {}
}

/// Options for encoding.
public struct EncodeOptions: Sendable {
  public var quality: Int = 90
  public var subsampling: ChromaSubsampling = .s420
  public var metadata = ImageMetadata()
  public init() {}
}

/// Decodes and encodes JPEG and PNG.
public enum ImageCodec {
  /// Decodes a whole file's bytes.
  public static func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions())
    throws(CodecError) -> DecodedImage
  {
    fatalError("not implemented")
  }

  /// Encodes an image; an image with any non-opaque pixel gets an alpha channel in PNG.
  public static func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions = EncodeOptions())
    throws(CodecError) -> [UInt8]
  {
    fatalError("not implemented")
  }
}

/// Why a file could not be decoded or encoded. `description` is one line, without the file name.
public enum CodecError: Error, Equatable, CustomStringConvertible {
  case message(String)
  public var description: String {
    switch self {
    case .message(let m): m
    }
  }
}
