import Foundation
import Testing

@testable import PhotoCore

/// A deterministic textured grey image (an LCG's bytes, with flat patches so that some windows
/// have no variance).
func noiseGrey(width: Int, height: Int, seed: UInt32 = 12345, flatEvery: Int = 0) -> GreyImage {
  var state = seed
  var pixels = [UInt8](repeating: 0, count: width * height)
  for i in pixels.indices {
    state = state &* 1_103_515_245 &+ 12345
    pixels[i] = UInt8(truncatingIfNeeded: state >> 16)
  }
  if flatEvery > 0 {
    for y in 0..<height where (y / 30) % flatEvery == 0 {
      for x in 0..<min(width, 60) { pixels[y * width + x] = 77 }
    }
  }
  return GreyImage(width: width, height: height, pixels: pixels)
}

/// The detector's streaming kernels against the whole-image ones the reference tests pin down.
@Suite struct DetectorKernelTests {
  /// Band tables, fed row by row and trimmed from the top, hold the whole-image tables' entries
  /// less the sums above the band: the same four-corner differences.
  @Test(arguments: [false, true])
  func integralRowsMatchTheWholeTable(tilted: Bool) {
    let image = noiseGrey(width: 37, height: 29)
    let whole = IntegralImage(image, tilted: tilted)
    for layout in [CascadeEvaluator.Layout.plain, .evenOdd(half: (37 + 2) / 2)] {
      for bandStart in [0, 5] {
        let rows = IntegralRows(
          width: 37, capacity: 9, layout: layout, tilted: tilted, sourceRows: 29 - bandStart)
        image.pixels.withUnsafeBufferPointer { px in
          for y in bandStart..<29 {
            if rows.count == rows.capacity { rows.discard(4) }
            rows.append(px.baseAddress! + y * 37)
            // The newest row R (band rows bandStart..<bandStart + R) against the whole table.
            let r = rows.endRow - 1
            for x in 0...37 {
              let at = (rows.count - 1) * rows.stride + layout.column(x)
              let top = bandStart * whole.stride + x
              let bottom = (bandStart + r) * whole.stride + x
              #expect(rows.values[at] == whole.values[bottom] &- whole.values[top])
              #expect(rows.squares[at] == whole.squares[bottom] &- whole.squares[top])
            }
            if tilted && bandStart == 0 {
              for x in 0...37 {
                let at = rows.tiltedOffset + (rows.count - 1) * rows.stride + layout.column(x)
                #expect(rows.values[at] == whole.values[whole.tiltedOffset + r * whole.stride + x])
              }
            }
          }
        }
      }
    }
  }

  /// A tilted rectangle's four-corner sum is the same in a band's table as in the whole image's,
  /// for every position where it lies inside the band.
  @Test func tiltedSumsMatchInsideABand() {
    let image = noiseGrey(width: 23, height: 31, seed: 9)
    let whole = IntegralImage(image, tilted: true)
    let bandStart = 7
    let rows = IntegralRows(width: 23, capacity: 31, layout: .plain, tilted: true, sourceRows: 24)
    image.pixels.withUnsafeBufferPointer { px in
      for y in bandStart..<31 { rows.append(px.baseAddress! + y * 23) }
    }
    // Rectangle (x 3, y 0, width 4, height 3) rotated 45°: corners T(3, 0), T(0, 3), T(7, 4), T(4, 7).
    func sum(_ t: (Int, Int) -> Int32, _ x: Int, _ y: Int) -> Int32 {
      t(x + 3, y) &- t(x + 0, y + 3) &- t(x + 7, y + 4) &+ t(x + 4, y + 7)
    }
    for y in bandStart..<(31 - 7) {
      for x in 0..<(23 - 7) {
        let inWhole = sum({ whole.values[whole.tiltedOffset + $1 * whole.stride + $0] }, x, y)
        let inBand = sum(
          { rows.values[rows.tiltedOffset + $1 * rows.stride + $0] }, x, y - bandStart)
        #expect(inWhole == inBand)
      }
    }
  }

