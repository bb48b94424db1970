extension Image {
  /// Paints every pixel of `region` with `color` (replacing, not compositing).
  ///
  /// - Complexity: O(pixels in the region), row-parallel.
  public mutating func fill(_ region: PixelRegion, with color: RGBA) {
    let op = FillOp(region: region, color: color, image: ImageSize(width, height))
    withPixels { op.apply($0, output: $0.rect) }
  }
}

/// Filling one region (`Image.fill`): each pixel on its own.
struct FillOp: LocalOp {
  let region: PixelRegion
  let color: RGBA
  let image: ImageSize
  let footprint: PixelRect

  init(region: PixelRegion, color: RGBA, image: ImageSize) {
    (self.region, self.color, self.image) = (region, color, image)
    footprint = region.bounds.map { PixelRect(bounds: $0).intersection(PixelRect(image)) } ?? .empty
  }

  var reach: Int { 0 }
  func dependency(of output: PixelRect) -> PixelRect { output }

  func apply(_ tile: PixelBuffer, output: PixelRect) {
    let r = output.intersection(footprint)
    guard !r.isEmpty else { return }
    let (region, w) = (region, image.width)
    let value = (UInt32(color.r) | UInt32(color.g) << 8 | UInt32(color.b) << 16 | UInt32(color.a) << 24)
      .littleEndian
    Parallel.forEachRowRange(r.height) { rows in
      for y in (r.y + rows.lowerBound)..<(r.y + rows.upperBound) {
        let span = region.span(row: y, width: w)
        let lo = Swift.max(span.lowerBound, r.x)
        let hi = Swift.min(span.upperBound, r.maxX)
        guard lo < hi else { continue }
        let row = UnsafeMutableRawPointer(tile.pixel(x: lo, y: y))
        for i in 0..<(hi - lo) { row.storeBytes(of: value, toByteOffset: 4 * i, as: UInt32.self) }
      }
    }
  }
}
