import CCPUID
import HaarKernels
import HaarKernelsAVX2
import HaarKernelsAVX512

/// A ``HaarCascade`` compiled for one integral-table row stride: every rectangle becomes four
/// offsets from the window's top-left table entry, so evaluating a window is loads and arithmetic.
///
/// The arithmetic is OpenCV's (`HaarEvaluator`, `predictOrderedStump`, `predictOrdered`):
/// - a window's variance factor is `Float(1 / sqrt(area·Σx² − (Σx)²))` over the window less a
///   one-pixel border, computed in `Double`; windows with `area · factor ≥ 0.1` (almost flat) or
///   no variance are rejected;
/// - a feature's value is `(w0·s0 + w1·s1 [+ w2·s2]) · factor` in `Float`, where s are rectangle
///   sums converted to `Float`;
/// - a weak classifier compares that value with its `Float` threshold, and a stage sums the chosen
///   `Float` leaves in `Double` and fails when the sum is below its threshold.
///
/// For stump cascades, ``firstStage(_:_:count:codes:factors:)`` runs the variance test and stage 0
/// on a row of windows, and ``laterStages(_:factors:flags:count:hits:)`` the later stages on the
/// windows that passed, in the kernels of `Sources/HaarKernels` (8 or 16 windows a vector, in the
/// build ``HaarKernel/best`` picks). Each lane does exactly the scalar operations in the scalar
/// order (IEEE `Float` and `Double` arithmetic, no fused multiply-add), or for features whose
/// value is provably an exact integer (``isExactInteger(_:)``) the same value in
/// `Int32`, so its results are the scalar ones bit for bit.
struct CascadeEvaluator {
  /// A feature's rectangles as table offsets (corners p0 − p1 − p2 + p3) and weights.
  struct CompiledFeature {
    var a: SIMD4<Int32>, b: SIMD4<Int32>, c: SIMD4<Int32>
    var weightA: Float, weightB: Float, weightC: Float
  }

  /// A tree node: a feature, its threshold and its children (above 0 a node of the same tree,
  /// else a leaf, as in ``HaarCascade/Node``).
  struct TreeNode {
    var feature: CompiledFeature
    var threshold: Float
    var left: Int32, right: Int32
  }

  /// A stump: a feature, its threshold and the two leaf values.
  struct Stump {
    var feature: CompiledFeature
    var threshold: Float, left: Float, right: Float
  }

  /// How the table's columns are stored. `plain`: column X at X. `evenOdd(half:)`: the even
  /// columns first (X at X / 2), then the odd ones (X at half + X / 2), so that windows two
  /// columns apart read neighbouring entries.
  enum Layout: Equatable {
    case plain
    case evenOdd(half: Int)

    @inline(__always)
    func column(_ x: Int) -> Int {
      switch self {
      case .plain: x
      case .evenOdd(let half): x & 1 == 0 ? x >> 1 : half + (x >> 1)
      }
    }
  }

  let windowWidth: Int, windowHeight: Int
  let stages: [HaarCascade.Stage]
  /// One per weak classifier when the cascade is stump based, else empty.
  let stumps: [Stump]
  /// The cascade's nodes with their features compiled, for tree-based cascades, else empty.
  let nodes: [TreeNode]
  let trees: [HaarCascade.Tree]
  let leaves: [Float]
  /// The corners of the variance rectangle (x 1, y 1, width − 2, height − 2).
  let normCorners: SIMD4<Int32>
  /// That rectangle's area in pixels.
  let normArea: Double

