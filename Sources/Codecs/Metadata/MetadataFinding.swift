/// Something a file's bytes reveal besides its own pixels, as `photoedit audit` reports it: a
/// picture hidden in its metadata, or a field that identifies a person, a device or a place.
///
/// The rules are the ones renders follow (docs/codecs.md): an embedded image is anything the
/// render allow-list drops because it holds pixels (EXIF's IFD1, XMP thumbnails, Photoshop's
/// thumbnails, IPTC previews, MPF, FlashPix, JFIF and JFXX thumbnails, data after the end of the
/// image, any value with an image signature or long base64 in it); identifying metadata is what
/// `--strip-identifying` drops because it says who, with what or where (GPS, serial numbers,
/// names, free text, XMP locations and history, maker notes). So a render made with
/// `--strip-identifying` has no finding.
public struct MetadataFinding: Sendable, Hashable {
  public enum Kind: String, Sendable {
    /// A picture besides the file's own pixels (docs/codecs.md, "Metadata carried into renders").
    case embeddedImage = "embedded-image"
    /// A field that identifies a person, a device or a place.
    case metadata
  }

  public var kind: Kind
  /// Where it is: `EXIF`, `XMP`, `IPTC`, `Photoshop`, `JPEG`, `PNG`, `extended XMP`...
  public var container: String
  /// What it is: a tag's name (`GPSLatitude`, `BodySerialNumber`, `dc:creator`, `By-line (2:80)`)
  /// or an embedded picture's kind (`thumbnail (IFD1)`, `MPF`).
  public var name: String

  public init(_ kind: Kind, _ container: String, _ name: String) {
    (self.kind, self.container, self.name) = (kind, container, name)
  }

  static func image(_ container: String, _ name: String) -> MetadataFinding {
    .init(.embeddedImage, container, name)
  }
  static func tag(_ container: String, _ name: String) -> MetadataFinding {
    .init(.metadata, container, name)
  }
}

extension ImageCodec {
  /// What a photo's metadata reveals, each finding once, in file order: read from the
  /// file's own bytes (every segment or chunk, and what follows the end of the image), not from
  /// the metadata a decode keeps. A structure that cannot be read is skipped where it cannot be
  /// walked (the decode says whether the file is an image at all).
  ///
  /// - Complexity: O(size), with XMP's parse bounds (`XMLTree`) and PNG's inflate budget.
  public static func metadataFindings(in bytes: [UInt8]) -> [MetadataFinding] {
    guard let format = try? format(of: bytes) else { return [] }
    let found = format.codec.metadataFindings(in: bytes)
    var seen: Set<MetadataFinding> = []
    return found.filter { seen.insert($0).inserted }
  }
}

extension ArraySlice<UInt8> {
  /// True when the bytes hold something besides NULs and spaces (an empty name says nothing).
  var saysSomething: Bool { contains { $0 != 0 && $0 != 0x20 } }
}
