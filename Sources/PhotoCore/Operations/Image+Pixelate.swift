/// A region of an image, in pixel indices: pixel (x, y) is the point (x, y). It may cross or lie
/// beyond the image's border; only the pixels inside the image are touched.
public enum PixelRegion: Sendable, Hashable {
  /// The pixels x in `x ..< x + width`, y in `y ..< y + height`.
  case rectangle(x: Int, y: Int, width: Int, height: Int)
  /// The pixels with (x - centerX)² + (y - centerY)² ≤ radius²: a pixel exactly on the edge is
  /// inside.
  case circle(centerX: Double, centerY: Double, radius: Double)

  /// The smallest rectangle (inclusive pixel indices, not clamped to any image) holding the region,
  /// or nil when the region holds no pixel.
  public var bounds: (x0: Int, y0: Int, x1: Int, y1: Int)? {
    switch self {
    case .rectangle(let x, let y, let w, let h):
      return w > 0 && h > 0 ? (x, y, x + w - 1, y + h - 1) : nil
    case .circle(let cx, let cy, let r):
      guard r >= 0 else { return nil }
      let b = (
        Int((cx - r).rounded(.up)), Int((cy - r).rounded(.up)), Int((cx + r).rounded(.down)),
        Int((cy + r).rounded(.down))
      )
      return b.0 <= b.2 && b.1 <= b.3 ? b : nil
    }
  }

  /// True when pixel (x, y) is in the region.
  @inline(__always) public func contains(x: Int, y: Int) -> Bool {
    switch self {
    case .rectangle(let rx, let ry, let w, let h):
      return x >= rx && x < rx + w && y >= ry && y < ry + h
    case .circle(let cx, let cy, let r):
      let dx = Double(x) - cx
      let dy = Double(y) - cy
      return dx * dx + dy * dy <= r * r
    }
  }

  /// The region's pixels on row `y`, within columns `0..<width`; empty when none.
  @inline(__always) func span(row y: Int, width: Int) -> Range<Int> {
    var lo: Int
    var hi: Int
    switch self {
    case .rectangle(let rx, let ry, let w, let h):
      guard y >= ry && y < ry + h else { return 0..<0 }
      (lo, hi) = (rx, rx + w - 1)
    case .circle(let cx, let cy, let r):
      let dy = Double(y) - cy
      let rest = r * r - dy * dy
      guard rest >= 0 else { return 0..<0 }
      let s = rest.squareRoot()
      lo = Int((cx - s).rounded(.up))
      hi = Int((cx + s).rounded(.down))
      // Settle the ends with the exact membership test, so that `contains` and `span` agree.
      while contains(x: lo - 1, y: y) { lo -= 1 }
      while lo <= hi && !contains(x: lo, y: y) { lo += 1 }
      while contains(x: hi + 1, y: y) { hi += 1 }
      while hi >= lo && !contains(x: hi, y: y) { hi -= 1 }
    }
    lo = max(lo, 0)
    hi = min(hi, width - 1)
    return lo <= hi ? lo..<(hi + 1) : 0..<0
  }
}

extension Image {
  /// Pixelates `region`: the grid of `blockSize`-pixel squares anchored at the top-left corner of
  /// the region's bounding box gives each block the mean colour (each of R, G, B, A rounded to
  /// nearest) of its pixels that are inside both the region and the image. Pixels outside the
  /// region keep their bytes.
  ///
  /// - Parameters:
  ///   - region: in pixel indices; may cross the border.
  ///   - blockSize: the block's side in pixels, at least 1 (1 changes nothing).
  /// - Complexity: O(pixels in the region), parallel over rows of blocks.
  public mutating func pixelate(_ region: PixelRegion, blockSize: Int) {
    let op = PixelateOp(region: region, blockSize: blockSize, image: ImageSize(width, height))
    withPixels { op.apply($0, output: $0.rect) }
  }
}

/// Pixelating one region (`Image.pixelate`) as a local operation: a block's mean needs all of
/// the block's pixels, so a rectangle of output needs its blocks whole.
struct PixelateOp: LocalOp {
  let region: PixelRegion
  let blockSize: Int
  let image: ImageSize
  /// The region's bounding box (unclipped: it anchors the block grid), or nil when empty.
  let bounds: (x0: Int, y0: Int, x1: Int, y1: Int)?
  let footprint: PixelRect

  init(region: PixelRegion, blockSize: Int, image: ImageSize) {
    precondition(blockSize >= 1, "block size must be at least 1")
    (self.region, self.blockSize, self.image) = (region, blockSize, image)
    bounds = blockSize > 1 ? region.bounds : nil
    footprint = bounds.map { PixelRect(bounds: $0).intersection(PixelRect(image)) } ?? .empty
  }

