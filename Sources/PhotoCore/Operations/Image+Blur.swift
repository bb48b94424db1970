import Synchronization

extension Image {
  /// Blurs the pixels of `region` with three passes of a box blur of radius `radius` pixels (close
  /// to a Gaussian of σ ≈ radius), reading neighbours outside the region (edges of the image are
  /// repeated). Pixels outside the region keep their bytes.
  ///
  /// - Complexity: O(pixels in the region's bounding box grown by 3 × radius), row-parallel.
  public mutating func blur(_ region: PixelRegion, radius: Int) {
    let op = BlurOp(region: region, radius: radius, image: ImageSize(width, height))
    withPixels { op.apply($0, output: $0.rect) }
  }
}

/// Blurring one region (`Image.blur`) as a local operation. The passes run over the region's
/// patch, its bounding box grown by 3 × radius (clipped to the image), with running sums from the
/// patch's edges: a pixel's value depends on the whole patch, so any rectangle of output that
/// meets the region needs the whole patch. The blurred region is computed once per render and
/// kept (`memo`), so that each band of output meeting it copies it instead of blurring again.
struct BlurOp: LocalOp {
  let region: PixelRegion
  let radius: Int
  let image: ImageSize
  /// The region's pixels inside the image (clipped bounding box), or empty.
  let footprint: PixelRect
  /// The pixels the passes read.
  let patch: PixelRect
  private let memo = BlurMemo()

  init(region: PixelRegion, radius: Int, image: ImageSize) {
    precondition(radius >= 0, "blur radius must be at least 0")
    (self.region, self.radius, self.image) = (region, radius, image)
    let all = PixelRect(image)
    if radius > 0, let b = region.bounds {
      footprint = PixelRect(bounds: b).intersection(all)
      patch =
        footprint.isEmpty
        ? .empty : PixelRect(bounds: b).grown(dx: 3 * radius, dy: 3 * radius).intersection(all)
    } else {
      (footprint, patch) = (.empty, .empty)
    }
  }

  var reach: Int { footprint.isEmpty ? 0 : Swift.max(patch.width, patch.height) }

  func dependency(of output: PixelRect) -> PixelRect {
    output.intersects(footprint) ? output.union(patch) : output
  }

  func apply(_ tile: PixelBuffer, output: PixelRect) {
    guard output.intersects(footprint) else { return }
    let blurred = memo.value { () -> [UInt8] in
      precondition(tile.rect.contains(patch), "blur needs its whole patch")
      return blurredFootprint(tile)
    }
    // Copy the region's pixels inside the output from the blurred footprint.
    let (fp, w) = (footprint, image.width)
    let rows = output.intersection(fp).rows
    blurred.withUnsafeBufferPointer { src in
      for y in rows {
        let span = region.span(row: y, width: w)
        let lo = Swift.max(span.lowerBound, output.x)
        let hi = Swift.min(span.upperBound, output.maxX)
        guard lo < hi else { continue }
        (tile.pixel(x: lo, y: y)).update(
          from: src.baseAddress! + ((y - fp.y) * fp.width + (lo - fp.x)) * 4, count: (hi - lo) * 4)
      }
    }
  }

  /// The blurred values of the footprint's pixels (the region's own; others are unused), rows
  /// packed.
  private func blurredFootprint(_ tile: PixelBuffer) -> [UInt8] {
    let (pw, ph) = (patch.width, patch.height)
    // The patch in Float, 4 channels, and a second buffer for each pass's output.
    var values = [Float](repeating: 0, count: pw * ph * 4)
    for y in 0..<ph {
      let row = tile.pixel(x: patch.x, y: patch.y + y)
      for x in 0..<pw {
        for c in 0..<4 { values[(y * pw + x) * 4 + c] = Float(row[x * 4 + c]) }
      }
    }
    var other = values
    for _ in 0..<3 {
      boxPass(from: values, to: &other, width: pw, height: ph, radius: radius, horizontal: true)
      boxPass(from: other, to: &values, width: pw, height: ph, radius: radius, horizontal: false)
    }
    let fp = footprint
    var out = [UInt8](repeating: 0, count: fp.area * 4)
    for y in fp.rows {
      for x in fp.columns {
        let d = ((y - fp.y) * fp.width + x - fp.x) * 4
        let s = ((y - patch.y) * pw + x - patch.x) * 4
        for c in 0..<4 { out[d + c] = UInt8(Swift.min(Swift.max(values[s + c] + 0.5, 0), 255)) }
      }
    }
    return out
  }
}

/// A value computed once, by the first caller, and kept for the others.
final class BlurMemo: Sendable {
  private let stored = Mutex<[UInt8]?>(nil)

  func value(_ make: () -> [UInt8]) -> [UInt8] {
    stored.withLock { stored in
      if let v = stored { return v }
      let v = make()
      stored = v
      return v
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