  /// Rows made one at a time, starting anywhere, equal `resized(width:height:)`'s.
  @Test(arguments: [(20, 12), (9, 7), (36, 22), (37, 11), (1, 1)])
  func resizedRowsMatchResized(width: Int, height: Int) {
    let image = noiseGrey(width: 37, height: 23, seed: 3)
    let expected = image.resized(width: width, height: height)
    image.pixels.withUnsafeBufferPointer { px in
      for start in [0, height / 2] {
        var rows = GreyImage.ResizedRows(px.baseAddress!, width: 37, height: 23, to: (width, height))
        var line = [UInt8](repeating: 0, count: width)
        for y in start..<height {
          line.withUnsafeMutableBufferPointer { rows.row(y, into: $0.baseAddress!) }
          #expect(Array(expected.pixels[(y * width)..<((y + 1) * width)]) == line, "row \(y)")
        }
      }
    }
  }

  // MARK: Bounded work

  /// Every stump of the frontal face cascade reads its merged corners (`HaarStage`'s shapes):
  /// 6 corners for an edge, 8 for a line and 9 for a diagonal, instead of 8, 8 and 12.
  @Test func everyFrontalFaceStumpTakesAMergedShape() throws {
    let cascade = try defaultCascade.get()
    let evaluator = CascadeEvaluator(cascade, stride: 101, tiltedOffset: 0)
    #expect(evaluator.laneStumps.isEmpty)
    #expect(evaluator.laneCorners.count == cascade.trees.count)
    var shapes: [CascadeEvaluator.MergedShape: Int] = [:]
    for merged in cascade.mergedFeatures { if let merged { shapes[merged.shape, default: 0] += 1 } }
    #expect(Set(shapes.keys) == [.line, .edge, .diagonal, .negatedDiagonal])
    // A feature of two rectangles side by side (2 × the right half less the whole) is an edge.
    let edge = HaarCascade.Feature(
      rects: [
        HaarCascade.Rect(x: 2, y: 3, width: 8, height: 4, weight: -1),
        HaarCascade.Rect(x: 6, y: 3, width: 4, height: 4, weight: 2),
      ], tilted: false)
    #expect(HaarCascade.merged(edge)?.shape == .edge)
    // Weights that are not integers do not merge.
    var fractional = edge
    fractional.rects[1].weight = 2.5
    #expect(HaarCascade.merged(fractional) == nil)
  }

  /// A cascade whose only stage passes every window it sees.
  static let acceptEverything = """
    <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
    <height>24</height><width>24</width><stageParams><maxWeakCount>1</maxWeakCount></stageParams>
    <featureParams><maxCatCount>0</maxCatCount></featureParams><stageNum>1</stageNum>
    <stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>-1.</stageThreshold>
    <weakClassifiers><_><internalNodes>0 -1 0 0.</internalNodes><leafValues>1. 1.</leafValues>
    </_></weakClassifiers></_></stages>
    <features><_><rects><_>0 0 24 24 -1.</_><_>0 0 12 24 2.</_></rects></_></features>
    </cascade></opencv_storage>
    """