  /// Compiles `cascade` for tables with `stride` entries per row whose tilted table starts
  /// `tiltedOffset` entries after the upright one, with columns stored as `layout` says.
  init(
    _ cascade: HaarCascade, stride: Int, tiltedOffset: Int, layout: Layout = .plain,
    kernel: HaarKernel = .best
  ) {
    precondition(kernel.isAvailable, "the \(kernel) kernels do not run on this processor")
    self.kernel = kernel
    windowWidth = cascade.windowWidth
    windowHeight = cascade.windowHeight
    stages = cascade.stages
    trees = cascade.trees
    leaves = cascade.leaves
    func entry(_ x: Int, _ y: Int, tilted: Bool = false) -> Int32 {
      Int32(y * stride + layout.column(x) + (tilted ? tiltedOffset : 0))
    }
    func corners(_ r: HaarCascade.Rect, tilted: Bool) -> SIMD4<Int32> {
      func at(_ x: Int, _ y: Int) -> Int32 { entry(x, y, tilted: tilted) }
      if tilted {
        return SIMD4(
          at(r.x, r.y), at(r.x - r.height, r.y + r.height), at(r.x + r.width, r.y + r.width),
          at(r.x + r.width - r.height, r.y + r.width + r.height))
      }
      return SIMD4(
        at(r.x, r.y), at(r.x + r.width, r.y), at(r.x, r.y + r.height),
        at(r.x + r.width, r.y + r.height))
    }
    // Compiled for every band of every scale, so without copying each feature's rectangles.
    let none = HaarCascade.Rect(x: 0, y: 0, width: 0, height: 0, weight: 0)
    let compiled = cascade.features.map { f -> CompiledFeature in
      let count = f.rects.count
      let r0 = count > 0 ? f.rects[0] : none
      let r1 = count > 1 ? f.rects[1] : none
      let r2 = count > 2 ? f.rects[2] : none
      return CompiledFeature(
        a: corners(r0, tilted: f.tilted), b: corners(r1, tilted: f.tilted), c: corners(r2, tilted: f.tilted),
        weightA: r0.weight, weightB: r1.weight, weightC: r2.weight)
    }
    var stumps: [Stump] = []
    if cascade.isStumpBased {
      stumps = cascade.trees.map { t in
        let node = cascade.nodes[t.nodeStart]
        return Stump(
          feature: compiled[node.featureIndex], threshold: node.threshold,
          left: cascade.leaves[t.leafStart], right: cascade.leaves[t.leafStart + 1])
      }
      nodes = []
    } else {
      nodes = cascade.nodes.map { n in
        TreeNode(
          feature: compiled[n.featureIndex], threshold: n.threshold, left: Int32(n.left),
          right: Int32(n.right))
      }
    }
    self.stumps = stumps
    // Only a stump cascade has a template: the template's order and sums; only the offsets
    // depend on the table.
    if let template = cascade.laneTemplate {
      laneStages = template.stages
      laneCorners = template.corners.map { t in
        let node = cascade.nodes[cascade.trees[Int(t)].nodeStart]
        let m = cascade.mergedFeatures[node.featureIndex]!
        func at(_ k: Int) -> Int32 { 4 * entry(Int(m.xs[k]), Int(m.ys[k])) }
        return HaarCornerStump(
          a: SIMD4(at(0), at(1), at(2), at(3)), b: SIMD4(at(4), at(5), at(6), at(7)), c: at(8),
          threshold: node.threshold, change: template.changes[Int(t)])
      }
      laneStumps = template.others.map { t in
        let s = stumps[Int(t)]
        let f = s.feature
        return HaarStump(
          a: f.a &* 4, b: f.b &* 4, c: f.c &* 4, weightA: f.weightA, weightB: f.weightB,
          weightC: f.weightC, threshold: s.threshold, change: template.changes[Int(t)])
      }
    } else {
      (laneCorners, laneStumps, laneStages) = ([], [], [])
    }
    let norm = HaarCascade.Rect(
      x: 1, y: 1, width: windowWidth - 2, height: windowHeight - 2, weight: 1)
    normCorners = corners(norm, tilted: false)
    normArea = Double(norm.width * norm.height)
  }

  @inline(__always)
  static func rectSum(_ p: UnsafePointer<Int32>, _ o: SIMD4<Int32>) -> Int32 {
    p[Int(o[0])] &- p[Int(o[1])] &- p[Int(o[2])] &+ p[Int(o[3])]
  }

  @inline(__always)
  static func value(_ f: CompiledFeature, _ p: UnsafePointer<Int32>) -> Float {
    var v = f.weightA * Float(rectSum(p, f.a)) + f.weightB * Float(rectSum(p, f.b))
    if f.weightC != 0 { v += f.weightC * Float(rectSum(p, f.c)) }
    return v
  }

