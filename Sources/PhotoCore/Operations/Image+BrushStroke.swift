/// A brush's pen: colour (straight alpha), diameter in pixels and hardness.
public struct Pen: Sendable, Hashable {
  public var color: RGBA
  /// The stroke's diameter in pixels, at least `minimumSize`.
  public var size: Double
  /// 0...1: 1 is a hard edge (a one-pixel anti-aliased ramp); lower values widen the ramp inward
  /// over (1 - hardness) of the radius.
  public var hardness: Double
  /// The smallest diameter drawn, in pixels: a thinner pen is refused by the brush's parameters
  /// (below 1/8192 px its size rounds to zero, where drawing has no meaning).
  public static let minimumSize = 0.01

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
    let op = StrokeOp(points: points, pen: pen, image: ImageSize(width, height))
    withPixels { op.apply($0, output: $0.rect) }
  }
}

/// Drawing one stroke (`Image.drawStroke`): each pixel on its own, inside the stroke's bounding
/// box grown by the pen's reach.
struct StrokeOp: LocalOp {
  let pen: Pen
  let image: ImageSize
  /// Segments as (ax, ay, bx, by); a single point is a zero-length segment.
  let segments: [(Double, Double, Double, Double)]
  /// Coverage is 0 at and beyond this distance from the centre line.
  let penReach: Double
  let footprint: PixelRect

  init(points: [(x: Double, y: Double)], pen: Pen, image: ImageSize) {
    precondition(
      !points.isEmpty && pen.size >= Pen.minimumSize && (0...1).contains(pen.hardness), "bad stroke")
    (self.pen, self.image) = (pen, image)
    var segments: [(Double, Double, Double, Double)] = []
    if points.count == 1 { segments.append((points[0].x, points[0].y, points[0].x, points[0].y)) }
    for k in 1..<Swift.max(points.count, 1) {
      segments.append((points[k - 1].x, points[k - 1].y, points[k].x, points[k].y))
    }
    self.segments = segments
    let reach = pen.size / 2 + 0.5
    penReach = reach
    let minY = segments.map { Swift.min($0.1, $0.3) }.min()!
    let maxY = segments.map { Swift.max($0.1, $0.3) }.max()!
    let minX = segments.map { Swift.min($0.0, $0.2) }.min()!
    let maxX = segments.map { Swift.max($0.0, $0.2) }.max()!
    let y0 = Swift.max(Int((minY - reach).rounded(.down)), 0)
    let y1 = Swift.min(Int((maxY + reach).rounded(.up)), image.height - 1)
    let x0 = Swift.max(Int((minX - reach).rounded(.down)), 0)
    let x1 = Swift.min(Int((maxX + reach).rounded(.up)), image.width - 1)
    footprint =
      y0 <= y1 && x0 <= x1 ? PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1) : .empty
  }

  var reach: Int { 0 }
  func dependency(of output: PixelRect) -> PixelRect { output }

  func apply(_ tile: PixelBuffer, output: PixelRect) {
    let r = output.intersection(footprint)
    guard !r.isEmpty else { return }
    let (pen, reach) = (pen, penReach)
    let color = pen.color
    segments.withUnsafeBufferPointer { segments in
      Parallel.forEachRowRange(r.height, minimumRows: 4) { rows in
        // One row's coverage over the output's columns, reused.
        var cover = [Float](repeating: 0, count: r.width)
        for y in (rows.lowerBound + r.y)..<(rows.upperBound + r.y) {
          let py = Double(y)
          var lo = r.maxX
          var hi = r.x - 1
          for (ax, ay, bx, by) in segments {
            guard py > Swift.min(ay, by) - reach, py < Swift.max(ay, by) + reach else { continue }
            let xs = Swift.max(Int((Swift.min(ax, bx) - reach).rounded(.down)), r.x)
            let xe = Swift.min(Int((Swift.max(ax, bx) + reach).rounded(.up)), r.maxX - 1)
            guard xs <= xe else { continue }
            lo = Swift.min(lo, xs)
            hi = Swift.max(hi, xe)
            let ex = bx - ax
            let ey = by - ay
            let len2 = ex * ex + ey * ey
            for x in xs...xe {
              let px = Double(x)
              var t = len2 > 0 ? ((px - ax) * ex + (py - ay) * ey) / len2 : 0
              t = Swift.min(Swift.max(t, 0), 1)
              let dx = px - (ax + t * ex)
              let dy = py - (ay + t * ey)
              let c = Float(pen.coverage(distance: (dx * dx + dy * dy).squareRoot()))
              if c > cover[x - r.x] { cover[x - r.x] = c }
            }
          }
          guard lo <= hi else { continue }
          let row = tile.row(y)
          for x in lo...hi where cover[x - r.x] > 0 {
            let p = row + (x - tile.rect.x) * 4
            let out = compositeOver(color, RGBA(p[0], p[1], p[2], p[3]), coverage: cover[x - r.x])
            (p[0], p[1], p[2], p[3]) = (out.r, out.g, out.b, out.a)
            cover[x - r.x] = 0
          }
        }
      }
    }
  }
}
