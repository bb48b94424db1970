import Foundation
import PhotoCore

/// libtiff's own tools (Debian's `libtiff-tools`: raw2tiff, tiffcp, tiff2bw, tiffmedian,
/// tiffset, tiff2rgba), run by tests to make TIFF photos at test time from decoded fixtures and to
/// decode them independently.
extension FormatTools {
  /// How raw2tiff is to read an image's samples: 8-bit RGB, 16-bit RGB (each 8-bit value v
  /// written as v * 257, so 16 bits hold the same colours), 8-bit CMYK (C = 255 - R, M = 255 - G,
  /// Y = 255 - B, K = 0: the same colours), or 8-bit grey (the green channel).
  public enum RawLayout: Sendable {
    case rgb8, rgb16, cmyk8, grey8
  }

  /// A TIFF of `image`'s colours (alpha dropped) made by raw2tiff from raw samples, then by
  /// tiffcp with `tiffcp` options when some are given (`-c lzw`, `-c zip`, `-t`...): written in
  /// `folder` as `name`; its path.
  @discardableResult
  public static func tiff(
    _ image: Image, _ layout: RawLayout = .rgb8, tiffcp: [String] = [], in folder: TemporaryFolder,
    as name: String
  ) throws -> String {
    var raw: [UInt8] = []
    raw.reserveCapacity(image.width * image.height * 4)
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
      let (r, g, b) = (image.bytes[i], image.bytes[i + 1], image.bytes[i + 2])
      switch layout {
      case .rgb8: raw += [r, g, b]
      case .rgb16: raw += [r, r, g, g, b, b]  // v * 257, either byte order
      case .cmyk8: raw += [255 - r, 255 - g, 255 - b, 0]
      case .grey8: raw.append(g)
      }
    }
    let (bands, type, photometric): (Int, String, String) =
      switch layout {
      case .rgb8: (3, "byte", "rgb")
      case .rgb16: (3, "short", "rgb")
      case .cmyk8: (4, "byte", "cmyk")
      case .grey8: (1, "byte", "minisblack")
      }
    folder.write(name + ".raw", raw)
    let made = tiffcp.isEmpty ? folder.path(name) : folder.path(name + ".made.tif")
    try run(
      "raw2tiff",
      [
        "-w", "\(image.width)", "-l", "\(image.height)", "-b", "\(bands)", "-d", type, "-p", photometric,
        "-i", "pixel", "-c", "none", folder.path(name + ".raw"), made,
      ])
    try? FileManager.default.removeItem(atPath: folder.path(name + ".raw"))
    if !tiffcp.isEmpty {
      try run("tiffcp", tiffcp + [made, folder.path(name)])
      try? FileManager.default.removeItem(atPath: made)
    }
    return folder.path(name)
  }

  /// libtiff's reference RGBA of a TIFF file (tiff2rgba's, uncompressed): (width, height, RGBA
  /// premultiplied by alpha, rows from the top).
  public static func tiff2rgbaPixels(_ path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
    let out = path + ".rgba.tif"
    try run("tiff2rgba", ["-c", "none", path, out])
    defer { try? FileManager.default.removeItem(atPath: out) }
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    return try uncompressedRGBA(bytes)
  }

  /// The pixels of an uncompressed 8-bit RGBA TIFF in strips (tiff2rgba's output), read here
  /// from its first directory: independent of photoedit's decoder. tiff2rgba keeps its input's
  /// FillOrder, and raw2tiff writes FillOrder 2 (lsb-to-msb): then each stored byte holds its
  /// bits in reverse order (TIFF 6.0, FillOrder), and is read back reversed.
  static func uncompressedRGBA(_ b: [UInt8]) throws -> (width: Int, height: Int, rgba: [UInt8]) {
    let little = b.starts(with: [0x49, 0x49])
    func u16(_ i: Int) -> Int { little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1]) }
    func u32(_ i: Int) -> Int { little ? u16(i) | u16(i + 2) << 16 : u16(i) << 16 | u16(i + 2) }
    let ifd = u32(4)
    var fields: [Int: [Int]] = [:]
    for k in 0..<u16(ifd) {
      let e = ifd + 2 + k * 12
      let (tag, type, count) = (u16(e), u16(e + 2), u32(e + 4))
      let size = type == 3 ? 2 : 4
      guard type == 3 || type == 4 else { continue }
      let at = count * size <= 4 ? e + 8 : u32(e + 8)
      fields[tag] = (0..<count).map { size == 2 ? u16(at + $0 * 2) : u32(at + $0 * 4) }
    }
    guard let width = fields[256]?.first, let height = fields[257]?.first, fields[277]?.first == 4,
      fields[259]?.first ?? 1 == 1, let offsets = fields[273], let counts = fields[279]
    else { throw Failed(description: "tiff2rgba's output is not uncompressed RGBA: \(fields)") }
    var rgba: [UInt8] = []
    for (offset, count) in zip(offsets, counts) { rgba += b[offset..<(offset + count)] }
    if fields[266]?.first == 2 {
      rgba = rgba.map { byte in (0..<8).reduce(UInt8(0)) { $0 | ((byte >> $1) & 1) << (7 - $1) } }
    }
    return (width, height, Array(rgba.prefix(width * height * 4)))
  }
}

/// A TIFF with IdentifyingFixture's IFD0, Exif and GPS IFDs, an XMP packet with a thumbnail, an
/// ICC profile and a reduced-resolution image chained after it, laid out by the test's TIFF
/// writer around raw 8-bit RGB pixels.
public enum IdentifyingTIFF {
  public static func bytes(littleEndian: Bool = true, width: Int = 16, height: Int = 12) throws -> [UInt8] {
    let pixels = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let xmp = try EmbeddedImagesFixture.xmp()
    let icc = try IdentifyingFixture.icc()
    func layout(stripAt: Int) -> [UInt8] {
      let ifd0 =
        IdentifyingFixture.ifd0(orientation: 1).filter { $0.tag != 0x0128 } + [
          TIFFTag(0x0100, .longs([width])), TIFFTag(0x0101, .longs([height])),
          TIFFTag(0x0102, .shorts([8, 8, 8])), TIFFTag(0x0103, .shorts([1])), TIFFTag(0x0106, .shorts([2])),
          TIFFTag(0x0111, .longs([stripAt])), TIFFTag(0x0115, .shorts([3])),
          TIFFTag(0x0116, .longs([height])),
          TIFFTag(0x0117, .longs([pixels.count])), TIFFTag(0x02BC, .raw(type: 1, xmp)),
          TIFFTag(0x8773, .raw(type: 7, icc)),
        ]
      return writeTIFF(
        littleEndian: littleEndian, ifd0: ifd0, exif: IdentifyingFixture.exif, gps: IdentifyingFixture.gps,
        ifd1: [TIFFTag(0x00FE, .longs([1])), TIFFTag(0x0103, .shorts([6]))],
        thumbnail: IdentifyingFixture.thumbnail)
    }
    let size = layout(stripAt: 0).count
    return layout(stripAt: size) + pixels
  }
}