  /// The window's variance factor, or nil when OpenCV rejects the window before stage 0.
  @inline(__always)
  func varianceFactor(_ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>) -> Float? {
    let sum = Self.rectSum(p, normCorners)
    let squares = UInt32(bitPattern: Self.rectSum(q, normCorners))
    let nf = normArea * Double(squares) - Double(sum) * Double(sum)
    guard nf > 0 else { return nil }
    let factor = Float(1 / nf.squareRoot())
    return normArea * Double(factor) < 0.1 ? factor : nil
  }

  /// Runs the cascade on the window whose top-left table entries are `p` (values) and `q`
  /// (squares).
  ///
  /// - Returns: 1 when every stage passes; −1 when the window is rejected before stage 0; else
  ///   −k for the stage k that failed (0 for stage 0, where OpenCV then skips the next window).
  @inline(__always)
  func evaluate(_ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>) -> Int {
    guard let factor = varianceFactor(p, q) else { return -1 }
    if !stumps.isEmpty { return stumpStages(p, factor: factor, from: 0) }
    return nodes.withUnsafeBufferPointer { tn in
      trees.withUnsafeBufferPointer { tr in
        leaves.withUnsafeBufferPointer { lv in
          stages.withUnsafeBufferPointer { sg in
            for (index, stage) in sg.enumerated() {
              var sum = 0.0
              for t in stage.start..<(stage.start + stage.count) {
                let tree = tr[t]
                var idx = 0
                repeat {
                  let node = tn[tree.nodeStart + idx]
                  let v = Self.value(node.feature, p) * factor
                  idx = Int(v < node.threshold ? node.left : node.right)
                } while idx > 0
                sum += Double(lv[tree.leafStart - idx])
              }
              if sum < Double(stage.threshold) { return -index }
            }
            return 1
          }
        }
      }
    }
  }

  /// The stages of a stump cascade from stage `first` on, for a window whose variance factor is
  /// known: 1 when all pass, else −k for the stage k that failed.
  @inline(__always)
  func stumpStages(_ p: UnsafePointer<Int32>, factor: Float, from first: Int) -> Int {
    stumps.withUnsafeBufferPointer { st in
      stages.withUnsafeBufferPointer { sg in
        for index in first..<sg.count {
          let stage = sg[index]
          var sum = 0.0
          for i in stage.start..<(stage.start + stage.count) {
            let s = st[i]
            let v = Self.value(s.feature, p) * factor
            sum += Double(v < s.threshold ? s.left : s.right)
          }
          if sum < Double(stage.threshold) { return -index }
        }
        return 1
      }
    }
  }

  // MARK: Lanes of windows

  /// True when ``firstStage(_:_:count:codes:factors:)`` and the lane ``laterStages`` may be
  /// used: a stump cascade whose stages all have weak classifiers and whose sums are exact as
  /// integers (see ``laneTemplate(features:merged:stages:trees:nodes:leaves:)``).
  var laneReady: Bool { !laneStages.isEmpty }

  /// The cascade's stumps and stages for the kernels, when ``laneReady``.
  let laneCorners: [HaarCornerStump]
  let laneStumps: [HaarStump]
  let laneStages: [HaarStage]

  /// Which build of the kernels runs (``HaarKernel/best`` unless a test forces one).
  let kernel: HaarKernel

  /// Entries past a row's windows that the kernels may read in the code, flag and factor
  /// buffers (and, like ``IntegralRows/padding``, past a table's last entries).
  static let lanePadding = 16

  /// The fewest fraction bits that make `x` (finite) an integer.
  static func fractionBits(_ x: Double) -> Int {
    x == 0 ? 0 : max(0, Int(x.significandWidth) - Int(x.exponent))
  }

  /// True when `f`'s weights are integers and `Σ |weight| · 255 · pixels` over its rectangles is
  /// at most 2^24: every product and partial sum of ``value(_:_:)`` is then an integer that a
  /// `Float` holds exactly, so the value is the `Int32` combination of the sums, converted.
  static func isExactInteger(_ f: HaarCascade.Feature) -> Bool {
    var bound = 0.0
    var integral = f.rects.count <= 3
    for r in f.rects {
      integral = integral && r.weight == r.weight.rounded() && abs(r.weight) <= 1024
      // A tilted rectangle's pixels lie within a (width + height)² square.
      let pixels = f.tilted ? (r.width + r.height) * (r.width + r.height) : r.width * r.height
      bound += Double(abs(r.weight)) * 255 * Double(pixels)
    }
    return integral && bound <= 16_777_216
  }

