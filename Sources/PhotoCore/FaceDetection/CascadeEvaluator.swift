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
/// on eight neighbouring windows at a time with SIMD vectors, one lane per window. Each lane does
/// exactly the scalar operations in the scalar order (IEEE `Float` and `Double` arithmetic, no
/// fused multiply-add), so its results are the scalar ones bit for bit.
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
  init(_ cascade: HaarCascade, stride: Int, tiltedOffset: Int, layout: Layout = .plain) {
    windowWidth = cascade.windowWidth
    windowHeight = cascade.windowHeight
    stages = cascade.stages
    trees = cascade.trees
    leaves = cascade.leaves
    func corners(_ r: HaarCascade.Rect, tilted: Bool) -> SIMD4<Int32> {
      func at(_ x: Int, _ y: Int) -> Int32 {
        Int32(y * stride + layout.column(x) + (tilted ? tiltedOffset : 0))
      }
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
    if cascade.isStumpBased {
      let stumps = cascade.trees.map { t in
        let node = cascade.nodes[t.nodeStart]
        return Stump(
          feature: compiled[node.featureIndex], threshold: node.threshold,
          left: cascade.leaves[t.leafStart], right: cascade.leaves[t.leafStart + 1])
      }
      self.stumps = stumps
      nodes = []
      (laneStumps, laneStages) = Self.laneTables(stumps, cascade.stages)
    } else {
      stumps = []
      (laneStumps, laneStages) = ([], [])
      nodes = cascade.nodes.map { n in
        TreeNode(
          feature: compiled[n.featureIndex], threshold: n.threshold, left: Int32(n.left),
          right: Int32(n.right))
      }
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

  // MARK: Eight windows at a time

  /// A stump for eight windows at a time, lane i reading the table entry i after each corner:
  /// its rectangles' corners as byte offsets (p0 − p1 − p2 + p3, the third rectangle's only read
  /// when its weight is not 0), weights and threshold; and the change its leaf makes to the
  /// stage's sum, `(left − right) · 2^K` as an exact integer (see ``LaneStage``), split into its
  /// low ``lowBits`` bits (`low`, not negative) and the rest (`high`).
  struct LaneStump {
    var a0: Int32, a1: Int32, a2: Int32, a3: Int32
    var b0: Int32, b1: Int32, b2: Int32, b3: Int32
    var c0: Int32, c1: Int32, c2: Int32, c3: Int32
    var weightA: SIMD4<Float>, weightB: SIMD4<Float>, weightC: SIMD4<Float>
    var threshold: SIMD4<Float>
    var low: SIMD4<Int32>, high: SIMD4<Int32>
    /// `(left − right) · 2^K` whole, for one window at a time.
    var change: Int64
  }

  /// A stage for eight windows at a time: its stumps are ``laneStumps`` `start..<end`, those with
  /// two rectangles first (`start..<split`), then those with three.
  ///
  /// The stage's sum is computed exactly, as an integer count of 2^−K (K the fewest fraction bits
  /// that make every leaf of the cascade an integer): `right sum + Σ (left − right)` over the
  /// stumps whose feature is below its threshold, the first part a constant. ``laneTables(_:_:)``
  /// only builds these tables when every partial sum of OpenCV's `Double` sum is an integer count
  /// of 2^−K below 2^49 of them, so that each is exact in a `Double` and OpenCV's sum is that
  /// integer too, whatever the order of the stumps: a window passes when its integer
  /// `high · 2^lowBits + low` is at least `need` (⌈threshold · 2^K⌉ less the right sum).
  struct LaneStage {
    var start: Int, split: Int, end: Int
    var need: SIMD2<Double>
    /// `need` as an integer, for one window at a time.
    var needCount: Int64
  }

  /// The bits of a leaf change held in ``LaneStump/low``.
  static let lowBits = 20

  /// Eight lanes of 64-bit masks, as four pairs.
  struct Mask8 {
    var m0: SIMD2<Int64>, m1: SIMD2<Int64>, m2: SIMD2<Int64>, m3: SIMD2<Int64>

    /// Lanes whose flag byte is not 0.
    @inline(__always)
    init(flags f: UnsafePointer<Int8>) {
      @inline(__always) func m(_ i: Int) -> Int64 { f[i] != 0 ? -1 : 0 }
      (m0, m1, m2, m3) = (SIMD2(m(0), m(1)), SIMD2(m(2), m(3)), SIMD2(m(4), m(5)), SIMD2(m(6), m(7)))
    }

    @inline(__always)
    init(_ m0: SIMD2<Int64>, _ m1: SIMD2<Int64>, _ m2: SIMD2<Int64>, _ m3: SIMD2<Int64>) {
      (self.m0, self.m1, self.m2, self.m3) = (m0, m1, m2, m3)
    }

    /// How many lanes are set.
    @inline(__always)
    var count: Int {
      let s = m0 &+ m1 &+ m2 &+ m3
      return Int(-(s[0] &+ s[1]))
    }

    /// How many of lanes 0–3 are set.
    @inline(__always)
    var lowCount: Int {
      let s = m0 &+ m1
      return Int(-(s[0] &+ s[1]))
    }

    @inline(__always)
    subscript(lane: Int) -> Bool {
      let pair = lane < 4 ? (lane < 2 ? m0 : m1) : (lane < 6 ? m2 : m3)
      return pair[lane & 1] != 0
    }

    /// A bit per set lane.
    @inline(__always)
    var bits: UInt8 {
      let b = (m0 & SIMD2(1, 2)) | (m1 & SIMD2(4, 8)) | (m2 & SIMD2(16, 32)) | (m3 & SIMD2(64, 128))
      return UInt8(truncatingIfNeeded: b[0] | b[1])
    }
  }

  /// True when ``firstStage(_:_:count:codes:factors:)`` and ``laterStages(_:factors:flags:)``
  /// may be used: a stump cascade whose stages all have weak classifiers and whose sums are exact
  /// as integers (see ``LaneStage``).
  var laneReady: Bool { !laneStages.isEmpty }

  /// The cascade's stumps and stages for eight windows at a time, when ``laneReady``.
  let laneStumps: [LaneStump]
  let laneStages: [LaneStage]

  static let laneCount = 8

  /// The fewest fraction bits that make `x` (finite) an integer.
  static func fractionBits(_ x: Double) -> Int {
    x == 0 ? 0 : max(0, Int(x.significandWidth) - Int(x.exponent))
  }

  /// Compiles the stumps for eight windows at a time, or returns empty tables when some stage
  /// has no weak classifier or more than 2 047 (the low parts' sum must stay below 2³¹), or the
  /// stage sums could not be exact integers (see ``LaneStage``).
  static func laneTables(
    _ stumps: [Stump], _ stages: [HaarCascade.Stage]
  ) -> ([LaneStump], [LaneStage]) {
    let none: ([LaneStump], [LaneStage]) = ([], [])
    var k = 0
    for s in stumps {
      guard s.left.isFinite, s.right.isFinite else { return none }
      k = max(k, fractionBits(Double(s.left)), fractionBits(Double(s.right)))
    }
    guard k <= 300 else { return none }
    let unit = Double(sign: .plus, exponent: k, significand: 1)
    let limit = Double(sign: .plus, exponent: 49, significand: 1)
    // Each leaf as an integer count of 2^−K, when it is below 2^49.
    func scaled(_ leaf: Float) -> Int64? {
      let x = Double(leaf) * unit
      return abs(x) < limit ? Int64(x) : nil
    }
    let mask = Int64(1) << lowBits - 1
    var laneStumps: [LaneStump] = []
    laneStumps.reserveCapacity(stumps.count)
    var laneStages: [LaneStage] = []
    laneStages.reserveCapacity(stages.count)
    func bytes(_ c: SIMD4<Int32>) -> (Int32, Int32, Int32, Int32) {
      (c[0] * 4, c[1] * 4, c[2] * 4, c[3] * 4)
    }
    for stage in stages {
      guard stage.count > 0, stage.count < 2048, stage.threshold.isFinite else { return none }
      var bound: Int64 = 0
      var rightSum: Int64 = 0
      let start = laneStumps.count
      var split = start
      // The stumps with two rectangles, then those with three.
      for three in [false, true] {
        if three { split = laneStumps.count }
        for s in stumps[stage.start..<(stage.start + stage.count)] where (s.feature.weightC != 0) == three {
          guard let left = scaled(s.left), let right = scaled(s.right) else { return none }
          bound += max(abs(left), abs(right))
          rightSum += right
          let change = left - right
          let f = s.feature
          let (a0, a1, a2, a3) = bytes(f.a)
          let (b0, b1, b2, b3) = bytes(f.b)
          let (c0, c1, c2, c3) = bytes(f.c)
          laneStumps.append(
            LaneStump(
              a0: a0, a1: a1, a2: a2, a3: a3, b0: b0, b1: b1, b2: b2, b3: b3, c0: c0, c1: c1, c2: c2,
              c3: c3, weightA: SIMD4(repeating: f.weightA), weightB: SIMD4(repeating: f.weightB),
              weightC: SIMD4(repeating: f.weightC), threshold: SIMD4(repeating: s.threshold),
              low: SIMD4(repeating: Int32(change & mask)),
              high: SIMD4(repeating: Int32(change >> Int64(lowBits))), change: change))
        }
      }
      // Every partial sum is at most `bound` counts of 2^−K: below 2^49, so exact in a Double.
      guard bound < Int64(1) << 49 else { return none }
      let threshold = (Double(stage.threshold) * unit).rounded(.up)
      guard abs(threshold) < Double(sign: .plus, exponent: 52, significand: 1) else { return none }
      let need = Int64(threshold) - rightSum
      laneStages.append(
        LaneStage(
          start: start, split: split, end: laneStumps.count, need: SIMD2(repeating: Double(need)),
          needCount: need))
    }
    return (laneStumps, laneStages)
  }

  @inline(__always)
  static func laneSums(
    _ p: UnsafeRawPointer, _ o0: Int32, _ o1: Int32, _ o2: Int32, _ o3: Int32
  ) -> SIMD4<Int32> {
    p.loadUnaligned(fromByteOffset: Int(o0), as: SIMD4<Int32>.self)
      &- p.loadUnaligned(fromByteOffset: Int(o1), as: SIMD4<Int32>.self)
      &- p.loadUnaligned(fromByteOffset: Int(o2), as: SIMD4<Int32>.self)
      &+ p.loadUnaligned(fromByteOffset: Int(o3), as: SIMD4<Int32>.self)
  }

  /// The feature values of four neighbouring windows at `p`, in the scalar order: `(wA·sA +
  /// wB·sB) [+ wC·sC]`.
  @inline(__always)
  static func laneValues(
    _ s: UnsafePointer<LaneStump>, _ p: UnsafeRawPointer, three: Bool
  ) -> SIMD4<Float> {
    var v =
      s.pointee.weightA * SIMD4<Float>(laneSums(p, s.pointee.a0, s.pointee.a1, s.pointee.a2, s.pointee.a3))
      + s.pointee.weightB
      * SIMD4<Float>(laneSums(p, s.pointee.b0, s.pointee.b1, s.pointee.b2, s.pointee.b3))
    if three {
      v +=
        s.pointee.weightC * SIMD4<Float>(laneSums(p, s.pointee.c0, s.pointee.c1, s.pointee.c2, s.pointee.c3))
    }
    return v
  }

  /// Whether four windows' stage sums reach `need`.
  @inline(__always)
  static func reach(
    _ low: SIMD4<Int32>, _ high: SIMD4<Int32>, _ need: SIMD2<Double>
  ) -> (SIMD2<Int64>, SIMD2<Int64>) {
    // high · 2^20 + low is below 2^52 in magnitude: exact in a Double.
    let scale = SIMD2<Double>(repeating: Double(1 << lowBits))
    let x0 =
      SIMD2<Double>(SIMD2<Int32>(high[0], high[1])) * scale + SIMD2<Double>(SIMD2<Int32>(low[0], low[1]))
    let x1 =
      SIMD2<Double>(SIMD2<Int32>(high[2], high[3])) * scale + SIMD2<Double>(SIMD2<Int32>(low[2], low[3]))
    return (
      unsafeBitCast(x0 .>= need, to: SIMD2<Int64>.self), unsafeBitCast(x1 .>= need, to: SIMD2<Int64>.self)
    )
  }

  /// Which of eight neighbouring windows (lane i at `p` + i entries) pass `stage`, each lane
  /// computing the scalar feature values (`Float`, times the lane's factor) and the exact sum.
  @inline(__always)
  static func laneStage(
    _ stage: LaneStage, _ p: UnsafeRawPointer, _ f0: SIMD4<Float>, _ f1: SIMD4<Float>,
    _ stumps: UnsafePointer<LaneStump>
  ) -> Mask8 {
    var low0 = SIMD4<Int32>.zero
    var high0 = SIMD4<Int32>.zero
    var low1 = SIMD4<Int32>.zero
    var high1 = SIMD4<Int32>.zero
    let p1 = p + 16
    var s = stumps + stage.start
    @inline(__always) func add(_ v0: SIMD4<Float>, _ v1: SIMD4<Float>) {
      let below0 = unsafeBitCast(v0 * f0 .< s.pointee.threshold, to: SIMD4<Int32>.self)
      let below1 = unsafeBitCast(v1 * f1 .< s.pointee.threshold, to: SIMD4<Int32>.self)
      low0 &+= below0 & s.pointee.low
      high0 &+= below0 & s.pointee.high
      low1 &+= below1 & s.pointee.low
      high1 &+= below1 & s.pointee.high
    }
    let split = stumps + stage.split
    while s < split {
      add(laneValues(s, p, three: false), laneValues(s, p1, three: false))
      s += 1
    }
    let end = stumps + stage.end
    while s < end {
      add(laneValues(s, p, three: true), laneValues(s, p1, three: true))
      s += 1
    }
    let (m0, m1) = reach(low0, high0, stage.need)
    let (m2, m3) = reach(low1, high1, stage.need)
    return Mask8(m0, m1, m2, m3)
  }

  /// Which of four neighbouring windows pass `stage`, as ``laneStage(_:_:_:_:_:)`` for eight.
  @inline(__always)
  static func laneStage4(
    _ stage: LaneStage, _ p: UnsafeRawPointer, _ f: SIMD4<Float>, _ stumps: UnsafePointer<LaneStump>
  ) -> (SIMD2<Int64>, SIMD2<Int64>) {
    var low = SIMD4<Int32>.zero
    var high = SIMD4<Int32>.zero
    var s = stumps + stage.start
    @inline(__always) func add(_ v: SIMD4<Float>) {
      let below = unsafeBitCast(v * f .< s.pointee.threshold, to: SIMD4<Int32>.self)
      low &+= below & s.pointee.low
      high &+= below & s.pointee.high
    }
    let split = stumps + stage.split
    while s < split {
      add(laneValues(s, p, three: false))
      s += 1
    }
    let end = stumps + stage.end
    while s < end {
      add(laneValues(s, p, three: true))
      s += 1
    }
    return reach(low, high, stage.need)
  }

  /// The variance test and stage 0 for the `count` windows whose top-left table entries are
  /// `p`, `p + 1`, … (values) and `q`, `q + 1`, … (squares).
  ///
  /// `codes[i]` becomes −1 when window i is rejected before stage 0, 0 when it fails stage 0,
  /// and 1 when it passes; `factors[i]` its variance factor (meaningful when `codes[i]` is 1).
  /// Up to 7 entries past `count` are written too. The tables must be readable 7 entries past
  /// the last window's entries. Only when ``laneReady``.
  func firstStage(
    _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, count: Int,
    codes: UnsafeMutablePointer<Int8>, factors: UnsafeMutablePointer<Float>
  ) {
    let n = (normCorners &* 4)
    let area = SIMD2<Double>(repeating: normArea)
    // A window is rejected when area · factor ≥ 0.1, that is when its normaliser (area · Σx² −
    // (Σx)²) is at most about 100 · area². Below this bound, 10⁻⁵ less, the rounding of the
    // square root, the division and the Float (a few 10⁻⁸ in all) cannot make it pass.
    let surelyFlat = SIMD2<Double>(repeating: 100 * normArea * normArea * (1 - 1e-5))
    let stage = laneStages[0]
    laneStumps.withUnsafeBufferPointer { stumps in
      var i = 0
      while i < count {
        let pv = UnsafeRawPointer(p + i)
        let qv = UnsafeRawPointer(q + i)
        let (n0, n1) = Self.normalisers(pv, qv, n, area)
        let (n2, n3) = Self.normalisers(pv + 16, qv + 16, n, area)
        let flat = (n0 .<= surelyFlat) .& (n1 .<= surelyFlat) .& (n2 .<= surelyFlat) .& (n3 .<= surelyFlat)
        if flat[0] && flat[1] {
          // Eight flat windows (a clear sky, a blurred background): no factor or stage needed.
          UnsafeMutableRawPointer(codes + i).storeBytes(
            of: SIMD8<Int8>(repeating: -1), as: SIMD8<Int8>.self)
          i += Self.laneCount
          continue
        }
        let (f0, ok0) = Self.varianceFactors(n0, n1, area)
        let (f1, ok1) = Self.varianceFactors(n2, n3, area)
        let anyAccepted = ok0.0 | ok0.1 | ok1.0 | ok1.1
        if anyAccepted[0] | anyAccepted[1] == 0 {
          // Eight flat windows (a clear sky, a blurred background): no stage to run.
          UnsafeMutableRawPointer(codes + i).storeBytes(
            of: SIMD8<Int8>(repeating: -1), as: SIMD8<Int8>.self)
          i += Self.laneCount
          continue
        }
        let passed = Self.laneStage(stage, pv, f0, f1, stumps.baseAddress!)
        // −1 when rejected, else 1 when passed, 0 when failed.
        func code(_ ok: SIMD2<Int64>, _ pass: SIMD2<Int64>) -> SIMD2<Int64> {
          (pass & 1) | ~ok
        }
        let c0 = code(ok0.0, passed.m0)
        let c1 = code(ok0.1, passed.m1)
        let c2 = code(ok1.0, passed.m2)
        let c3 = code(ok1.1, passed.m3)
        let bytes = SIMD8<Int8>(
          Int8(truncatingIfNeeded: c0[0]), Int8(truncatingIfNeeded: c0[1]), Int8(truncatingIfNeeded: c1[0]),
          Int8(truncatingIfNeeded: c1[1]), Int8(truncatingIfNeeded: c2[0]), Int8(truncatingIfNeeded: c2[1]),
          Int8(truncatingIfNeeded: c3[0]), Int8(truncatingIfNeeded: c3[1]))
        UnsafeMutableRawPointer(codes + i).storeBytes(of: bytes, as: SIMD8<Int8>.self)
        UnsafeMutableRawPointer(factors + i).storeBytes(of: f0, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(factors + i + 4).storeBytes(of: f1, as: SIMD4<Float>.self)
        i += Self.laneCount
      }
    }
  }

  /// The variance normalisers `area · Σx² − (Σx)²` of four neighbouring windows, as
  /// ``varianceFactor(_:_:)`` computes them; `n` holds the variance rectangle's corners as byte
  /// offsets.
  @inline(__always)
  static func normalisers(
    _ p: UnsafeRawPointer, _ q: UnsafeRawPointer, _ n: SIMD4<Int32>, _ area: SIMD2<Double>
  ) -> (SIMD2<Double>, SIMD2<Double>) {
    let sum = laneSums(p, n[0], n[1], n[2], n[3])
    // Squared sums are unsigned: u = (u − 2³¹ as a signed value) + 2³¹, exactly.
    let squares = laneSums(q, n[0], n[1], n[2], n[3]) ^ Int32.min
    @inline(__always) func half(_ s: SIMD2<Int32>, _ u: SIMD2<Int32>) -> SIMD2<Double> {
      let sd = SIMD2<Double>(s)
      let ud = SIMD2<Double>(u) + 2_147_483_648
      return area * ud - sd * sd
    }
    return (
      half(SIMD2(sum[0], sum[1]), SIMD2(squares[0], squares[1])),
      half(SIMD2(sum[2], sum[3]), SIMD2(squares[2], squares[3]))
    )
  }

  /// The variance factors of four windows from their normalisers, and whether each is accepted
  /// (as two 64-bit masks), computed as ``varianceFactor(_:_:)`` does.
  @inline(__always)
  static func varianceFactors(
    _ n0: SIMD2<Double>, _ n1: SIMD2<Double>, _ area: SIMD2<Double>
  ) -> (SIMD4<Float>, (SIMD2<Int64>, SIMD2<Int64>)) {
    @inline(__always) func half(_ nf: SIMD2<Double>) -> (SIMD2<Double>, SIMD2<Int64>) {
      let positive = unsafeBitCast(nf .> 0, to: SIMD2<Int64>.self)
      // Lanes without variance take 1 (their factor is not used), so sqrt never sees a negative.
      let one = unsafeBitCast(SIMD2<Double>(repeating: 1), to: SIMD2<Int64>.self)
      let safe = unsafeBitCast(
        (unsafeBitCast(nf, to: SIMD2<Int64>.self) & positive) | (one & ~positive), to: SIMD2<Double>.self)
      let root = SIMD2<Double>(safe[0].squareRoot(), safe[1].squareRoot())
      return (1 / root, positive)
    }
    let (d0, pos0) = half(n0)
    let (d1, pos1) = half(n1)
    let f = SIMD4<Float>(Float(d0[0]), Float(d0[1]), Float(d1[0]), Float(d1[1]))
    let small = SIMD2<Double>(repeating: 0.1)
    let back0 = SIMD2<Double>(Double(f[0]), Double(f[1]))
    let back1 = SIMD2<Double>(Double(f[2]), Double(f[3]))
    let ok0 = pos0 & unsafeBitCast(area * back0 .< small, to: SIMD2<Int64>.self)
    let ok1 = pos1 & unsafeBitCast(area * back1 .< small, to: SIMD2<Int64>.self)
    return (f, (ok0, ok1))
  }

  /// Stages 1 and on for the windows at `p`, `p + 1`, … `p + 7` whose flags are set, with their
  /// variance factors at `factors`.
  ///
  /// Each stage runs on the windows still alive: four lanes starting at the first when they all
  /// lie within four neighbours, else eight; a window alone, or two far apart, with the scalar
  /// code, which is then cheaper. The results are the scalar ones.
  ///
  /// - Returns: a bit per lane, set when the window passes every stage.
  func laterStages(
    _ p: UnsafePointer<Int32>, factors: UnsafePointer<Float>, flags: UnsafePointer<Int8>
  ) -> UInt8 {
    var alive = Mask8(flags: flags).bits
    let f0 = UnsafeRawPointer(factors).loadUnaligned(as: SIMD4<Float>.self)
    let f1 = UnsafeRawPointer(factors + 4).loadUnaligned(as: SIMD4<Float>.self)
    let pv = UnsafeRawPointer(p)
    return laneStumps.withUnsafeBufferPointer { stumps in
      laneStages.withUnsafeBufferPointer { sg in
        var index = 1
        while index < sg.count {
          if alive == 0 { return 0 }
          let first = alive.trailingZeroBitCount
          let span = 8 - alive.leadingZeroBitCount - first
          let count = alive.nonzeroBitCount
          if span <= 4 && count > 1 {
            // Four lanes from the first window alive.
            let f = UnsafeRawPointer(factors + first).loadUnaligned(as: SIMD4<Float>.self)
            let (m0, m1) = Self.laneStage4(sg[index], pv + 4 * first, f, stumps.baseAddress!)
            alive &= Self.bits(m0, m1) << first
          } else if count <= 2 {
            // One window, or two far apart: the scalar code for each, to the end.
            var bits: UInt8 = 0
            var left = alive
            while left != 0 {
              let lane = left.trailingZeroBitCount
              if Self.laneScalar(pv + 4 * lane, factors[lane], from: index, stumps.baseAddress!, sg) {
                bits |= 1 << lane
              }
              left &= left - 1
            }
            return bits
          } else {
            let passed = Self.laneStage(sg[index], pv, f0, f1, stumps.baseAddress!)
            alive &= passed.bits
          }
          index += 1
        }
        return alive
      }
    }
  }

  /// Stages `first` and on for the one window at `p`, whose variance factor is `factor`, on the
  /// lane tables: true when every stage passes. Feature values as the scalar code computes them,
  /// stage sums exact (see ``LaneStage``), so the verdict is the scalar one.
  @inline(__always)
  static func laneScalar(
    _ p: UnsafeRawPointer, _ factor: Float, from first: Int, _ stumps: UnsafePointer<LaneStump>,
    _ stages: UnsafeBufferPointer<LaneStage>
  ) -> Bool {
    @inline(__always) func sum(_ o0: Int32, _ o1: Int32, _ o2: Int32, _ o3: Int32) -> Float {
      Float(
        p.load(fromByteOffset: Int(o0), as: Int32.self) &- p.load(fromByteOffset: Int(o1), as: Int32.self)
          &- p.load(fromByteOffset: Int(o2), as: Int32.self)
          &+ p.load(fromByteOffset: Int(o3), as: Int32.self))
    }
    @inline(__always) func two(_ s: UnsafePointer<LaneStump>) -> Float {
      s.pointee.weightA[0] * sum(s.pointee.a0, s.pointee.a1, s.pointee.a2, s.pointee.a3)
        + s.pointee.weightB[0] * sum(s.pointee.b0, s.pointee.b1, s.pointee.b2, s.pointee.b3)
    }
    for index in first..<stages.count {
      let stage = stages[index]
      var total: Int64 = 0
      var s = stumps + stage.start
      let split = stumps + stage.split
      while s < split {
        let below = two(s) * factor < s.pointee.threshold[0]
        total &+= below ? s.pointee.change : 0
        s += 1
      }
      let end = stumps + stage.end
      while s < end {
        let v = two(s) + s.pointee.weightC[0] * sum(s.pointee.c0, s.pointee.c1, s.pointee.c2, s.pointee.c3)
        total &+= v * factor < s.pointee.threshold[0] ? s.pointee.change : 0
        s += 1
      }
      if total < stage.needCount { return false }
    }
    return true
  }

  /// ``laneScalar(_:_:from:_:_:)`` for the window at `p`: true when it passes stages `first` and
  /// on. Only when ``laneReady``.
  func laterStages(_ p: UnsafePointer<Int32>, factor: Float, from first: Int) -> Bool {
    laneStumps.withUnsafeBufferPointer { stumps in
      laneStages.withUnsafeBufferPointer { sg in
        Self.laneScalar(UnsafeRawPointer(p), factor, from: first, stumps.baseAddress!, sg)
      }
    }
  }

  /// A bit per set lane of two pairs of 64-bit masks (lanes 0–3).
  @inline(__always)
  static func bits(_ m0: SIMD2<Int64>, _ m1: SIMD2<Int64>) -> UInt8 {
    let b = (m0 & SIMD2(1, 2)) | (m1 & SIMD2(4, 8))
    return UInt8(truncatingIfNeeded: b[0] | b[1])
  }
}
