/// An 8-bit greyscale raster: pixel (x, y) is `pixels[y * width + x]`, top row first, no padding.
///
/// The detector's input. It is made from an ``Image`` with OpenCV 4's `COLOR_BGR2GRAY` fixed-point
/// weights and shrunk with OpenCV's bit-exact bilinear resize (`INTER_LINEAR_EXACT`), so that the
/// pyramid matches OpenCV's pixel for pixel.
public struct GreyImage: Sendable, Equatable {
  /// Width and height in pixels, at least 1.
  public let width: Int, height: Int
  /// `width * height` grey levels.
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width > 0 && height > 0, "image size must be positive")
    precondition(pixels.count == width * height, "need 1 byte per pixel")
    (self.width, self.height, self.pixels) = (width, height, pixels)
  }

  /// The grey level OpenCV 4's `cvtColor(COLOR_BGR2GRAY)` gives an 8-bit pixel:
  /// `(9798 R + 19235 G + 3735 B + 16384) >> 15`.
  ///
  /// These 15-bit weights (they sum to 2¹⁵, so grey stays grey) are what OpenCV 4.14's 8-bit
  /// path computes; the classic 14-bit ones (4899, 9617, 1868) differ by one level on about 0.04%
  /// of pixels.
  @inline(__always)
  static func grey(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
    UInt8(
      truncatingIfNeeded: (9798 &* UInt32(r) &+ 19235 &* UInt32(g) &+ 3735 &* UInt32(b) &+ 16384) >> 15)
  }

  /// Converts `image` to grey with OpenCV's BGR2GRAY weights, ignoring alpha, on all cores.
  ///
  /// - Complexity: O(width × height).
  public init(_ image: Image) {
    let (w, h) = (image.width, image.height)
    var out = [UInt8](repeating: 0, count: w * h)
    image.bytes.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        let dstBase = UncheckedSendable(dst.baseAddress!)
        let srcBase = src.baseAddress!
        Parallel.forEachRowRange(h, minimumRows: 64) { rows in
          let d = dstBase.value
          for y in rows {
            var s = srcBase + y * w * 4
            var o = d + y * w
            for _ in 0..<w {
              o.pointee = GreyImage.grey(r: s[0], g: s[1], b: s[2])
              s += 4
              o += 1
            }
          }
        }
      }
    }
    self.init(width: w, height: h, pixels: out)
  }

  /// The image resized to `newWidth` × `newHeight` pixels the way OpenCV's
  /// `resize(..., INTER_LINEAR_EXACT)` does it for 8-bit images.
  ///
  /// Each output pixel's centre maps to `(x + 0.5) * scale - 0.5` in the source (scale = source
  /// size ÷ output size, computed as OpenCV does). The two horizontal and two vertical weights are
  /// rounded to 8 fractional bits; the horizontal pass keeps 8 fractional bits, the vertical one 16,
  /// and the result is rounded once. Samples past the last row or column repeat it.
  ///
  /// - Complexity: O(newWidth × newHeight).
  public func resized(width newWidth: Int, height newHeight: Int) -> GreyImage {
    resized(width: newWidth, height: newHeight, parallel: true)
  }

  /// ``resized(width:height:)`` on all cores when `parallel` is true, else on this thread.
  func resized(width newWidth: Int, height newHeight: Int, parallel: Bool) -> GreyImage {
    precondition(newWidth > 0 && newHeight > 0, "image size must be positive")
    if newWidth == width && newHeight == height { return self }
    let xs = Self.linearTaps(source: width, destination: newWidth)
    let ys = Self.linearTaps(source: height, destination: newHeight)
    var out = [UInt8](repeating: 0, count: newWidth * newHeight)
    let (sw, dw) = (width, newWidth)
    pixels.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        xs.withUnsafeBufferPointer { xt in
          let shared = UncheckedSendable((src.baseAddress!, dst.baseAddress!, xt.baseAddress!))
          Parallel.forEachRowRange(newHeight, minimumRows: 32, parallel: parallel) { rows in
            let (s, d, xtap) = shared.value
            var row0 = [UInt32](repeating: 0, count: dw)
            var row1 = [UInt32](repeating: 0, count: dw)
            row0.withUnsafeMutableBufferPointer { r0 in
              row1.withUnsafeMutableBufferPointer { r1 in
                for y in rows {
                  let tap = ys[y]
                  Self.horizontal(s + tap.offset * sw, xtap, dw, r0.baseAddress!)
                  let o = d + y * dw
                  if tap.weight1 == 0 {
                    // One source row (the edge): its 8-bit fraction rounds to the output.
                    for x in 0..<dw { o[x] = UInt8(truncatingIfNeeded: (r0[x] + 128) >> 8) }
                  } else {
                    Self.horizontal(s + (tap.offset + 1) * sw, xtap, dw, r1.baseAddress!)
                    let (c0, c1) = (UInt32(tap.weight0), UInt32(tap.weight1))
                    for x in 0..<dw {
                      o[x] = UInt8(truncatingIfNeeded: (r0[x] &* c0 &+ r1[x] &* c1 &+ 32768) >> 16)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return GreyImage(width: newWidth, height: newHeight, pixels: out)
  }

  /// Rows of this image resized to `width` × `height` as ``resized(width:height:)`` makes them,
  /// one at a time, for a caller that needs a band of them (`pixels` must outlive the value).
  struct ResizedRows {
    let source: UnsafePointer<UInt8>
    let sourceWidth: Int
    let width: Int
    let ys: [Tap]
    /// Each output column's two source columns (the same one twice at an edge, with weight 0).
    private let columns: [SIMD2<Int32>]
    private let weights: [SIMD2<UInt32>]
    /// The horizontal pass of two source rows (1/256ths of a level), and which rows they are.
    private var cached: [UInt32]
    private var cachedRows = (-1, -1)

    init(
      _ source: UnsafePointer<UInt8>, width sourceWidth: Int, height sourceHeight: Int, to size: (Int, Int)
    ) {
      self.source = source
      self.sourceWidth = sourceWidth
      width = size.0
      let xs = GreyImage.linearTaps(source: sourceWidth, destination: size.0)
      columns = xs.map { SIMD2(Int32($0.offset), Int32($0.weight1 == 0 ? $0.offset : $0.offset + 1)) }
      weights = xs.map { SIMD2(UInt32($0.weight0), UInt32($0.weight1)) }
      ys = GreyImage.linearTaps(source: sourceHeight, destination: size.1)
      cached = [UInt32](repeating: 0, count: 2 * size.0)
    }

    /// One source row's horizontal pass, as ``GreyImage/horizontal(_:_:_:_:)`` makes it.
    @inline(__always)
    private static func horizontal(
      _ src: UnsafePointer<UInt8>, _ columns: UnsafePointer<SIMD2<Int32>>,
      _ weights: UnsafePointer<SIMD2<UInt32>>, _ count: Int, _ out: UnsafeMutablePointer<UInt32>
    ) {
      var x = 0
      while x < count {
        let c = columns[x]
        let w = weights[x]
        out[x] = UInt32(src[Int(c[0])]) &* w[0] &+ UInt32(src[Int(c[1])]) &* w[1]
        x &+= 1
      }
    }

    /// Writes resized row `y` (`width` grey levels) to `out`.
    ///
    /// - Complexity: O(width); a source row's horizontal pass is reused by the next output row.
    mutating func row(_ y: Int, into out: UnsafeMutablePointer<UInt8>) {
      let tap = ys[y]
      let (w, sw, src) = (width, sourceWidth, source)
      var rows = cachedRows
      columns.withUnsafeBufferPointer { cols in
        weights.withUnsafeBufferPointer { wts in
          cached.withUnsafeMutableBufferPointer { c in
            let slot0 = c.baseAddress!
            let slot1 = slot0 + w
            // The slot that holds source row `r`, filling the one not holding `keep` if neither does.
            func slot(_ r: Int, keep: Int) -> UnsafeMutablePointer<UInt32> {
              if rows.0 == r { return slot0 }
              if rows.1 == r { return slot1 }
              let target = rows.0 != keep ? slot0 : slot1
              Self.horizontal(src + r * sw, cols.baseAddress!, wts.baseAddress!, w, target)
              if rows.0 != keep { rows.0 = r } else { rows.1 = r }
              return target
            }
            if tap.weight1 == 0 {
              let r0 = slot(tap.offset, keep: -1)
              var x = 0
              while x < w {
                out[x] = UInt8(truncatingIfNeeded: (r0[x] &+ 128) >> 8)
                x &+= 1
              }
            } else {
              let r0 = slot(tap.offset, keep: tap.offset + 1)
              let r1 = slot(tap.offset + 1, keep: tap.offset)
              let (c0, c1) = (UInt32(tap.weight0), UInt32(tap.weight1))
              var x = 0
              while x < w {
                out[x] = UInt8(truncatingIfNeeded: (r0[x] &* c0 &+ r1[x] &* c1 &+ 32768) >> 16)
                x &+= 1
              }
            }
          }
        }
      }
      cachedRows = rows
    }
  }

  /// One output sample's source taps: `offset` and `offset + 1`, weighted in 1/256ths; a
  /// `weight1` of 0 means the sample is the source pixel at `offset` alone.
  struct Tap: Sendable, Equatable {
    var offset: Int
    var weight0: UInt16, weight1: UInt16
  }

  /// The taps of OpenCV's bit-exact linear interpolation from `source` to `destination` samples.
  static func linearTaps(source: Int, destination: Int) -> [Tap] {
    // OpenCV: inv_scale = dsize / ssize (double), then scale = 1 / inv_scale.
    let scale = 1.0 / (Double(destination) / Double(source))
    var taps: [Tap] = []
    taps.reserveCapacity(destination)
    for i in 0..<destination {
      let f = scale * (Double(i) + 0.5) - 0.5
      let fi = f.rounded(.down)
      let index = Int(fi)
      if index < 0 || source == 1 {
        taps.append(Tap(offset: 0, weight0: 256, weight1: 0))
      } else if index >= source - 1 {
        taps.append(Tap(offset: source - 1, weight0: 256, weight1: 0))
      } else {
        let w1 = UInt16(((f - fi) * 256).rounded(.toNearestOrEven))
        taps.append(Tap(offset: index, weight0: 256 - w1, weight1: w1))
      }
    }
    return taps
  }

  /// One source row interpolated horizontally, in 1/256ths of a grey level.
  @inline(__always)
  static func horizontal(
    _ src: UnsafePointer<UInt8>, _ taps: UnsafePointer<Tap>, _ count: Int,
    _ out: UnsafeMutablePointer<UInt32>
  ) {
    for x in 0..<count {
      let t = taps[x]
      let a = UInt32(src[t.offset]) &* UInt32(t.weight0)
      out[x] = t.weight1 == 0 ? a : a &+ UInt32(src[t.offset + 1]) &* UInt32(t.weight1)
    }
  }
}