  /// What the lane tables of a stump cascade are whatever the table they read: the order of the
  /// stumps (by their weak classifier's index) in the corner table and in the stump table, each
  /// stump's leaf change and the stages. Worked out once per cascade (``HaarCascade/laneTemplate``);
  /// each band only puts in its offsets.
  struct LaneTemplate: Sendable {
    var corners: [Int32]
    var others: [Int32]
    var changes: [Int64]
    var stages: [HaarStage]
  }

  /// The lane tables' template for a stump cascade, or nil when some stage has no weak classifier
  /// or more than 2 047, or the stage sums could not be exact integers.
  ///
  /// A stage's sum is computed exactly, as an integer count of 2^−K (K the fewest fraction bits
  /// that make every leaf of the cascade an integer): `right sum + Σ (left − right)` over the
  /// stumps whose feature is below its threshold, the first part a constant. The tables are
  /// only built when every partial sum of OpenCV's `Double` sum is an integer count of 2^−K
  /// below 2^49 of them, so that each is exact in a `Double` and OpenCV's sum is that integer
  /// too, whatever the order of the stumps: a window passes when its integer sum of changes is
  /// at least `need` (⌈threshold · 2^K⌉ less the right sum). The bounds also keep the kernels'
  /// 32-bit lane sums from overflowing (see ``HaarTables``).
  static func laneTemplate(
    features: [HaarCascade.Feature], merged: [HaarCascade.MergedFeature?], stages: [HaarCascade.Stage],
    trees: [HaarCascade.Tree], nodes: [HaarCascade.Node], leaves: [Float]
  ) -> LaneTemplate? {
    guard HaarCascade.areStumps(trees) else { return nil }
    var k = 0
    for leaf in leaves {
      guard leaf.isFinite else { return nil }
      k = max(k, fractionBits(Double(leaf)))
    }
    guard k <= 300 else { return nil }
    let unit = Double(sign: .plus, exponent: k, significand: 1)
    let limit = Double(sign: .plus, exponent: 49, significand: 1)
    // Each leaf as an integer count of 2^−K, when it is below 2^49.
    func scaled(_ leaf: Float) -> Int64? {
      let x = Double(leaf) * unit
      return abs(x) < limit ? Int64(x) : nil
    }
    var counts: [Int64] = []
    counts.reserveCapacity(leaves.count)
    for leaf in leaves {
      guard let count = scaled(leaf) else { return nil }
      counts.append(count)
    }
    var template = LaneTemplate(
      corners: [], others: [], changes: trees.map { counts[$0.leafStart] - counts[$0.leafStart + 1] },
      stages: [])
    /// The run of `HaarStage` stump `t` goes in: the four merged shapes (in the corner table),
    /// then (in the stump table) the other integer stumps with two rectangles and with three,
    /// then the others with two and with three.
    func run(_ t: Int) -> Int {
      let feature = nodes[trees[t].nodeStart].featureIndex
      let f = features[feature]
      let exact = isExactInteger(f)
      if exact, let m = merged[feature] { return m.shape.rawValue }
      return 4 + (exact ? 0 : 2) + (f.rects.count > 2 && f.rects[2].weight != 0 ? 1 : 0)
    }
    let runs = trees.indices.map(run)
    for stage in stages {
      guard stage.count > 0, stage.count < 2048, stage.threshold.isFinite else { return nil }
      let members = stage.start..<(stage.start + stage.count)
      var bound: Int64 = 0
      var rightSum: Int64 = 0
      for t in members {
        let (left, right) = (counts[trees[t].leafStart], counts[trees[t].leafStart + 1])
        bound += max(abs(left), abs(right))
        rightSum += right
      }
      let (cornerStart, start) = (template.corners.count, template.others.count)
      var (cornerEnds, ends) = (SIMD4<Int>.zero, SIMD4<Int>.zero)
      for r in 0..<8 {
        for t in members where runs[t] == r {
          if r < 4 { template.corners.append(Int32(t)) } else { template.others.append(Int32(t)) }
        }
        if r < 4 { cornerEnds[r] = template.corners.count } else { ends[r - 4] = template.others.count }
      }
      // Every partial sum is at most `bound` counts of 2^−K: below 2^49, so exact in a Double.
      guard bound < Int64(1) << 49 else { return nil }
      let threshold = (Double(stage.threshold) * unit).rounded(.up)
      guard abs(threshold) < Double(sign: .plus, exponent: 52, significand: 1) else { return nil }
      template.stages.append(
        HaarStage(
          cornerStart: cornerStart, cornerEnds: cornerEnds, start: start, ends: ends,
          need: Int64(threshold) - rightSum))
    }
    return template
  }

