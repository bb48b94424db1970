/// Photo formats photoedit knows but cannot read yet (GIF, BMP, JPEG XL, JPEG 2000, camera raws,
/// HEIF and AVIF image sequences): a folder walk counts each such file as skipped instead of
/// passing over it in silence (its faces would stay unhidden), and naming one is refused with its
/// format's name.
///
/// A file is known by its first bytes (`name(ofSignature:)`, at most `signatureLength` of them),
/// or by its extension (`name(of:)`): camera raws are TIFF inside, so their extension names them.
public enum UnreadablePhotoFormat {
  /// The most bytes `name(ofSignature:)` looks at: read no more than this from a file.
  public static let signatureLength = 64

  /// Camera raw formats, by extension (any case): most are TIFF structures, so the signature
  /// alone would call them TIFF, which photoedit reads; their extension keeps them unread.
  static let raws: Set<String> = ["cr2", "cr3", "nef", "arw", "dng", "raf", "orf", "rw2"]

  /// The other formats' extensions, for a file too short or too damaged to show a signature.
  static let names: [String: String] = [
    "gif": "GIF", "bmp": "BMP", "jxl": "JPEG XL", "jp2": "JPEG 2000",
  ]

  /// The format `name`'s extension (any case) names, else nil: `CR2` for `IMG_1.cr2`, `GIF`
  /// for `IMG_2.GIF`.
  public static func name(of path: String) -> String? {
    guard let ext = pathExtension(path) else { return nil }
    return raws.contains(ext) ? ext.uppercased() : names[ext]
  }

  /// The format a file is, from its name and its first bytes (`signatureLength` of them are
  /// enough), or nil when it is not one of these: a camera raw's extension first, then the
  /// signature, then any other extension of the list. A file whose bytes are in a format
  /// photoedit reads (`FormatRegistry`) is never one of these, whatever its name.
  public static func name(of path: String, firstBytes bytes: [UInt8]) -> String? {
    if let ext = pathExtension(path), raws.contains(ext) { return ext.uppercased() }
    if let signed = name(ofSignature: bytes) { return signed }
    if FormatRegistry.formats.contains(where: { $0.sniff(bytes) == .matches }) { return nil }
    return name(of: path)
  }

  /// The format whose signature the bytes start with, else nil. Only signatures that ordinary
  /// text or other files do not start with count: a BMP's `BM` must be followed by a plausible
  /// header, an ISO base media file's `ftyp` by an image brand (a video's does not count).
  public static func name(ofSignature bytes: [UInt8]) -> String? {
    func starts(_ text: String, at offset: Int = 0) -> Bool { bytes.hasBytes(Array(text.utf8), at: offset) }
    if starts("GIF87a") || starts("GIF89a") { return "GIF" }
    if bytes.starts(with: [0xFF, 0x0A]) { return "JPEG XL" }
    if bytes.starts(with: [0, 0, 0, 0x0C]) && starts("JXL ", at: 4) { return "JPEG XL" }
    if bytes.starts(with: [0, 0, 0, 0x0C]) && starts("jP  ", at: 4) { return "JPEG 2000" }
    if isBMP(bytes) { return "BMP" }
    if starts("ftyp", at: 4) { return isoBrand(bytes) }
    return nil
  }

  /// `BM`, then the file size, two reserved zero fields, the pixel data's offset, and one of the
  /// DIB header sizes BMP files use.
  static func isBMP(_ b: [UInt8]) -> Bool {
    guard b.count >= 18, b[0] == UInt8(ascii: "B"), b[1] == UInt8(ascii: "M") else { return false }
    func le32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
    let headerSize = le32(14)
    return le32(6) == 0 && le32(10) >= 14 + headerSize
      && [12, 16, 40, 52, 56, 64, 108, 124].contains(headerSize)
  }

  /// The image format an ISO base media file's `ftyp` box names that photoedit does not read:
  /// CR3 (a compatible brand), an AVIF or HEIF image sequence (`HEIFFormat.kind(ofBrands:)`);
  /// nil for a still HEIC or AVIF, a video or anything else.
  static func isoBrand(_ b: [UInt8]) -> String? {
    let size = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
    guard size >= 16 else { return nil }
    var brands: [String] = []
    // The major brand at 8, the minor version at 12, compatible brands from 16.
    for offset in [8] + Array(stride(from: 16, to: min(size, b.count) - 3, by: 4)) where offset + 4 <= b.count
    {
      brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
    }
    if brands.contains("crx ") { return "CR3" }
    if case .sequence(let name) = HEIFFormat.kind(ofBrands: b) { return name }
    return nil
  }

  /// The extension of a path's last component, lowercased, or nil.
  static func pathExtension(_ path: String) -> String? {
    guard let dot = path.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
    let ext = String(path[path.index(after: dot)...]).lowercased()
    return ext.contains("/") ? nil : ext
  }
}
