/// An 8-bit straight-alpha RGBA raster.
///
/// Pixel (x, y) starts at byte `(y * width + x) * 4`: interleaved R, G, B, A, row-major, top row
/// first, no row padding, sRGB-encoded, alpha not premultiplied. libjpeg-turbo (`TJPF_RGBA`) and
/// libpng read and write this layout directly. An image whose alpha is 255 everywhere is opaque;
/// encoders write an alpha channel only when some pixel is not.
public struct Image: Sendable, Equatable {
  /// Width in pixels, at least 1.
  public let width: Int
  /// Height in pixels, at least 1.
  public let height: Int
  /// `width * height * 4` bytes, RGBA.
  public var bytes: [UInt8]
  /// The share of the process's memory budget these pixels hold (a decoded frame's), given back
  /// when the last copy of the image goes; nil for images made otherwise. Not part of `==`.
  public var memory: MemoryBudget.Reservation? = nil

  public init(width: Int, height: Int, bytes: [UInt8]) {
    precondition(width > 0 && height > 0, "image size must be positive")
    precondition(bytes.count == width * height * 4, "need 4 bytes per pixel")
    (self.width, self.height, self.bytes) = (width, height, bytes)
  }

  public static func == (a: Image, b: Image) -> Bool {
    a.width == b.width && a.height == b.height && a.bytes == b.bytes
  }

  /// An image filled with one colour.
  public init(width: Int, height: Int, fill: RGBA = RGBA(0, 0, 0, 255)) {
    precondition(width > 0 && height > 0, "image size must be positive")
    var bytes = [UInt8](repeating: 0, count: width * height * 4)
    for i in stride(from: 0, to: bytes.count, by: 4) {
      bytes[i] = fill.r
      bytes[i + 1] = fill.g
      bytes[i + 2] = fill.b
      bytes[i + 3] = fill.a
    }
    self.init(width: width, height: height, bytes: bytes)
  }

  /// The pixel at (x, y), in pixels from the top-left corner.
  public subscript(x: Int, y: Int) -> RGBA {
    get {
      let i = (y * width + x) * 4
      return RGBA(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
    }
    set {
      let i = (y * width + x) * 4
      bytes[i] = newValue.r
      bytes[i + 1] = newValue.g
      bytes[i + 2] = newValue.b
      bytes[i + 3] = newValue.a
    }
  }

  /// True when every pixel's alpha is 255.
  ///
  /// - Complexity: O(width × height).
  public var isOpaque: Bool {
    bytes.withUnsafeBytes { raw in
      // Eight pixels a pass as four 64-bit words ANDed together, which vectorises; a block at a
      // time, so that a transparent pixel near the top ends the scan early.
      let words = raw.count / 8
      let alpha: UInt64 = 0xFF00_0000_FF00_0000
      let block = 4096
      var start = 0
      while start < words {
        let end = min(words, start + block)
        var all = UInt64.max
        for i in start..<end { all &= raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self) }
        if all & alpha != alpha { return false }
        start = end
      }
      // An odd pixel count leaves one pixel outside the words.
      return raw.count % 8 == 0 || raw[raw.count - 1] == 255
    }
  }
}

/// One 8-bit straight-alpha sRGB colour.
public struct RGBA: Sendable, Hashable {
  public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
  public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
    (self.r, self.g, self.b, self.a) = (r, g, b, a)
  }
}