  /// The shapes of `HaarStage`'s merged runs, by their run's index.
  enum MergedShape: Int {
    case line = 0
    case edge, diagonal, negatedDiagonal
  }

  /// The kernels' view of the lane tables, for the duration of `body`.
  @inline(__always)
  func withTables<R>(_ body: (HaarTables) -> R) -> R {
    /// The table's start; an empty table's is never read (every run of it is empty).
    func start<T>(_ table: UnsafeBufferPointer<T>) -> UnsafePointer<T> {
      table.baseAddress ?? UnsafePointer(bitPattern: MemoryLayout<T>.alignment)!
    }
    return laneCorners.withUnsafeBufferPointer { corners in
      laneStumps.withUnsafeBufferPointer { stumps in
        laneStages.withUnsafeBufferPointer { stages in
          body(
            HaarTables(
              corners: start(corners), stumps: start(stumps), stages: start(stages), stageCount: stages.count,
              norm: normCorners &* 4, area: normArea))
        }
      }
    }
  }

  /// The variance test and stage 0 for the `count` windows whose top-left table entries are
  /// `p`, `p + 1`, … (values) and `q`, `q + 1`, … (squares).
  ///
  /// `codes[i]` becomes −1 when window i is rejected before stage 0, 0 when it fails stage 0,
  /// and 1 when it passes; `factors[i]` its variance factor (meaningful when `codes[i]` is 1).
  /// Up to 7 entries past `count` are written too. The tables must be readable
  /// ``lanePadding`` entries past the last window's entries. Only when ``laneReady``.
  func firstStage(
    _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, count: Int,
    codes: UnsafeMutablePointer<Int8>, factors: UnsafeMutablePointer<Float>
  ) {
    withTables { t in
      switch kernel {
      case .baseline: BaselineHaarKernels.firstStage(t, p, q, count: count, codes: codes, factors: factors)
      case .avx2: AVX2HaarKernels.firstStage(t, p, q, count: count, codes: codes, factors: factors)
      case .avx512: AVX512HaarKernels.firstStage(t, p, q, count: count, codes: codes, factors: factors)
      }
    }
  }

  /// Stages 1 and on for the windows among `count` at `p`, `p + 1`, … whose flag is 1 (flags
  /// 0 or 1), with their variance factors at `factors`: writes the index of each window that
  /// passes every stage to `hits` in increasing order, and returns how many. Flags and factors
  /// must be readable ``lanePadding`` entries past `count`, and flags there 0; the tables
  /// ``lanePadding`` entries past the last window's entries. The results are the scalar ones.
  func laterStages(
    _ p: UnsafePointer<Int32>, factors: UnsafePointer<Float>, flags: UnsafePointer<Int8>, count: Int,
    hits: UnsafeMutablePointer<Int32>
  ) -> Int {
    withTables { t in
      switch kernel {
      case .baseline:
        BaselineHaarKernels.laterStages(t, p, factors: factors, flags: flags, count: count, hits: hits)
      case .avx2: AVX2HaarKernels.laterStages(t, p, factors: factors, flags: flags, count: count, hits: hits)
      case .avx512:
        AVX512HaarKernels.laterStages(t, p, factors: factors, flags: flags, count: count, hits: hits)
      }
    }
  }
}

/// The builds of the Haar stump kernels (see `Sources/HaarKernels`). Every build gives the same
/// windows: each lane does the scalar operations in the scalar order.
enum HaarKernel: String, CaseIterable, Sendable {
  /// Baseline x86-64 (SSE2), or plain code elsewhere: 8 windows a vector, in pairs of registers.
  case baseline
  /// AVX2: 8 windows in one register.
  case avx2
  /// AVX-512 F and VL: 16 windows in one register.
  case avx512

