extension Image {
  /// Paints every pixel of `region` with `color` (replacing, not compositing).
  ///
  /// - Complexity: O(pixels in the region), row-parallel.
  public mutating func fill(_ region: PixelRegion, with color: RGBA) {
    guard let b = region.bounds else { return }
    let (w, h) = (width, height)
    let ys = max(b.y0, 0)
    let ye = min(b.y1, h - 1)
    guard ys <= ye else { return }
    let value = UInt32(color.r) | UInt32(color.g) << 8 | UInt32(color.b) << 16 | UInt32(color.a) << 24
    bytes.withUnsafeMutableBytes { raw in
      let pixels = raw.bindMemory(to: UInt32.self).baseAddress!
      Parallel.forEachRowRange(ye - ys + 1) { rows in
        for y in rows.lowerBound + ys..<rows.upperBound + ys {
          for x in region.span(row: y, width: w) { pixels[y * w + x] = value.littleEndian }
        }
      }
    }
  }
}
