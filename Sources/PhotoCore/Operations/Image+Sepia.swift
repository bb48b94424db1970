extension Image {
  /// Tones the image with Core Image's classic sepia matrix, blended with the original.
  ///
  /// For each pixel, S(in) = M · (r, g, b) with M's rows (0.393, 0.769, 0.189),
  /// (0.349, 0.686, 0.168), (0.272, 0.534, 0.131), each channel clamped to 255; the result is
  /// `(1 - t) · in + t · S(in)` rounded to nearest. Alpha is untouched. `intensity` 0 leaves every
  /// byte as it was.
  ///
  /// The products are read from tables built once per call, in fixed point with 16 fractional
  /// bits, so a result can differ from the exact formula only where it lies within 1/8000 of a
  /// rounding tie (by one level at most).
  ///
  /// - Parameter intensity: t, in 0...1.
  /// - Complexity: O(width × height), row-parallel; no allocation per pixel.
  public mutating func applySepia(intensity: Double) {
    precondition((0...1).contains(intensity), "sepia intensity must be in 0...1")
    if intensity == 0 { return }
    let table = SepiaTable(intensity: intensity)
    let w = width
    table.values.withUnsafeBufferPointer { tableBuffer in
      bytes.withUnsafeMutableBytes { raw in
        let pixels = raw.bindMemory(to: UInt32.self).baseAddress!
        let t = tableBuffer.baseAddress!
        Parallel.forEachRowRange(height) { rows in
          for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
            pixels[i] = sepiaPixel(UInt32(littleEndian: pixels[i]), table: t, cap: table.cap).littleEndian
          }
        }
      }
    }
  }

  /// A copy toned with `applySepia(intensity:)`.
  public func sepiaToned(intensity: Double) -> Image {
    var copy = self
    copy.applySepia(intensity: intensity)
    return copy
  }
}

/// Fixed-point tables (16 fractional bits) for sepia at one intensity t: nine tables of
/// t · M[k][j] · v for v in 0...255, then (1 - t) · v + ½.
struct SepiaTable {
  static let matrix: [Double] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
  var values: [Int32]
  /// t · 255, the clamp of S scaled by t.
  let cap: Int32

  init(intensity t: Double) {
    values = [Int32](repeating: 0, count: 10 * 256)
    for k in 0..<9 {
      for v in 0..<256 { values[k * 256 + v] = Int32((t * Self.matrix[k] * Double(v) * 65536).rounded()) }
    }
    for v in 0..<256 { values[9 * 256 + v] = Int32(((1 - t) * Double(v) * 65536).rounded()) + 32768 }
    cap = Int32((t * 255 * 65536).rounded())
  }
}

/// One RGBA pixel (R in the low byte) toned with the tables; alpha kept.
@inline(__always) func sepiaPixel(_ p: UInt32, table t: UnsafePointer<Int32>, cap: Int32) -> UInt32 {
  let r = Int(p & 255)
  let g = Int((p >> 8) & 255)
  let b = Int((p >> 16) & 255)
  let sr = min(t[r] &+ t[256 &+ g] &+ t[512 &+ b], cap)
  let sg = min(t[768 &+ r] &+ t[1024 &+ g] &+ t[1280 &+ b], cap)
  let sb = min(t[1536 &+ r] &+ t[1792 &+ g] &+ t[2048 &+ b], cap)
  let outR = UInt32(truncatingIfNeeded: (t[2304 &+ r] &+ sr) >> 16)
  let outG = UInt32(truncatingIfNeeded: (t[2304 &+ g] &+ sg) >> 16)
  let outB = UInt32(truncatingIfNeeded: (t[2304 &+ b] &+ sb) >> 16)
  return (p & 0xFF00_0000) | outR | outG << 8 | outB << 16
}
