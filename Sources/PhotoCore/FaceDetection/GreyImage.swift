import HaarKernels
import HaarKernelsAVX2
import HaarKernelsAVX512

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
  /// `(9798 R + 19235 G + 3735 B + 16384) >> 15`: the reference of the kernels' `greyRow`.
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
  public init(_ image: Image) { self.init(image, kernel: .best) }

  /// The same, with the vector build `kernel` of the conversion (every build gives the same
  /// levels).
  init(_ image: Image, kernel: HaarKernel) {
    let (w, h) = (image.width, image.height)
    // Every byte is written below, so the buffer is not zeroed first.
    let out = [UInt8](unsafeUninitializedCapacity: w * h) { dst, initialized in
      image.bytes.withUnsafeBufferPointer { src in
        let dstBase = UncheckedSendable(dst.baseAddress!)
        let srcBase = src.baseAddress!
        Parallel.forEachRowRange(h, minimumRows: 64) { rows in
          let d = dstBase.value
          for y in rows {
            let (from, to) = (srcBase + y * w * 4, d + y * w)
            switch kernel {
            case .baseline: BaselineHaarKernels.greyRow(from, w, to)
            case .avx2: AVX2HaarKernels.greyRow(from, w, to)
            case .avx512: AVX512HaarKernels.greyRow(from, w, to)
            }
          }
        }
      }
      initialized = w * h
    }
    self.init(width: w, height: h, pixels: out)
  }

  /// Swaps left and right, in place.
  ///
  /// - Complexity: O(width × height).
  public mutating func mirror() {
    let w = width
    pixels.withUnsafeMutableBufferPointer { px in
      for y in 0..<height {
        var row = UnsafeMutableBufferPointer(rebasing: px[(y * w)..<((y + 1) * w)])
        row.reverse()
      }
    }
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
  ///
  /// The same arithmetic as ``resized(width:height:)`` (which stays the plain reference the tests
  /// compare against), in 16-bit vector lanes. The horizontal pass of a source row is
  /// `p₀·w₀ + p₁·w₁` with `w₀ + w₁ = 256`, at most 255 × 256, so it fits a `UInt16`. The vertical
  /// pass `(r₀·c₀ + r₁·c₁ + 2¹⁵) >> 16` would need 32 bits; it is computed from the high and low
  /// bytes of r₀ and r₁ instead: with `H = h₀c₀ + h₁c₁` and `L = l₀c₀ + l₁c₁` (each at most
  /// 255 × 256), `r₀c₀ + r₁c₁ + 2¹⁵ = 256·(H + (L >> 8) + 128) + (L & 255)`, and the low byte cannot
  /// carry past a multiple of 2¹⁶, so the result is `(H + (L >> 8) + 128) >> 8`, whose operand is
  /// at most 255 × 256 + 128 and fits 16 bits too.
  struct ResizedRows {
    let source: UnsafePointer<UInt8>
    let sourceWidth: Int
    let width: Int
    let ys: [Tap]
    /// Each output column's first source column: it and the next one are read as a pair (a tap
    /// on one column only is moved so that its pair stays inside the row, with a zero weight on
    /// the other column). Unused when the source is one column wide.
    private let columns: [Int32]
    /// The weights of the pair's first and second column, in 1/256ths.
    private let weights0: [UInt16]
    private let weights1: [UInt16]
    /// The horizontal pass of two source rows (1/256ths of a level), and which rows they are.
    private var cached: [UInt16]
    private var cachedRows = (-1, -1)

    /// Which vector build makes the horizontal passes (every build gives the same levels).
    let kernel: HaarKernel

    init(
      _ source: UnsafePointer<UInt8>, width sourceWidth: Int, height sourceHeight: Int, to size: (Int, Int),
      kernel: HaarKernel = .best
    ) {
      self.source = source
      self.kernel = kernel
      self.sourceWidth = sourceWidth
      width = size.0
      let pairs = GreyImage.linearTaps(source: sourceWidth, destination: size.0).map { tap in
        // (first column, its weight, the next column's weight)
        if tap.weight1 != 0 || sourceWidth == 1 { return (tap.offset, tap.weight0, tap.weight1) }
        return tap.offset + 1 < sourceWidth ? (tap.offset, 256, 0) : (tap.offset - 1, 0, 256)
      }
      columns = pairs.map { Int32($0.0) }
      weights0 = pairs.map { $0.1 }
      weights1 = pairs.map { $0.2 }
      ys = GreyImage.linearTaps(source: sourceHeight, destination: size.1)
      cached = [UInt16](repeating: 0, count: 2 * size.0)
    }

    /// The horizontal pass (as ``GreyImage/horizontal(_:_:_:_:)`` makes it) of one source row
    /// into `out0`, or with `below` (the row below it, `sourceWidth` further) of two, into `out0`
    /// and `out1`, in one sweep that reads each column's taps once, in the vector build `kernel`.
    @inline(__always)
    private static func horizontal(
      _ src: UnsafePointer<UInt8>, below: Bool, _ sourceWidth: Int, _ columns: UnsafePointer<Int32>,
      _ weights0: UnsafePointer<UInt16>, _ weights1: UnsafePointer<UInt16>, _ count: Int,
      _ out0: UnsafeMutablePointer<UInt16>, _ out1: UnsafeMutablePointer<UInt16>, kernel: HaarKernel
    ) {
      if sourceWidth == 1 {
        // Every tap is the one pixel.
        let v = UInt16(src[0]) &<< 8
        for x in 0..<count { out0[x] = v }
        if below { for x in 0..<count { out1[x] = UInt16(src[1]) &<< 8 } }
        return
      }
      let next = below ? src + sourceWidth : nil
      switch kernel {
      case .baseline:
        BaselineHaarKernels.horizontal(
          src, next, sourceWidth: sourceWidth, columns, weights0, weights1, count, out0, out1)
      case .avx2:
        AVX2HaarKernels.horizontal(
          src, next, sourceWidth: sourceWidth, columns, weights0, weights1, count, out0, out1)
      case .avx512:
        AVX512HaarKernels.horizontal(
          src, next, sourceWidth: sourceWidth, columns, weights0, weights1, count, out0, out1)
      }
    }

    /// `out[x] = (r0[x] + 128) >> 8`: one source row's pass rounded to grey levels.
    @inline(__always)
    private static func rounded(
      _ r0: UnsafePointer<UInt16>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>
    ) {
      var x = 0
      while x &+ 16 <= count {
        let r = UnsafeRawPointer(r0 + x).loadUnaligned(as: SIMD16<UInt16>.self)
        let level = SIMD16<UInt8>(truncatingIfNeeded: (r &+ 128) &>> 8)
        UnsafeMutableRawPointer(out + x).storeBytes(of: level, as: SIMD16<UInt8>.self)
        x &+= 16
      }
      while x < count {
        out[x] = UInt8(truncatingIfNeeded: (r0[x] &+ 128) &>> 8)
        x &+= 1
      }
    }

    /// `out[x] = (r0[x]·c0 + r1[x]·c1 + 2¹⁵) >> 16` (with `c0 + c1 = 256`), sixteen columns at a
    /// time in 16-bit lanes from the high and low bytes of r0 and r1 (see the type's comment).
    @inline(__always)
    private static func blended(
      _ r0: UnsafePointer<UInt16>, _ r1: UnsafePointer<UInt16>, _ c0: UInt16, _ c1: UInt16,
      _ count: Int, _ out: UnsafeMutablePointer<UInt8>
    ) {
      let (a, b) = (SIMD16<UInt16>(repeating: c0), SIMD16<UInt16>(repeating: c1))
      var x = 0
      while x &+ 16 <= count {
        let p = UnsafeRawPointer(r0 + x).loadUnaligned(as: SIMD16<UInt16>.self)
        let q = UnsafeRawPointer(r1 + x).loadUnaligned(as: SIMD16<UInt16>.self)
        let high = (p &>> 8) &* a &+ (q &>> 8) &* b
        let low = (p & 0xFF) &* a &+ (q & 0xFF) &* b
        let level = SIMD16<UInt8>(truncatingIfNeeded: (high &+ (low &>> 8) &+ 128) &>> 8)
        UnsafeMutableRawPointer(out + x).storeBytes(of: level, as: SIMD16<UInt8>.self)
        x &+= 16
      }
      while x < count {
        let sum = UInt32(r0[x]) &* UInt32(c0) &+ UInt32(r1[x]) &* UInt32(c1) &+ 32768
        out[x] = UInt8(truncatingIfNeeded: sum &>> 16)
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
        weights0.withUnsafeBufferPointer { w0 in
          weights1.withUnsafeBufferPointer { w1 in
            cached.withUnsafeMutableBufferPointer { c in
              let slot0 = c.baseAddress!
              let slot1 = slot0 + w
              // The slot that holds source row `r`, filling the one not holding `keep` if neither
              // does.
              func slot(_ r: Int, keep: Int) -> UnsafeMutablePointer<UInt16> {
                if rows.0 == r { return slot0 }
                if rows.1 == r { return slot1 }
                let target = rows.0 != keep ? slot0 : slot1
                Self.horizontal(
                  src + r * sw, below: false, sw, cols.baseAddress!, w0.baseAddress!, w1.baseAddress!, w,
                  target, target, kernel: kernel)
                if rows.0 != keep { rows.0 = r } else { rows.1 = r }
                return target
              }
              if tap.weight1 == 0 {
                Self.rounded(slot(tap.offset, keep: -1), w, out)
              } else if rows.0 != tap.offset && rows.1 != tap.offset && rows.0 != tap.offset + 1
                && rows.1 != tap.offset + 1
              {
                // Neither source row is held (always so when shrinking by 2 or more).
                Self.horizontal(
                  src + tap.offset * sw, below: true, sw, cols.baseAddress!, w0.baseAddress!,
                  w1.baseAddress!, w, slot0, slot1, kernel: kernel)
                rows = (tap.offset, tap.offset + 1)
                Self.blended(slot0, slot1, tap.weight0, tap.weight1, w, out)
              } else {
                let r0 = slot(tap.offset, keep: tap.offset + 1)
                let r1 = slot(tap.offset + 1, keep: tap.offset)
                Self.blended(r0, r1, tap.weight0, tap.weight1, w, out)
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
