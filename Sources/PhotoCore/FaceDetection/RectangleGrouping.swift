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

  /// Groups `boxes` (pixels) as `cv::groupRectangles(rects, minNeighbors, eps)` does.
  ///
  /// Boxes are partitioned into the connected components of ``similar(_:_:eps:)``; each component
  /// with more than `minNeighbors` members becomes its members' average (rounded as OpenCV rounds
  /// a `Float`); an average that lies inside another kept one (within `eps` of that one's size)
  /// is dropped when the other has more members than max(3, its own) or it has fewer than 3.
  /// With `minNeighbors` 0 the boxes are returned unchanged. Groups come out in the order of
  /// their first member.
  ///
  /// - Complexity: O(n log n + n·k), k the number of boxes whose left edges lie within one box's
  ///   reach of each other (O(n²) at worst).
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
    // Two boxes can only be similar when their left edges are within eps × (w + h) / 2 of the
    // first one's size, so in order of x each box need only be compared with the few after it.
    // The components are the same as comparing every pair (OpenCV's partition).
    let byX = boxes.indices.sorted { boxes[$0].x < boxes[$1].x }
    for (k, i) in byX.enumerated() {
      let a = boxes[i]
      let reach = eps * Double(a.width + a.height) * 0.5
      for j in byX[(k + 1)...] {
        if Double(boxes[j].x - a.x) > reach { break }
        if similar(a, boxes[j], eps: eps) {
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
    var result: [FaceBox] = []
    for i in averages.indices {
      let (r1, n1) = (averages[i], sums[i].count)
      if n1 <= minNeighbors { continue }
      var swallowed = false
      for j in averages.indices where j != i && sums[j].count > minNeighbors {
        let (r2, n2) = (averages[j], sums[j].count)
        let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
        let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
        if r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
          && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
        {
          swallowed = true
          break
        }
      }
      if !swallowed { result.append(r1) }
    }
    return result
  }
}