  var reach: Int { footprint.isEmpty ? 0 : blockSize - 1 }

  /// The blocks (as a rectangle of block indices from the grid's origin) that hold pixels of
  /// `rect` inside the footprint, or nil.
  func blocks(meeting rect: PixelRect) -> (columns: ClosedRange<Int>, rows: ClosedRange<Int>)? {
    guard let b = bounds else { return nil }
    let r = rect.intersection(footprint)
    guard !r.isEmpty else { return nil }
    return (
      ((r.x - b.x0) / blockSize)...((r.maxX - 1 - b.x0) / blockSize),
      ((r.y - b.y0) / blockSize)...((r.maxY - 1 - b.y0) / blockSize)
    )
  }

  func dependency(of output: PixelRect) -> PixelRect {
    guard let b = bounds, let blocks = blocks(meeting: output) else { return output }
    let whole = PixelRect(
      x: b.x0 + blocks.columns.lowerBound * blockSize, y: b.y0 + blocks.rows.lowerBound * blockSize,
      width: blocks.columns.count * blockSize, height: blocks.rows.count * blockSize)
    return output.union(whole.intersection(footprint))
  }

  func apply(_ tile: PixelBuffer, output: PixelRect) {
    guard let b = bounds, let blocks = blocks(meeting: output) else { return }
    let needed = dependency(of: output)
    precondition(tile.rect.contains(needed), "pixelate needs its blocks whole")
    let (region, blockSize, w) = (region, blockSize, image.width)
    let fp = footprint
    let firstColumn = blocks.columns.lowerBound
    let columns = blocks.columns.count
    let xs = b.x0 + firstColumn * blockSize
    let xe = b.x0 + (blocks.columns.upperBound + 1) * blockSize  // exclusive
    Parallel.forEachRowRange(blocks.rows.count, minimumRows: 1) { blockRows in
      // Five sums per block column: R, G, B, A and the pixel count; reused for every block row.
      var sums = [Int](repeating: 0, count: columns * 5)
      sums.withUnsafeMutableBufferPointer { sums in
        // Calls `body` with each block column (from `firstColumn`) that row y's span crosses
        // and the stretch of pixels there: no division per pixel.
        func forEachStretch(
          ofRow y: Int, _ body: (_ column: Int, _ pixels: UnsafeMutablePointer<UInt32>, _ count: Int) -> Void
        ) {
          let span = region.span(row: y, width: w)
          var x = Swift.max(span.lowerBound, xs)
          let end = Swift.min(span.upperBound, xe)
          let row = UnsafeMutableRawPointer(tile.row(y)).bindMemory(
            to: UInt32.self, capacity: tile.rect.width)
          while x < end {
            let c = (x - b.x0) / blockSize
            let stop = Swift.min(end, b.x0 + (c + 1) * blockSize)
            body(c - firstColumn, row + (x - tile.rect.x), stop - x)
            x = stop
          }
        }
        for blockRow in blockRows {
          let top = b.y0 + (blocks.rows.lowerBound + blockRow) * blockSize
          let rows = Swift.max(top, fp.y)..<Swift.min(top + blockSize, fp.maxY)
          for k in 0..<sums.count { sums[k] = 0 }
          for y in rows {
            forEachStretch(ofRow: y) { column, pixels, count in
              var (r, g, bl, a) = (0, 0, 0, 0)
              for i in 0..<count {
                let p = UInt32(littleEndian: pixels[i])
                r &+= Int(p & 255)
                g &+= Int((p >> 8) & 255)
                bl &+= Int((p >> 16) & 255)
                a &+= Int(p >> 24)
              }
              let k = column * 5
              sums[k] += r
              sums[k + 1] += g
              sums[k + 2] += bl
              sums[k + 3] += a
              sums[k + 4] += count
            }
          }
          // Turn each column's sums into its mean pixel, stored in the R slot.
          for c in 0..<columns where sums[c * 5 + 4] > 0 {
            let n = sums[c * 5 + 4]
            var mean = 0
            for j in 0..<4 { mean |= ((sums[c * 5 + j] + n / 2) / n) << (8 * j) }
            sums[c * 5] = mean
          }
          for y in rows {
            forEachStretch(ofRow: y) { column, pixels, count in
              let value = UInt32(truncatingIfNeeded: sums[column * 5]).littleEndian
              for i in 0..<count { pixels[i] = value }
            }
          }
        }
      }
    }
  }
}
