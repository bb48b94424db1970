extension Image {
  /// Tones the image with Core Image's classic sepia matrix, blended with the original.
  ///
  /// For each pixel, S(in) = M · (r, g, b) with M's rows (0.393, 0.769, 0.189),
  /// (0.349, 0.686, 0.168), (0.272, 0.534, 0.131), each channel clamped to 255; the result is
  /// `(1 - t) · in + t · S(in)` rounded to nearest. Alpha is untouched. `intensity` 0 leaves every
  /// byte as it was.
  ///
  /// The kernel works in 16-bit lanes so that it vectorises on baseline x86-64: the weights t · M
  /// and 1 - t carry 16 fractional bits and each product keeps 7 fractional bits (truncated), so a
  /// result can differ from the exact formula only where it lies within 1/20 of a rounding tie
  /// (by one level at most).
  ///
  /// - Parameter intensity: t, in 0...1.
  /// - Complexity: O(width × height), row-parallel; no allocation per pixel.
  public mutating func applySepia(intensity: Double) {
    precondition((0...1).contains(intensity), "sepia intensity must be in 0...1")
    if intensity == 0 { return }
    let kernel = SepiaKernel(intensity: intensity, size: ImageSize(width, height))
    withPixels { kernel.render($0, into: $0) }
  }

  /// A copy toned with `applySepia(intensity:)`.
  public func sepiaToned(intensity: Double) -> Image {
    var copy = self
    copy.applySepia(intensity: intensity)
    return copy
  }
}

/// Sepia as a step: each pixel on its own.
struct SepiaKernel: StepKernel {
  let inputSize: ImageSize
  let weights: SepiaWeights
  init(intensity: Double, size: ImageSize) {
    (weights, inputSize) = (SepiaWeights(intensity: intensity), size)
  }
  var outputSize: ImageSize { inputSize }
  var capability: StepCapability { .pointwise }
  func inputRect(for output: PixelRect) -> PixelRect { output }

  func render(_ input: PixelBuffer, into output: PixelBuffer) {
    let (r, weights) = (output.rect, weights)
    Parallel.forEachRowRange(r.height) { rows in
      for y in (r.y + rows.lowerBound)..<(r.y + rows.upperBound) {
        let row = UnsafeMutableRawPointer(output.row(y)).bindMemory(to: UInt32.self, capacity: r.width)
        sepiaPixels(row, count: r.width, weights: weights)
      }
    }
  }
}

/// Sepia's weights at one intensity t, in fixed point: `m` holds t · M[k][j] with 16 fractional
/// bits (row-major), `keep` 1 - t with 16 fractional bits (at most 65535), and `cap` t · 255 with
/// 7 fractional bits.
struct SepiaWeights: Sendable {
  static let matrix: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
  let m: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)
  let keep: UInt16
  let cap: UInt16

  init(intensity t: Double) {
    let v = Self.matrix.map { UInt16((t * $0 * 65536).rounded()) }
    m = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])
    keep = UInt16(min(65535, ((1 - t) * 65536).rounded()))
    cap = UInt16((t * 255 * 128).rounded())
  }
}

/// The high 16 bits of a × b: (a · b) >> 16, one `pmulhuw` lane once vectorised.
@inline(__always) private func mulHigh(_ a: UInt16, _ b: UInt16) -> UInt16 {
  a.multipliedFullWidth(by: b).high
}

/// Tones `count` RGBA pixels (R in the low byte) in place; alpha kept.
///
/// Each channel v is taken as v · 128 so that mulHigh(v · 128, weight) = ⌊v · weight / 512⌋, the
/// product with 7 fractional bits; three such terms stay below 2¹⁶ (at most 1.351 · 255 · 128).
/// Written on scalars with no table, so LLVM vectorises the loop (`pmulhuw`, four pixels a step).
private func sepiaPixels(_ p: UnsafeMutablePointer<UInt32>, count: Int, weights: SepiaWeights) {
  let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = weights.m
  let (keep, cap) = (weights.keep, weights.cap)
  for i in 0..<count {
    let px = UInt32(littleEndian: p[i])
    let r = UInt16(truncatingIfNeeded: px & 255) &<< 7
    let g = UInt16(truncatingIfNeeded: (px &>> 8) & 255) &<< 7
    let b = UInt16(truncatingIfNeeded: (px &>> 16) & 255) &<< 7
    let sr = min(mulHigh(r, m0) &+ mulHigh(g, m1) &+ mulHigh(b, m2), cap)
    let sg = min(mulHigh(r, m3) &+ mulHigh(g, m4) &+ mulHigh(b, m5), cap)
    let sb = min(mulHigh(r, m6) &+ mulHigh(g, m7) &+ mulHigh(b, m8), cap)
    let outR = UInt32((mulHigh(r, keep) &+ sr &+ 64) &>> 7)
    let outG = UInt32((mulHigh(g, keep) &+ sg &+ 64) &>> 7)
    let outB = UInt32((mulHigh(b, keep) &+ sb &+ 64) &>> 7)
    p[i] = ((px & 0xFF00_0000) | outR | outG &<< 8 | outB &<< 16).littleEndian
  }
}
