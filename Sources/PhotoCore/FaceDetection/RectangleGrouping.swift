/// OpenCV's `groupRectangles`: merges the detector's raw windows into faces.
enum RectangleGrouping {
  /// True when two boxes are alike: every edge of one lies within
  /// `eps × (min width + min height) / 2` pixels of the other's (OpenCV's `SimilarRects`).
  @inline(__always)
  static func similar(_ a: FaceBox, _ b: FaceBox, eps: Double) -> Bool {
    let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
    return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
      && Double(abs(a.x + a.width - b.x - b.width)) <= delta
      && Double(abs(a.y + a.height - b.y - b.height)) <= delta
  }

  /// True when OpenCV's filter drops group `r1` (of `n1` members) because it lies inside group
  /// `r2` (of `n2`), within `eps` of r2's size, and r2 is the stronger.
  @inline(__always)
  static func swallows(_ r2: FaceBox, _ n2: Int, _ r1: FaceBox, _ n1: Int, eps: Double) -> Bool {
    let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
    let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
    return r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
      && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
  }

  /// Groups `boxes` (pixels) as `cv::groupRectangles(rects, minNeighbors, eps)` does.
  ///
  /// Boxes are partitioned into the connected components of ``similar(_:_:eps:)``; each component
  /// with more than `minNeighbors` members becomes its members' average (rounded as OpenCV rounds
  /// a `Float`); an average that lies inside another kept one (within `eps` of that one's size)
  /// is dropped when the other has more members than max(3, its own) or it has fewer than 3.
  /// With `minNeighbors` 0 the boxes are returned unchanged. Groups come out in the order of
  /// their first member.
  ///
  /// Both pairings look only at boxes that can qualify, through ``BoxBuckets``: boxes of nearby
  /// sizes and positions. The result is the same as comparing every pair, as OpenCV does.
  ///
  /// - Complexity: O(n log n + n·k), k the number of boxes of about the same size within one
  ///   box's reach (a few hundred at most for a detector's raw boxes, which lie on each scale's
  ///   grid).
  static func group(_ boxes: [FaceBox], minNeighbors: Int, eps: Double = 0.2) -> [FaceBox] {
    guard minNeighbors > 0, !boxes.isEmpty else { return boxes }
    // Union-find over all similar pairs.
    var parent = Array(boxes.indices)
    func root(_ i: Int) -> Int {
      var r = i
      while parent[r] != r { r = parent[r] }
      var j = i
      while parent[j] != r { (parent[j], j) = (r, parent[j]) }
      return r
    }
    // Similar boxes lie within reach = eps × (w + h) / 2 of each other in x and in y (measured
    // with either one's size), and their sizes w + h differ by less than a factor 1 + 2 eps.
    let sizeSpan = BoxBuckets.classSpan(ratio: 1 + 2 * eps)
    let buckets = BoxBuckets(boxes, cellScale: eps / 2)
    for (i, a) in boxes.enumerated() {
      let reach = eps * Double(a.width + a.height) * 0.5
      let c = BoxBuckets.sizeClass(a)
      buckets.forEach(
        classes: (c - sizeSpan)...(c + sizeSpan), x: Double(a.x) - reach...Double(a.x) + reach,
        y: Double(a.y) - reach...Double(a.y) + reach
      ) { j in
        if j > i && similar(a, boxes[j], eps: eps) {
          let (ri, rj) = (root(i), root(j))
          if ri != rj { parent[max(ri, rj)] = min(ri, rj) }
        }
      }
    }
    var label = [Int](repeating: -1, count: boxes.count)
    var classOfRoot: [Int: Int] = [:]
    var sums: [(x: Int, y: Int, width: Int, height: Int, count: Int)] = []
    for i in boxes.indices {
      let r = root(i)
      let c: Int
      if let known = classOfRoot[r] {
        c = known
      } else {
        c = sums.count
        classOfRoot[r] = c
        sums.append((0, 0, 0, 0, 0))
      }
      label[i] = c
      sums[c].x += boxes[i].x
      sums[c].y += boxes[i].y
      sums[c].width += boxes[i].width
      sums[c].height += boxes[i].height
      sums[c].count += 1
    }
    let averages = sums.map { s -> FaceBox in
      let k = 1 / Float(s.count)
      func avg(_ v: Int) -> Int { Int((Float(v) * k).rounded(.toNearestOrEven)) }
      return FaceBox(x: avg(s.x), y: avg(s.y), width: avg(s.width), height: avg(s.height))
    }
    // Only groups with more than minNeighbors members are kept, and only they can drop others.
    let kept = averages.indices.filter { sums[$0].count > minNeighbors }
    let keptBoxes = kept.map { averages[$0] }
    // r2 holds r1 (within eps, dx = round(eps × w2), dy likewise) only if w1 + h1 ≤ w2 + h2 +
    // 2 (dx + dy) ≤ (w2 + h2)(1 + 2 eps) + 2, and r2's corner lies within w2 + dx (h2 + dy) of
    // r1's.
    let keptBuckets = BoxBuckets(keptBoxes, cellScale: 1)
    var result: [FaceBox] = []
    for (k, i) in kept.enumerated() {
      let (r1, n1) = (averages[i], sums[i].count)
      var swallowed = false
      let smallestSize = (Double(r1.width + r1.height) - 2) / (1 + 2 * eps)
      let smallest = BoxBuckets.sizeClass(
        FaceBox(x: 0, y: 0, width: max(1, Int(smallestSize.rounded(.down))), height: 0))
      for c in smallest...max(smallest, keptBuckets.largestClass) where !swallowed {
        // Boxes of class c have w + h below 2^(c + 1).
        let side = Double(1 << (c + 1)) * (1 + eps) + 1
        keptBuckets.forEach(
          classes: c...c, x: Double(r1.x) - side...Double(r1.x) + side,
          y: Double(r1.y) - side...Double(r1.y) + side
        ) { m in
          if !swallowed && m != k && swallows(keptBoxes[m], sums[kept[m]].count, r1, n1, eps: eps) {
            swallowed = true
          }
        }
      }
      if !swallowed { result.append(r1) }
    }
    return result
  }
}

