/// Greedy non-maximum suppression with the kept boxes indexed by size and place, so that each
/// box is compared only with kept boxes that could overlap it enough.
///
/// Two boxes can overlap by an intersection over union of `t` or more only when each one's width
/// and height are at least `t` times the other's (the intersection, at most the smaller width
/// times the smaller height, is at least `t` times either box's area). So the kept boxes are
/// filed by the power of two of their longer side, each size class in a grid of cells of that
/// size, under the cell of its top-left corner: a box looks only in the classes of compatible
/// sizes, and only in the cells near it. A box that overlaps none of those is kept. The result
/// is exactly the greedy one (the index only skips pairs that cannot overlap enough; the pairs
/// it looks at are compared by the caller's own test).
///
/// Boxes that differ in shape can still crowd one place (long thin boxes crossing each other,
/// boxes nested at many sizes): the work, cells visited and boxes compared, is counted, and the
/// removal gives up past `workLimit`, which real detections stay far below.
enum OverlapRemoval {
  /// The most cells visited and pairs compared in one removal: about a second of work. The most
  /// the tests measure on real photos is under 1% of it.
  static let workLimit = 200_000_000

  /// The boxes kept, by index, in the order they were taken.
  ///
  /// - Parameters:
  ///   - bounds: each box's corners (x1 < x2, y1 < y2, finite), in the order the boxes are
  ///     taken (best first).
  ///   - iou: the overlap (intersection over union) at which a box is dropped, in (0, 1].
  ///   - overlaps: whether box `i` overlaps the kept box `k` by `iou` or more (the caller's
  ///     exact test).
  /// - Returns: The indices kept, ascending; nil when the work passed `workLimit`.
  /// - Complexity: O(n) cells visited for boxes of similar shapes, n the number of boxes.
  static func kept(
    _ bounds: [(x1: Double, y1: Double, x2: Double, y2: Double)], iou: Double, workLimit: Int = workLimit,
    overlaps: (_ i: Int, _ k: Int) -> Bool
  ) -> [Int]? {
    precondition(iou > 0 && iou <= 1, "iou must be in (0, 1]")
    guard let first = bounds.first else { return [] }
    var (minX, minY, maxX, maxY) = first
    for b in bounds {
      (minX, minY) = (min(minX, b.x1), min(minY, b.y1))
      (maxX, maxY) = (max(maxX, b.x2), max(maxY, b.y2))
    }
    // The finest cells hold about four boxes' worth of the area at most, so the grids take
    // memory in proportion to the boxes, whatever the image's size.
    let area = max(maxX - minX, 1) * max(maxY - minY, 1)
    let finest = ceilLog2((area / Double(max(4096, 4 * bounds.count))).squareRoot())
    let coarsest = max(finest, ceilLog2(max(maxX - minX, maxY - minY)))
    var classes = (finest...coarsest).map { level in
      SizeClass(
        cell: Double(sign: .plus, exponent: level, significand: 1), width: maxX - minX, height: maxY - minY)
    }
    func classIndex(_ side: Double) -> Int {
      min(max(floorLog2(side), finest), coarsest) - finest
    }
    // Rounding in the caller's test may pass a pair a hair outside what exact arithmetic
    // allows: the index looks a little wider than it must.
    let slack = 1e-6 * max(maxX - minX, maxY - minY, 1) + 1e-9
    let loose = iou * (1 - 1e-9)
    var kept: [Int] = []
    var next: [Int32] = []
    var work = 0
    for (i, b) in bounds.enumerated() {
      let side = max(b.x2 - b.x1, b.y2 - b.y1)
      var overlapped = false
      search: for c in classes.indices where classes[c].count > 0 {
        let s = classes[c]
        guard s.longest >= loose * side - slack, s.shortest * loose <= side + slack else { continue }
        // A kept box's top-left corner lies within its widest (tallest) size to the left of
        // (above) this box, and before its right (bottom) edge.
        let (x0, x1) = (s.column(b.x1 - minX - s.widest - slack), s.column(b.x2 - minX + slack))
        let (y0, y1) = (s.row(b.y1 - minY - s.tallest - slack), s.row(b.y2 - minY + slack))
        for row in y0...y1 {
          for column in x0...x1 {
            work += 1
            var k = s.heads[row * s.columns + column]
            while k >= 0 {
              work += 1
              if overlaps(i, kept[Int(k)]) {
                overlapped = true
                break search
              }
              k = next[Int(k)]
            }
          }
        }
        if work > workLimit { return nil }
      }
      if work > workLimit { return nil }
      if overlapped { continue }
      let c = classIndex(side)
      let cell = classes[c].row(b.y1 - minY) * classes[c].columns + classes[c].column(b.x1 - minX)
      next.append(classes[c].heads[cell])
      classes[c].heads[cell] = Int32(kept.count)
      classes[c].add(width: b.x2 - b.x1, height: b.y2 - b.y1)
      kept.append(i)
    }
    return kept
  }

  /// ⌊log₂ v⌋ for v ≥ 1, else 0.
  private static func floorLog2(_ v: Double) -> Int { v >= 1 ? Int(v.exponent) : 0 }
  /// ⌈log₂ v⌉ for v ≥ 1, else 0.
  private static func ceilLog2(_ v: Double) -> Int {
    let e = floorLog2(v)
    return v > Double(sign: .plus, exponent: e, significand: 1) ? e + 1 : e
  }

  /// The kept boxes of one size class: a grid of `cell`-pixel cells over the boxes' extent, each
  /// holding the kept boxes whose top-left corner lies in it (a list through `next`), and the
  /// extremes of their sizes.
  private struct SizeClass {
    let cell: Double
    let columns: Int, rows: Int
    var heads: [Int32]
    var count = 0
    var widest = 0.0, tallest = 0.0
    /// The longest and shortest of the boxes' longer sides.
    var longest = 0.0, shortest = Double.infinity

    init(cell: Double, width: Double, height: Double) {
      self.cell = cell
      columns = Int(width / cell) + 1
      rows = Int(height / cell) + 1
      heads = [Int32](repeating: -1, count: columns * rows)
    }

    func column(_ x: Double) -> Int { Self.index(x / cell, below: columns) }
    func row(_ y: Double) -> Int { Self.index(y / cell, below: rows) }

    /// `v` rounded down and clamped to 0..<count (never converting a value out of range).
    private static func index(_ v: Double, below count: Int) -> Int {
      let d = v.rounded(.down)
      return d >= 0 ? (d < Double(count - 1) ? Int(d) : count - 1) : 0
    }

    mutating func add(width: Double, height: Double) {
      count += 1
      (widest, tallest) = (max(widest, width), max(tallest, height))
      let side = max(width, height)
      (longest, shortest) = (max(longest, side), min(shortest, side))
    }
  }
}
