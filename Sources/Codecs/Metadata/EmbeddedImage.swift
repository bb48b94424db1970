/// Finds pictures hidden inside metadata values: raw image files (a JPEG's SOI, PNG's, GIF's,
/// WebP's, JPEG 2000's or HEIF's signature, anywhere in the value) and base64 text of one.
///
/// The allow-lists (EXIF tags, XMP properties, Photoshop resources, IPTC datasets, comments)
/// keep only fields that hold no pixels by their definition; this check is the second line, for
/// a field that holds one anyway (a MakerNote with a preview, a caption that is base64 of a
/// JPEG). A value it flags is dropped whole.
enum EmbeddedImage {
  /// Image signatures found anywhere in a value. TIFF's ("II*\0", "MM\0*") is not one: every
  /// Nikon MakerNote starts with one; its previews are JPEGs, which are.
  static let signatures: [[UInt8]] = [
    [0xFF, 0xD8, 0xFF],  // JPEG (SOI, then any marker)
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],  // PNG
    "GIF87a".asciiBytes, "GIF89a".asciiBytes,
    "WEBPVP8".asciiBytes,  // "RIFF" size "WEBP" then a VP8, VP8L or VP8X chunk
    [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A],  // JPEG 2000
    [0xFF, 0x4F, 0xFF, 0x51],  // a JPEG 2000 codestream
    "ftypheic".asciiBytes, "ftypheix".asciiBytes, "ftypmif1".asciiBytes, "ftypavif".asciiBytes,
  ]

  /// The base64 text a value longer than this (in one run of base64 characters) is taken for:
  /// 160 characters is 120 bytes, more than a hash (a SHA-512 in hex is 128 characters) and
  /// than any word.
  static let longBase64 = 160

  /// True when `bytes` hold an image signature anywhere.
  ///
  /// - Complexity: O(size).
  static func isPresent(in bytes: some Collection<UInt8>) -> Bool {
    let bytes = Array(bytes)
    for i in bytes.indices where startsSignature[Int(bytes[i])] {
      for signature in signatures where bytes.hasBytes(signature, at: i) { return true }
    }
    return false
  }

  /// For each byte value, whether a signature starts with it (a table, not a set: this runs on
  /// every byte of every metadata value).
  private static let startsSignature: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for signature in signatures { table[Int(signature[0])] = true }
    return table
  }()

  /// True when `text` holds an image or what looks like one as base64: a run of base64
  /// characters (`A-Z a-z 0-9 + / =`, and `-` `_` of the URL-safe alphabet) of `longBase64` or
  /// more, or a shorter run whose decoded start is an image signature (`/9j/` is a JPEG's); or a
  /// signature among the bytes themselves.
  ///
  /// - Complexity: O(size).
  static func isPresent(inText text: some Collection<UInt8>) -> Bool {
    let bytes = Array(text)
    if isPresent(in: bytes) { return true }
    var i = 0
    while i < bytes.count {
      guard isBase64(bytes[i]) else {
        i += 1
        continue
      }
      var j = i
      while j < bytes.count, isBase64(bytes[j]) { j += 1 }
      if j - i >= longBase64 { return true }
      if j - i >= 4, let start = decodedStart(bytes[i..<j]), signatures.contains(where: start.starts(with:)) {
        return true
      }
      i = j
    }
    return false
  }

  private static func isBase64(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
      UInt8(ascii: "-"), UInt8(ascii: "_"):
      true
    default: false
    }
  }

  /// The first bytes (up to 12) that the base64 run decodes to, either alphabet.
  private static func decodedStart(_ run: ArraySlice<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    var buffer = 0
    var bits = 0
    for c in run.prefix(16) {
      let v: Int
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = Int(c) - 65
      case UInt8(ascii: "a")...UInt8(ascii: "z"): v = Int(c) - 97 + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = Int(c) - 48 + 52
      case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
      case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
      default: return out
      }
      buffer = buffer << 6 | v
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(buffer >> bits & 0xFF))
      }
    }
    return out
  }
}
