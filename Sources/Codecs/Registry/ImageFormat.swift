/// A file format photoedit reads (and, for most, writes): a name from the registry
/// (`FormatRegistry.formats`). `.jpeg`, `.png` and `.webp` are its entries; what each can do is
/// in its `codec` (`FormatCodec`), so code asks `format.capabilities` instead of switching on
/// formats.
///
/// The raw value is what sidecars record (`render.format`): `jpeg`, `png`, `webp`.
public struct ImageFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  public let rawValue: String

  /// The registered format of that name, else nil.
  public init?(rawValue: String) {
    guard FormatRegistry.formats.contains(where: { $0.format.rawValue == rawValue }) else { return nil }
    self.rawValue = rawValue
  }

  /// A registry entry's name (each codec names its own format once).
  init(registering name: String) { rawValue = name }

  public static let jpeg = ImageFormat(registering: "jpeg")
  public static let png = ImageFormat(registering: "png")
  public static let webp = ImageFormat(registering: "webp")
  public static let heic = ImageFormat(registering: "heic")
  public static let avif = ImageFormat(registering: "avif")
  public static let tiff = ImageFormat(registering: "tiff")

  /// Every registered format, in the registry's order.
  public static var allCases: [ImageFormat] { FormatRegistry.formats.map(\.format) }

  /// The formats photoedit writes (an output's extension must name one).
  public static var writable: [ImageFormat] { allCases.filter(\.capabilities.writable) }

  /// The writable format an output path's extension names (any case: `.jpg`, `.jpeg`, `.png`,
  /// `.webp`), or nil.
  public init?(pathExtension path: String) {
    guard let ext = UnreadablePhotoFormat.pathExtension(path),
      let codec = FormatRegistry.formats.first(where: { $0.extensions.contains(ext) }),
      codec.capabilities.writable
    else { return nil }
    self = codec.format
  }

  /// The codec that reads and writes this format.
  public var codec: any FormatCodec { FormatRegistry.codec(self) }

  /// What the format can hold and how photoedit writes it.
  public var capabilities: FormatCapabilities { codec.capabilities }

  /// "JPEG", "PNG", "WebP", for messages.
  public var displayName: String { codec.name }

  public var description: String { rawValue }
}
