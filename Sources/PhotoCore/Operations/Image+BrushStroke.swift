/// A brush's pen: colour (straight alpha), diameter in pixels and hardness.
public struct Pen: Sendable, Hashable {
  public var color: RGBA
  /// The stroke's diameter in pixels, > 0.
  public var size: Double
  /// 0...1: 1 is a hard edge (a one-pixel anti-aliased ramp); lower values widen the ramp inward
  /// over (1 - hardness) of the radius.
  public var hardness: Double
  public init(color: RGBA, size: Double, hardness: Double) {
    (self.color, self.size, self.hardness) = (color, size, hardness)
  }

  /// How much paint a pixel gets at `distance` pixels from the stroke's centre line, 0...1:
  /// clamp((R + 0.5 - d) / (R·(1 - hardness) + 1), 0, 1) with R = size / 2. At hardness 1 this is
  /// the one-pixel ramp centred on the edge; the ramp always ends at R + 0.5.
  @inline(__always) public func coverage(distance d: Double) -> Double {
    let r = size / 2
    return min(max((r + 0.5 - d) / (r * (1 - hardness) + 1), 0), 1)
  }
}

extension Image {
  /// Draws one stroke: the polyline through `points` (pixel indices: point (x, y) is pixel
  /// (x, y)'s centre), with round caps and joins, composited over the image with straight-alpha
  /// "over". A pixel's paint is the pen's coverage at its distance from the nearest segment, so
  /// overlapping segments of one stroke never paint twice. One point draws a dot.
  ///
  /// - Complexity: O(Σ segment bounding-box areas), row-parallel.
  public mutating func drawStroke(_ points: [(x: Double, y: Double)], pen: Pen) {
    precondition(!points.isEmpty && pen.size > 0 && (0...1).contains(pen.hardness), "bad stroke")
    let (w, h) = (width, height)
    let reach = pen.size / 2 + 0.5  // coverage is 0 at and beyond this distance
    // Segments as (ax, ay, bx, by); a single point is a zero-length segment.
    var segments: [(Double, Double, Double, Double)] = []
    if points.count == 1 { segments.append((points[0].x, points[0].y, points[0].x, points[0].y)) }
    for k in 1..<max(points.count, 1) {
      segments.append((points[k - 1].x, points[k - 1].y, points[k].x, points[k].y))
    }
    let minY = segments.map { min($0.1, $0.3) }.min()!
    let maxY = segments.map { max($0.1, $0.3) }.max()!
    let y0 = max(Int((minY - reach).rounded(.down)), 0)
    let y1 = min(Int((maxY + reach).rounded(.up)), h - 1)
    guard y0 <= y1 else { return }
    let color = pen.color
    bytes.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      segments.withUnsafeBufferPointer { segments in
        Parallel.forEachRowRange(y1 - y0 + 1, minimumRows: 4) { rows in
          var cover = [Float](repeating: 0, count: w)  // one row's coverage, reused
          for y in (rows.lowerBound + y0)..<(rows.upperBound + y0) {
            let py = Double(y)
            var lo = w
            var hi = -1
            for (ax, ay, bx, by) in segments {
              guard py > min(ay, by) - reach, py < max(ay, by) + reach else { continue }
              let xs = max(Int((min(ax, bx) - reach).rounded(.down)), 0)
              let xe = min(Int((max(ax, bx) + reach).rounded(.up)), w - 1)
              guard xs <= xe else { continue }
              lo = min(lo, xs)
              hi = max(hi, xe)
              let ex = bx - ax
              let ey = by - ay
              let len2 = ex * ex + ey * ey
              for x in xs...xe {
                let px = Double(x)
                var t = len2 > 0 ? ((px - ax) * ex + (py - ay) * ey) / len2 : 0
                t = min(max(t, 0), 1)
                let dx = px - (ax + t * ex)
                let dy = py - (ay + t * ey)
                let c = Float(pen.coverage(distance: (dx * dx + dy * dy).squareRoot()))
                if c > cover[x] { cover[x] = c }
              }
            }
            guard lo <= hi else { continue }
            for x in lo...hi where cover[x] > 0 {
              let i = (y * w + x) * 4
              let out = compositeOver(
                color, RGBA(base[i], base[i + 1], base[i + 2], base[i + 3]), coverage: cover[x])
              (base[i], base[i + 1], base[i + 2], base[i + 3]) = (out.r, out.g, out.b, out.a)
              cover[x] = 0
            }
          }
        }
      }
    }
  }
}
