extension Image {
  /// Darkens the image smoothly with the distance from its centre.
  ///
  /// With the centre c = ((width - 1) / 2, (height - 1) / 2) in pixel indices and
  /// R = `radius` × half the image's diagonal (√(width² + height²) / 2 pixels), a pixel at
  /// distance d from c has its red, green and blue multiplied by
  ///
  ///     f(d) = 1 - intensity × smoothstep(d / R),   smoothstep(u) = 3u² - 2u³ for u in 0...1, 1 beyond
  ///
  /// and rounded to nearest; alpha is untouched. f(0) = 1 (the centre is unchanged), f never
  /// increases outward, the effect is mirror-symmetric about both centre lines, and beyond R the
  /// image is scaled by 1 - intensity. `intensity` 0 leaves every byte as it was.
  ///
  /// - Parameters:
  ///   - intensity: 0...1; 1 makes pixels at distance R and beyond black.
  ///   - radius: > 0, relative to half the diagonal (1 reaches the corners).
  /// - Complexity: O(width × height), row-parallel.
  public mutating func applyVignette(intensity: Double, radius: Double) {
    precondition((0...1).contains(intensity) && radius > 0, "vignette needs intensity in 0...1, radius > 0")
    if intensity == 0 { return }
    let (w, h) = (width, height)
    let reach = radius * 0.5 * Double(w * w + h * h).squareRoot()
    let inverse = Float(1 / reach), amount = Float(intensity)
    let cx = Float(w - 1) / 2, cy = Float(h - 1) / 2
    var dx2 = [Float](repeating: 0, count: w)
    for x in 0..<w { dx2[x] = (Float(x) - cx) * (Float(x) - cx) }
    dx2.withUnsafeBufferPointer { dx2 in
      bytes.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        Parallel.forEachRowRange(h) { range in
          for y in range {
            let dy = Float(y) - cy, dy2 = dy * dy
            var i = y * w * 4
            for x in 0..<w {
              let f = vignetteFactor(distanceSquared: dx2[x] + dy2, inverseReach: inverse, intensity: amount)
              base[i] = UInt8(Float(base[i]) * f + 0.5)
              base[i + 1] = UInt8(Float(base[i + 1]) * f + 0.5)
              base[i + 2] = UInt8(Float(base[i + 2]) * f + 0.5)
              i += 4
            }
          }
        }
      }
    }
  }
}

/// The vignette's brightness factor f(d) = 1 - intensity × smoothstep(d / R), in 0...1.
@inline(__always) func vignetteFactor(distanceSquared: Float, inverseReach: Float, intensity: Float) -> Float {
  let u = min(distanceSquared.squareRoot() * inverseReach, 1)
  return 1 - intensity * (u * u * (3 - 2 * u))
}
