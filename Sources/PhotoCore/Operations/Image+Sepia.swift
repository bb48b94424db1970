extension Image {
  /// Tones the image with Core Image's classic sepia matrix, blended with the original.
  ///
  /// For each pixel, S(in) = M · (r, g, b) with M's rows (0.393, 0.769, 0.189),
  /// (0.349, 0.686, 0.168), (0.272, 0.534, 0.131), each channel clamped to 255; the result is
  /// `(1 - t) · in + t · S(in)` rounded to nearest. Alpha is untouched. `intensity` 0 leaves every
  /// byte as it was.
  ///
  /// - Parameter intensity: t, in 0...1.
  /// - Complexity: O(width × height), row-parallel.
  public mutating func applySepia(intensity: Double) {
    precondition((0...1).contains(intensity), "sepia intensity must be in 0...1")
    if intensity == 0 { return }
    let t = Float(intensity)
    let rowBytes = width * 4, rows = height
    bytes.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      Parallel.forEachRowRange(rows) { range in
        var i = range.lowerBound * rowBytes
        let end = range.upperBound * rowBytes
        while i < end {
          let out = sepiaPixel(SIMD3(Float(base[i]), Float(base[i + 1]), Float(base[i + 2])), amount: t)
          base[i] = UInt8(out.x)
          base[i + 1] = UInt8(out.y)
          base[i + 2] = UInt8(out.z)
          i += 4
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

/// One pixel's sepia tone: `(1 - t)·rgb + t·min(255, M·rgb)`, plus 0.5 so that truncation rounds
/// to nearest. The result is in 0.5...255.5 and converts to a byte by truncation.
@inline(__always) func sepiaPixel(_ rgb: SIMD3<Float>, amount t: Float) -> SIMD3<Float> {
  let r = SIMD3<Float>(0.393, 0.349, 0.272) * rgb.x
  let g = SIMD3<Float>(0.769, 0.686, 0.534) * rgb.y
  let b = SIMD3<Float>(0.189, 0.168, 0.131) * rgb.z
  let s = pointwiseMin(r + g + b, SIMD3(repeating: 255))
  let out = rgb + t * (s - rgb) + 0.5
  return pointwiseMin(out, SIMD3(repeating: 255.5 - 1 / 1024))
}