/// Boxes bucketed by size class (w + h in [2^c, 2^(c + 1))), then by rows of cells, each cell's
/// boxes sorted by x, so that the boxes of a size class near a point are found by a few binary
/// searches.
struct BoxBuckets {
  private let boxes: [FaceBox]
  /// Indices of `boxes` by (class, cell row, x).
  private var order: [Int] = []
  /// For each class present: its cell height and the start in `order` of each of its cell rows
  /// (relative to `firstRow`), one more at the end.
  private var classes = [(cellHeight: Int, firstRow: Int, starts: [Int])?](
    repeating: nil, count: Int.bitWidth)
  private(set) var largestClass = 0

  /// The size class of a box: ⌊log2(w + h)⌋ (0 for an empty box).
  @inline(__always)
  static func sizeClass(_ b: FaceBox) -> Int {
    let s = max(1, b.width + b.height)
    return Int.bitWidth - 1 - s.leadingZeroBitCount
  }

  /// How many classes apart two boxes whose sizes differ by less than `ratio` can be.
  static func classSpan(ratio: Double) -> Int {
    var span = 1
    while Double(1 << span) < ratio { span += 1 }
    return span
  }

  /// Buckets `boxes`; a class c's cells are `max(1, cellScale × 2^c)` pixels tall.
  init(_ boxes: [FaceBox], cellScale: Double) {
    self.boxes = boxes
    var byClass: [Int: [Int]] = [:]
    for (i, b) in boxes.enumerated() { byClass[Self.sizeClass(b), default: []].append(i) }
    largestClass = byClass.keys.max() ?? 0
    for c in byClass.keys.sorted() {
      let members = byClass[c]!
      let cellHeight = max(1, Int(cellScale * Double(1 << c)))
      func row(_ i: Int) -> Int { Self.floorDiv(boxes[i].y, cellHeight) }
      let firstRow = members.map(row).min()!
      let lastRow = members.map(row).max()!
      let sorted = members.sorted { (row($0), boxes[$0].x, $0) < (row($1), boxes[$1].x, $1) }
      var starts = [Int](repeating: 0, count: lastRow - firstRow + 2)
      let base = order.count
      var k = 0
      for r in firstRow...lastRow {
        starts[r - firstRow] = base + k
        while k < sorted.count && row(sorted[k]) == r { k += 1 }
      }
      starts[lastRow - firstRow + 1] = base + sorted.count
      order += sorted
      classes[c] = (cellHeight, firstRow, starts)
    }
  }

  @inline(__always)
  static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

  /// Calls `body` with the index of every box of a class in `classes` whose (x, y) lies in
  /// `x` × `y` (and possibly a few more in the same cells' rows; callers check).
  func forEach(
    classes range: ClosedRange<Int>, x: ClosedRange<Double>, y: ClosedRange<Double>,
    _ body: (Int) -> Void
  ) {
    let (first, last) = (max(0, range.lowerBound), min(Int.bitWidth - 2, range.upperBound))
    guard first <= last else { return }
    for c in first...last {
      guard let entry = classes[c] else { continue }
      let lowRow = Self.floorDiv(Int(y.lowerBound.rounded(.down)), entry.cellHeight)
      let highRow = Self.floorDiv(Int(y.upperBound.rounded(.up)), entry.cellHeight)
      let (top, bottom) = (max(lowRow, entry.firstRow), min(highRow, entry.firstRow + entry.starts.count - 2))
      guard top <= bottom else { continue }
      for r in top...bottom {
        var lo = entry.starts[r - entry.firstRow]
        var hi = entry.starts[r - entry.firstRow + 1]
        let end = hi
        // The first box of the row with x >= x.lowerBound.
        while lo < hi {
          let mid = (lo + hi) / 2
          if Double(boxes[order[mid]].x) < x.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        while lo < end {
          let i = order[lo]
          if Double(boxes[i].x) > x.upperBound { break }
          body(i)
          lo += 1
        }
      }
    }
  }
}