  /// The fastest build this processor runs, from CPUID.
  static let best: HaarKernel =
    ccpuid_has_avx512() != 0 ? .avx512 : (ccpuid_has_avx2_fma() != 0 ? .avx2 : .baseline)

  /// Whether this processor can run the build.
  var isAvailable: Bool {
    switch self {
    case .baseline: true
    case .avx2: ccpuid_has_avx2_fma() != 0
    case .avx512: ccpuid_has_avx512() != 0
    }
  }
}

extension HaarCascade {
  /// An upright feature with integer weights whose corners merge into one of `HaarStage`'s
  /// shapes: the shape and its distinct corners (x, y in the window), a in 0...3, b in 4...7 and
  /// c at 8, as the shape's run reads them. Whether its value is also exact in `Int32` depends
  /// on the feature's size alone (`CascadeEvaluator.isExactInteger`).
  struct MergedFeature: Sendable {
    var shape: CascadeEvaluator.MergedShape
    var xs: SIMD16<Int32>, ys: SIMD16<Int32>
  }

  /// `feature`'s merged corners, or nil when it has none of the shapes.
  static func merged(_ feature: Feature) -> MergedFeature? {
    guard !feature.tilted, feature.rects.count <= 3 else { return nil }
    // Each distinct corner's coefficient: a rectangle adds w at its top-left and bottom-right
    // corners and takes it at the other two. (In vectors: this runs for every feature of every
    // cascade loaded.)
    var (xs, ys, coefficients) = (SIMD16<Int32>.zero, SIMD16<Int32>.zero, SIMD16<Int32>.zero)
    var count = 0
    for r in feature.rects where r.weight != 0 {
      guard r.weight == r.weight.rounded() && abs(r.weight) <= 1024 else { return nil }
      let w = Int32(r.weight)
      let (x0, y0, x1, y1) = (Int32(r.x), Int32(r.y), Int32(r.x + r.width), Int32(r.y + r.height))
      for (x, y, sign) in [(x0, y0, Int32(1)), (x1, y0, -1), (x0, y1, -1), (x1, y1, 1)] {
        var k = 0
        while k < count && (xs[k] != x || ys[k] != y) { k += 1 }
        if k == count { (xs[k], ys[k], count) = (x, y, count + 1) }
        coefficients[k] += sign * w
      }
    }
    /// The corners whose coefficient is `c`, in order, into slots `slot...` of `merged`; how many.
    func place(_ c: Int32, at slot: Int, in merged: inout MergedFeature, limit: Int) -> Int {
      var n = 0
      for k in 0..<count where coefficients[k] == c {
        if n < limit { (merged.xs[slot + n], merged.ys[slot + n]) = (xs[k], ys[k]) }
        n += 1
      }
      return n
    }
    let distinct = (0..<count).filter { coefficients[$0] != 0 }.count
    var m = MergedFeature(shape: .line, xs: .zero, ys: .zero)
    // Pairs at ±c: the two at +c first and last, the two at −c between.
    func pairs(_ c: Int32, at slot: Int) -> Bool {
      guard place(c, at: slot + 2, in: &m, limit: 2) == 2 else { return false }
      (m.xs[slot], m.ys[slot]) = (m.xs[slot + 2], m.ys[slot + 2])
      return place(-c, at: slot + 1, in: &m, limit: 2) == 2
    }
    /// Corners at `c` into slots `slot..<slot + n`, when there are exactly `n`.
    func exactly(_ n: Int, at c: Int32, slot: Int) -> Bool { place(c, at: slot, in: &m, limit: n) == n }
    if distinct == 8 && pairs(1, at: 0) && pairs(3, at: 4) {
      m.shape = .line
    } else if distinct == 6 && pairs(1, at: 0) && exactly(1, at: 2, slot: 4) && exactly(1, at: -2, slot: 5) {
      m.shape = .edge
    } else if distinct == 9 && exactly(4, at: 1, slot: 0) && exactly(4, at: -2, slot: 4)
      && exactly(1, at: 4, slot: 8)
    {
      m.shape = .diagonal
    } else if distinct == 9 && exactly(4, at: -1, slot: 0) && exactly(4, at: 2, slot: 4)
      && exactly(1, at: -4, slot: 8)
    {
      m.shape = .negatedDiagonal
    } else {
      return nil
    }
    return m
  }
}
