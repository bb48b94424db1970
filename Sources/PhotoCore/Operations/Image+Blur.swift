extension Image {
  /// Blurs the pixels of `region` with three passes of a box blur of radius `radius` pixels (close
  /// to a Gaussian of σ ≈ radius), reading neighbours outside the region (edges of the image are
  /// repeated). Pixels outside the region keep their bytes.
  ///
  /// - Complexity: O(pixels in the region's bounding box grown by 3 × radius), row-parallel.
  public mutating func blur(_ region: PixelRegion, radius: Int) {
    precondition(radius >= 0, "blur radius must be at least 0")
    guard radius > 0, let b = region.bounds else { return }
    let (w, h) = (width, height)
    let margin = 3 * radius
    let x0 = max(b.x0 - margin, 0)
    let x1 = min(b.x1 + margin, w - 1)
    let y0 = max(b.y0 - margin, 0)
    let y1 = min(b.y1 + margin, h - 1)
    guard x0 <= x1, y0 <= y1, b.x1 >= 0, b.y1 >= 0, b.x0 < w, b.y0 < h else { return }
    let (pw, ph) = (x1 - x0 + 1, y1 - y0 + 1)
    // The patch in Float, 4 channels, and a second buffer for each pass's output.
    var patch = [Float](repeating: 0, count: pw * ph * 4)
    for y in 0..<ph {
      for x in 0..<pw {
        let s = ((y + y0) * w + x + x0) * 4
        let d = (y * pw + x) * 4
        for c in 0..<4 { patch[d + c] = Float(bytes[s + c]) }
      }
    }
    var other = patch
    for _ in 0..<3 {
      boxPass(from: patch, to: &other, width: pw, height: ph, radius: radius, horizontal: true)
      boxPass(from: other, to: &patch, width: pw, height: ph, radius: radius, horizontal: false)
    }
    let ys = max(b.y0, 0)
    let ye = min(b.y1, h - 1)
    for y in ys...ye {
      for x in region.span(row: y, width: w) {
        let d = (y * w + x) * 4
        let s = ((y - y0) * pw + x - x0) * 4
        for c in 0..<4 { bytes[d + c] = UInt8(min(max(patch[s + c] + 0.5, 0), 255)) }
      }
    }
  }
}

/// One box-blur pass over a Float RGBA patch along rows (`horizontal`) or columns, with the edge
/// samples repeated; a running sum makes it O(1) per sample.
private func boxPass(
  from src: [Float], to dst: inout [Float], width: Int, height: Int, radius: Int, horizontal: Bool
) {
  let lines = horizontal ? height : width
  let length = horizontal ? width : height
  let stride = horizontal ? 4 : width * 4
  let lineStep = horizontal ? width * 4 : 4
  let scale = 1 / Float(2 * radius + 1)
  src.withUnsafeBufferPointer { src in
    dst.withUnsafeMutableBufferPointer { dst in
      let s = src.baseAddress!
      let d = dst.baseAddress!
      Parallel.forEachRowRange(lines) { range in
        for line in range {
          let start = line * lineStep
          @inline(__always) func at(_ i: Int) -> Int { start + min(max(i, 0), length - 1) * stride }
          var sum = SIMD4<Float>(repeating: 0)
          for i in -radius...radius {
            let p = at(i)
            sum += SIMD4(s[p], s[p + 1], s[p + 2], s[p + 3])
          }
          for i in 0..<length {
            let o = start + i * stride
            let v = sum * scale
            (d[o], d[o + 1], d[o + 2], d[o + 3]) = (v.x, v.y, v.z, v.w)
            let add = at(i + radius + 1)
            let sub = at(i - radius)
            sum +=
              SIMD4(s[add], s[add + 1], s[add + 2], s[add + 3])
              - SIMD4(s[sub], s[sub + 1], s[sub + 2], s[sub + 3])
          }
        }
      }
    }
  }
}