  @Test func aCascadeThatAcceptsEverythingIsStopped() throws {
    let cascade = try HaarCascade(xml: Array(Self.acceptEverything.utf8))
    let image = noiseGrey(width: 1000, height: 1000)
    let limit = HaarDetector.candidateLimit(width: 1000, height: 1000)
    #expect(limit == 125_000)
    #expect(throws: DetectionError.tooManyCandidates(limit: limit)) {
      try HaarDetector.detect(in: image, cascade: cascade, options: DetectionOptions())
    }
    #expect(throws: DetectionError.tooManyCandidates(limit: limit)) {
      try HaarDetector.detect(in: image, cascade: cascade, options: DetectionOptions(), parallel: false)
    }
    // Below the limit the same cascade is searched to the end: a small image, every window.
    let small = noiseGrey(width: 60, height: 40)
    let raw = try HaarDetector.detect(
      in: small, cascade: cascade, options: DetectionOptions(scaleFactor: 1.1, minNeighbors: 0))
    #expect(raw == HaarDetector.rawDetections(in: small, cascade: cascade, options: DetectionOptions()))
    #expect(raw.count > 300)
  }

  /// The search stops within a row of passing the limit, rather than finishing the scale.
  @Test func theSearchStopsSoonAfterTheLimit() throws {
    let cascade = try HaarCascade(xml: Array(Self.acceptEverything.utf8))
    let image = noiseGrey(width: 300, height: 200)
    let search = try #require(
      ScaleSearch(greyWidth: 300, greyHeight: 200, cascade: cascade, scale: 1, stripes: 9))
    let budget = CandidateBudget(limit: 1000)
    let hits = image.pixels.withUnsafeBufferPointer { px in
      search.search(
        0..<search.rows, in: px.baseAddress!, greyWidth: 300, greyHeight: 200, cascade: cascade,
        budget: budget)
    }
    #expect(budget.isSpent)
    #expect(hits.count > 1000 && hits.count <= 1000 + search.columns / search.step + 1)
    let everything = image.pixels.withUnsafeBufferPointer { px in
      search.search(
        0..<search.rows, in: px.baseAddress!, greyWidth: 300, greyHeight: 200, cascade: cascade,
        budget: CandidateBudget(limit: .max))
    }
    #expect(everything.count == (search.rows + 1) / 2 * ((search.columns + 1) / 2))
    #expect(Array(everything.prefix(hits.count)) == hits)
  }

  // MARK: Grouping

  /// OpenCV's groupRectangles written the obvious way: every pair compared.
  static func referenceGroup(_ boxes: [FaceBox], minNeighbors: Int, eps: Double = 0.2) -> [FaceBox] {
    guard minNeighbors > 0, !boxes.isEmpty else { return boxes }
    var label = Array(boxes.indices)
    func root(_ i: Int) -> Int { label[i] == i ? i : root(label[i]) }
    for i in boxes.indices {
      for j in boxes.indices where j > i && RectangleGrouping.similar(boxes[i], boxes[j], eps: eps) {
        let (a, b) = (root(i), root(j))
        if a != b { label[max(a, b)] = min(a, b) }
      }
    }
    var classes: [Int: Int] = [:]
    var members: [[FaceBox]] = []
    for i in boxes.indices {
      let r = root(i)
      if classes[r] == nil {
        classes[r] = members.count
        members.append([])
      }
      members[classes[r]!].append(boxes[i])
    }
    let averages = members.map { m -> FaceBox in
      let k = 1 / Float(m.count)
      func avg(_ v: Int) -> Int { Int((Float(v) * k).rounded(.toNearestOrEven)) }
      return FaceBox(
        x: avg(m.map(\.x).reduce(0, +)), y: avg(m.map(\.y).reduce(0, +)),
        width: avg(m.map(\.width).reduce(0, +)), height: avg(m.map(\.height).reduce(0, +)))
    }
    return averages.indices.filter { i in
      let n1 = members[i].count
      guard n1 > minNeighbors else { return false }
      return !averages.indices.contains { j in
        j != i && members[j].count > minNeighbors
          && RectangleGrouping.swallows(averages[j], members[j].count, averages[i], n1, eps: eps)
      }
    }.map { averages[$0] }
  }

  /// Random clusters of boxes of every size, some inside others: the bucketed grouping finds the
  /// reference's groups, in its order.
  @Test(arguments: 1...6)
  func groupingMatchesTheObviousAlgorithm(seed: UInt64) {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    func next(_ n: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(n))
    }
    var boxes: [FaceBox] = []
    for _ in 0..<(40 + next(80)) {
      let side = 3 + next(seed % 2 == 0 ? 300 : 40)
      let (cx, cy) = (next(2000) - 100, next(1500))
      for _ in 0..<(1 + next(8)) {
        let s = max(1, side + next(side / 4 + 1) - side / 8)
        boxes.append(
          FaceBox(x: cx + next(side / 5 + 1), y: cy + next(side / 5 + 1), width: s, height: s + next(3)))
      }
      if next(4) == 0 {  // a smaller group inside this one
        for _ in 0..<(1 + next(6)) {
          boxes.append(FaceBox(x: cx + side / 4, y: cy + side / 4, width: side / 2, height: side / 2))
        }
      }
    }
    for minNeighbors in [1, 2, 3, 5] {
      #expect(
        RectangleGrouping.group(boxes, minNeighbors: minNeighbors)
          == Self.referenceGroup(boxes, minNeighbors: minNeighbors), "minNeighbors \(minNeighbors)")
    }
  }

  /// The crowd photo's real raw windows group as the reference groups them.
  @Test func groupingMatchesOnTheCrowdsRawWindows() throws {
    let crowd = try CrowdPhoto.reference()
    let raw = try #require(crowd.runs.first { $0.options.minNeighbors == 0 }).boxes
    let grouped = try #require(crowd.runs.first { $0.options.minNeighbors == 3 }).boxes
    #expect(RectangleGrouping.group(raw, minNeighbors: 3) == grouped)
    #expect(Self.referenceGroup(raw, minNeighbors: 3) == grouped)
  }
}
