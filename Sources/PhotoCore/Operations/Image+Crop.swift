extension Image {
  /// The pixels x in `x ..< x + width`, y in `y ..< y + height` (pixels of this image), which
  /// must lie inside the image.
  ///
  /// - Complexity: O(width × height) of the result.
  public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> Image {
    precondition(cw >= 1 && ch >= 1, "a crop is at least 1x1")
    precondition(
      x >= 0 && y >= 0 && x + cw <= width && y + ch <= height, "the crop must lie inside the image")
    if (x, y, cw, ch) == (0, 0, width, height) { return self }
    var out = [UInt8](repeating: 0, count: cw * ch * 4)
    let srcRow = width * 4
    let dstRow = cw * 4
    bytes.withUnsafeBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        let s = src.baseAddress!
        let d = dst.baseAddress!
        Parallel.forEachRowRange(ch) { rows in
          for r in rows {
            (d + r * dstRow).update(from: s + (y + r) * srcRow + x * 4, count: dstRow)
          }
        }
      }
    }
    return Image(width: cw, height: ch, bytes: out)
  }

  /// Makes the image transparent outside the circle inscribed in it, with a one-pixel
  /// anti-aliased edge: in continuous coordinates (pixel (x, y) covers [x, x+1) × [y, y+1)) the
  /// circle has centre (width / 2, height / 2) and radius min(width, height) / 2, and a pixel
  /// whose centre lies at distance d keeps alpha × clamp(radius + 0.5 - d, 0, 1), rounded.
  /// Pixels whose centre is within radius - 0.5 keep their bytes.
  ///
  /// - Complexity: O(width × height), row-parallel.
  public mutating func maskToInscribedCircle() {
    let (w, h) = (width, height)
    let cx = Double(w) / 2
    let cy = Double(h) / 2
    let r = Double(min(w, h)) / 2
    bytes.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      Parallel.forEachRowRange(h) { rows in
        for y in rows {
          let dy = Double(y) + 0.5 - cy
          // Pixels whose centre lies within r - 0.5 keep coverage 1: skip that run (less one
          // pixel at each end, so rounding cannot skip a pixel that needed the formula).
          let inner = r - 0.5
          var skip = 0..<0
          if inner * inner > dy * dy {
            let s = (inner * inner - dy * dy).squareRoot()
            let lo = Int((cx - s - 0.5).rounded(.up)) + 1
            let hi = Int((cx + s - 0.5).rounded(.down)) - 1
            if lo <= hi { skip = max(lo, 0)..<min(hi + 1, w) }
          }
          var x = 0
          while x < w {
            if x == skip.lowerBound && !skip.isEmpty {
              x = skip.upperBound
              continue
            }
            let dx = Double(x) + 0.5 - cx
            let coverage = circleCoverage(distance: (dx * dx + dy * dy).squareRoot(), radius: r)
            if coverage < 1 {
              let i = (y * w + x) * 4 + 3
              base[i] = UInt8(Double(base[i]) * coverage + 0.5)
            }
            x += 1
          }
        }
      }
    }
  }

  /// The image composited over an opaque-or-not `background` (straight alpha "over"): the result
  /// alpha is a + b·(1 - a), so an opaque background gives an opaque image. An opaque image is
  /// returned unchanged.
  ///
  /// - Complexity: O(width × height), row-parallel.
  public func flattened(over background: RGBA) -> Image {
    var out = self
    let count = width * height
    out.bytes.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      Parallel.forEachRowRange(count, minimumRows: 4096) { pixels in
        for p in pixels {
          let i = p * 4
          let a = Int(base[i + 3])
          if a == 255 { continue }
          let composite = compositeOver(
            RGBA(base[i], base[i + 1], base[i + 2], base[i + 3]), background, coverage: 1)
          (base[i], base[i + 1], base[i + 2], base[i + 3]) = (
            composite.r, composite.g, composite.b, composite.a
          )
        }
      }
    }
    return out
  }
}

/// How much of a pixel whose centre is at `distance` from a circle's centre lies inside a circle
/// of `radius`, approximated by a one-pixel linear ramp: clamp(radius + 0.5 - distance, 0, 1).
@inline(__always) func circleCoverage(distance: Double, radius: Double) -> Double {
  min(max(radius + 0.5 - distance, 0), 1)
}

/// `top` (straight alpha, its alpha scaled by `coverage` in 0...1) composited over `bottom` with
/// the Porter-Duff "over" rule, in straight alpha, each channel rounded to nearest.
@inline(__always) func compositeOver(_ top: RGBA, _ bottom: RGBA, coverage: Float) -> RGBA {
  let ta = Float(top.a) / 255 * coverage
  let ba = Float(bottom.a) / 255
  let oa = ta + ba * (1 - ta)
  if oa <= 0 { return RGBA(0, 0, 0, 0) }
  let t = SIMD3<Float>(Float(top.r), Float(top.g), Float(top.b))
  let b = SIMD3<Float>(Float(bottom.r), Float(bottom.g), Float(bottom.b))
  let c = (t * ta + b * (ba * (1 - ta))) / oa + 0.5
  let c8 = pointwiseMin(pointwiseMax(c, SIMD3(repeating: 0)), SIMD3(repeating: 255))
  return RGBA(UInt8(c8.x), UInt8(c8.y), UInt8(c8.z), UInt8(min(oa * 255 + 0.5, 255)))
}
