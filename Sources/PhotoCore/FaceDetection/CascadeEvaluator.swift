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
    let compiled = cascade.features.map { f -> CompiledFeature in
      var rects = f.rects
      while rects.count < 3 { rects.append(HaarCascade.Rect(x: 0, y: 0, width: 0, height: 0, weight: 0)) }
      return CompiledFeature(
        a: corners(rects[0], tilted: f.tilted), b: corners(rects[1], tilted: f.tilted),
        c: corners(rects[2], tilted: f.tilted),
        weightA: rects[0].weight, weightB: rects[1].weight, weightC: rects[2].weight)
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
      (laneStumps, laneRects) = Self.laneTables(stumps)
    } else {
      stumps = []
      (laneStumps, laneRects) = ([], [])
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

  /// A rectangle of a feature as byte offsets of its corners (p0 − p1 − p2 + p3) and its weight,
  /// for vector loads: lane i reads the entry i after each corner.
  struct LaneRect {
    var o0: Int, o1: Int, o2: Int, o3: Int
    var weight: SIMD4<Float>
  }

  /// A stump for eight windows at a time: its rectangles `rects` in ``laneRects``, its threshold,
  /// and its leaves as the bit patterns of `Double`s (so that choosing one is bitwise).
  struct LaneStump {
    var rects: Int, rectsEnd: Int
    var threshold: SIMD4<Float>
    var left: SIMD2<Int64>, right: SIMD2<Int64>
  }

  /// Eight lanes of `Double`s, or of 64-bit masks, as four pairs.
  struct Lanes8 {
    var q0: SIMD2<Double> = .zero, q1: SIMD2<Double> = .zero
    var q2: SIMD2<Double> = .zero, q3: SIMD2<Double> = .zero
  }

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
      var b: UInt8 = 0
      for lane in 0..<8 where self[lane] { b |= 1 << lane }
      return b
    }
  }

  /// True when ``firstStage(_:_:count:codes:factors:)`` and ``laterStages(_:factors:flags:)``
  /// may be used: a stump cascade whose stages all have weak classifiers.
  var laneReady: Bool { !laneStumps.isEmpty && stages.allSatisfy { $0.count > 0 } }

  /// ``laneStumps`` and ``laneRects`` for every stump, when the cascade is stump based.
  let laneStumps: [LaneStump]
  let laneRects: [LaneRect]

  static let laneCount = 8

  /// Compiles the stumps for eight windows at a time.
  static func laneTables(_ stumps: [Stump]) -> ([LaneStump], [LaneRect]) {
    var rects: [LaneRect] = []
    var result: [LaneStump] = []
    for s in stumps {
      let first = rects.count
      let f = s.feature
      for (corners, weight) in [(f.a, f.weightA), (f.b, f.weightB), (f.c, f.weightC)]
      where weight != 0 || rects.count == first {
        rects.append(
          LaneRect(
            o0: Int(corners[0]) * 4, o1: Int(corners[1]) * 4, o2: Int(corners[2]) * 4,
            o3: Int(corners[3]) * 4, weight: SIMD4(repeating: weight)))
      }
      result.append(
        LaneStump(
          rects: first, rectsEnd: rects.count, threshold: SIMD4(repeating: s.threshold),
          left: SIMD2(repeating: Int64(bitPattern: Double(s.left).bitPattern)),
          right: SIMD2(repeating: Int64(bitPattern: Double(s.right).bitPattern))))
    }
    return (result, rects)
  }

  @inline(__always)
  static func laneSums(_ p: UnsafeRawPointer, _ r: LaneRect) -> SIMD4<Int32> {
    p.loadUnaligned(fromByteOffset: r.o0, as: SIMD4<Int32>.self)
      &- p.loadUnaligned(fromByteOffset: r.o1, as: SIMD4<Int32>.self)
      &- p.loadUnaligned(fromByteOffset: r.o2, as: SIMD4<Int32>.self)
      &+ p.loadUnaligned(fromByteOffset: r.o3, as: SIMD4<Int32>.self)
  }

  /// Lanes i and i + 1 of a 32-bit mask, widened to 64 bits.
  @inline(__always)
  static func widen(_ m: SIMD4<Int32>) -> (SIMD2<Int64>, SIMD2<Int64>) {
    (
      unsafeBitCast(SIMD4<Int32>(m[0], m[0], m[1], m[1]), to: SIMD2<Int64>.self),
      unsafeBitCast(SIMD4<Int32>(m[2], m[2], m[3], m[3]), to: SIMD2<Int64>.self)
    )
  }

  /// `mask ? a : b` on the bits of two `Double`s.
  @inline(__always)
  static func choose(_ mask: SIMD2<Int64>, _ a: SIMD2<Int64>, _ b: SIMD2<Int64>) -> SIMD2<Double> {
    unsafeBitCast((mask & a) | (~mask & b), to: SIMD2<Double>.self)
  }

  /// The sum of stage `stage`'s leaves for eight neighbouring windows (lane i at `p` + i entries),
  /// each lane in the scalar order: `Float` feature values times the lane's factor, `Double` sums.
  @inline(__always)
  func laneStage(
    _ stage: HaarCascade.Stage, _ p: UnsafeRawPointer, _ f0: SIMD4<Float>, _ f1: SIMD4<Float>,
    _ stumps: UnsafePointer<LaneStump>, _ rects: UnsafePointer<LaneRect>
  ) -> Lanes8 {
    var sum = Lanes8()
    let p1 = p + 16
    var stump = stumps + stage.start
    let last = stump + stage.count
    repeat {
      let s = stump.pointee
      stump += 1
      var v0 = SIMD4<Float>.zero
      var v1 = SIMD4<Float>.zero
      // One rectangle at a time: v = (w0·s0 + w1·s1) + w2·s2, as the scalar code adds them (the
      // first addition, 0 + w0·s0, is exact).
      var r = rects + s.rects
      let end = rects + s.rectsEnd
      repeat {
        let rect = r.pointee
        v0 += rect.weight * SIMD4<Float>(Self.laneSums(p, rect))
        v1 += rect.weight * SIMD4<Float>(Self.laneSums(p1, rect))
        r += 1
      } while r < end
      let below0 = unsafeBitCast(v0 * f0 .< s.threshold, to: SIMD4<Int32>.self)
      let below1 = unsafeBitCast(v1 * f1 .< s.threshold, to: SIMD4<Int32>.self)
      let (m0, m1) = Self.widen(below0)
      let (m2, m3) = Self.widen(below1)
      sum.q0 += Self.choose(m0, s.left, s.right)
      sum.q1 += Self.choose(m1, s.left, s.right)
      sum.q2 += Self.choose(m2, s.left, s.right)
      sum.q3 += Self.choose(m3, s.left, s.right)
    } while stump < last
    return sum
  }

  /// Lanes whose stage sum is not below `threshold` (as `Double`).
  @inline(__always)
  static func passing(_ sum: Lanes8, _ threshold: Float) -> Mask8 {
    let t = SIMD2<Double>(repeating: Double(threshold))
    return Mask8(
      unsafeBitCast(sum.q0 .>= t, to: SIMD2<Int64>.self), unsafeBitCast(sum.q1 .>= t, to: SIMD2<Int64>.self),
      unsafeBitCast(sum.q2 .>= t, to: SIMD2<Int64>.self), unsafeBitCast(sum.q3 .>= t, to: SIMD2<Int64>.self))
  }

  /// The variance test and stage 0 for the `count` windows whose top-left table entries are
  /// `p`, `p + 1`, … (values) and `q`, `q + 1`, … (squares).
  ///
  /// `codes[i]` becomes −1 when window i is rejected before stage 0, 0 when it fails stage 0,
  /// and 1 when it passes; `factors[i]` its variance factor (meaningful when `codes[i]` is 1).
  /// Up to 7 entries past `count` are written too. The tables must be readable 7 entries past
  /// the last window's entries. Stump cascades only.
  func firstStage(
    _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, count: Int,
    codes: UnsafeMutablePointer<Int8>, factors: UnsafeMutablePointer<Float>
  ) {
    let n = LaneRect(
      o0: Int(normCorners[0]) * 4, o1: Int(normCorners[1]) * 4, o2: Int(normCorners[2]) * 4,
      o3: Int(normCorners[3]) * 4, weight: .zero)
    let area = SIMD2<Double>(repeating: normArea)
    let stage = stages[0]
    laneStumps.withUnsafeBufferPointer { stumps in
      laneRects.withUnsafeBufferPointer { rects in
        var i = 0
        while i < count {
          let pv = UnsafeRawPointer(p + i)
          let qv = UnsafeRawPointer(q + i)
          let (f0, ok0) = Self.varianceFactors(pv, qv, n, area)
          let (f1, ok1) = Self.varianceFactors(pv + 16, qv + 16, n, area)
          let anyAccepted = ok0.0 | ok0.1 | ok1.0 | ok1.1
          if anyAccepted[0] | anyAccepted[1] == 0 {
            // Eight flat windows (a clear sky, a blurred background): no stage to run.
            UnsafeMutableRawPointer(codes + i).storeBytes(
              of: SIMD8<Int8>(repeating: -1), as: SIMD8<Int8>.self)
            i += Self.laneCount
            continue
          }
          let sum = laneStage(stage, pv, f0, f1, stumps.baseAddress!, rects.baseAddress!)
          let passed = Self.passing(sum, stage.threshold)
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
  }

  /// The variance factors of four neighbouring windows, and whether each is accepted (as two
  /// 64-bit masks), computed as ``varianceFactor(_:_:)`` does.
  @inline(__always)
  static func varianceFactors(
    _ p: UnsafeRawPointer, _ q: UnsafeRawPointer, _ n: LaneRect, _ area: SIMD2<Double>
  ) -> (SIMD4<Float>, (SIMD2<Int64>, SIMD2<Int64>)) {
    let sum = laneSums(p, n)
    // Squared sums are unsigned: u = (u − 2³¹ as a signed value) + 2³¹, exactly.
    let squares = laneSums(q, n) ^ Int32.min
    func half(_ s: SIMD2<Int32>, _ u: SIMD2<Int32>) -> (SIMD2<Double>, SIMD2<Int64>) {
      let sd = SIMD2<Double>(s)
      let ud = SIMD2<Double>(u) + 2_147_483_648
      let nf = area * ud - sd * sd
      let positive = unsafeBitCast(nf .> 0, to: SIMD2<Int64>.self)
      // Lanes without variance take 1 (their factor is not used), so sqrt never sees a negative.
      let safe = nf.replacing(with: 1, where: nf .<= 0)
      let root = SIMD2<Double>(safe[0].squareRoot(), safe[1].squareRoot())
      return (1 / root, positive)
    }
    let (d0, pos0) = half(SIMD2(sum[0], sum[1]), SIMD2(squares[0], squares[1]))
    let (d1, pos1) = half(SIMD2(sum[2], sum[3]), SIMD2(squares[2], squares[3]))
    let f = SIMD4<Float>(Float(d0[0]), Float(d0[1]), Float(d1[0]), Float(d1[1]))
    let small = SIMD2<Double>(repeating: 0.1)
    let back0 = SIMD2<Double>(Double(f[0]), Double(f[1]))
    let back1 = SIMD2<Double>(Double(f[2]), Double(f[3]))
    let ok0 = pos0 & unsafeBitCast(area * back0 .< small, to: SIMD2<Int64>.self)
    let ok1 = pos1 & unsafeBitCast(area * back1 .< small, to: SIMD2<Int64>.self)
    return (f, (ok0, ok1))
  }

  /// The sum of stage `stage`'s leaves for four neighbouring windows, as ``laneStage`` for eight.
  @inline(__always)
  func laneStage4(
    _ stage: HaarCascade.Stage, _ p: UnsafeRawPointer, _ f: SIMD4<Float>,
    _ stumps: UnsafePointer<LaneStump>, _ rects: UnsafePointer<LaneRect>
  ) -> (SIMD2<Double>, SIMD2<Double>) {
    var sum0 = SIMD2<Double>.zero
    var sum1 = SIMD2<Double>.zero
    var stump = stumps + stage.start
    let last = stump + stage.count
    repeat {
      let s = stump.pointee
      stump += 1
      var v = SIMD4<Float>.zero
      var r = rects + s.rects
      let end = rects + s.rectsEnd
      repeat {
        let rect = r.pointee
        v += rect.weight * SIMD4<Float>(Self.laneSums(p, rect))
        r += 1
      } while r < end
      let (m0, m1) = Self.widen(unsafeBitCast(v * f .< s.threshold, to: SIMD4<Int32>.self))
      sum0 += Self.choose(m0, s.left, s.right)
      sum1 += Self.choose(m1, s.left, s.right)
    } while stump < last
    return (sum0, sum1)
  }

  /// Stages 1 and on for the windows at `p`, `p + 1`, … `p + 7` whose flags are set, with their
  /// variance factors at `factors`.
  ///
  /// Eight windows are evaluated together while both halves have some left; four when only one
  /// half does; a window alone (or two in different halves) with the scalar code, which is then
  /// cheaper. The results are the scalar ones.
  ///
  /// - Returns: a bit per lane, set when the window passes every stage.
  func laterStages(
    _ p: UnsafePointer<Int32>, factors: UnsafePointer<Float>, flags: UnsafePointer<Int8>
  ) -> UInt8 {
    var alive = Mask8(flags: flags)
    let f0 = UnsafeRawPointer(factors).loadUnaligned(as: SIMD4<Float>.self)
    let f1 = UnsafeRawPointer(factors + 4).loadUnaligned(as: SIMD4<Float>.self)
    let pv = UnsafeRawPointer(p)
    // The windows still alive from stage `from` on, one at a time.
    func scalar(_ lanes: Mask8, from: Int) -> UInt8 {
      var bits: UInt8 = 0
      for lane in 0..<Self.laneCount where lanes[lane] {
        if stumpStages(p + lane, factor: factors[lane], from: from) > 0 { bits |= 1 << lane }
      }
      return bits
    }
    return laneStumps.withUnsafeBufferPointer { stumps in
      laneRects.withUnsafeBufferPointer { rects in
        stages.withUnsafeBufferPointer { sg in
          var index = 1
          while index < sg.count {
            let count = alive.count
            if count == 0 { return 0 }
            let low = alive.lowCount
            if count <= 2 && (count == 1 || low == 1) { return scalar(alive, from: index) }
            if low == 0 || low == count { break }
            let stage = sg[index]
            let sum = laneStage(stage, pv, f0, f1, stumps.baseAddress!, rects.baseAddress!)
            let passed = Self.passing(sum, stage.threshold)
            alive = Mask8(
              alive.m0 & passed.m0, alive.m1 & passed.m1, alive.m2 & passed.m2, alive.m3 & passed.m3)
            index += 1
          }
          if index == sg.count { return alive.bits }
          // Only one half has windows left: go on with four lanes.
          let high = alive.lowCount == 0
          let (ph, fh) = high ? (pv + 16, f1) : (pv, f0)
          var a0 = high ? alive.m2 : alive.m0
          var a1 = high ? alive.m3 : alive.m1
          while index < sg.count {
            let s = a0 &+ a1
            let count = -(s[0] &+ s[1])
            if count == 0 { return 0 }
            if count == 1 { break }
            let stage = sg[index]
            let (sum0, sum1) = laneStage4(stage, ph, fh, stumps.baseAddress!, rects.baseAddress!)
            let t = SIMD2<Double>(repeating: Double(stage.threshold))
            a0 &= unsafeBitCast(sum0 .>= t, to: SIMD2<Int64>.self)
            a1 &= unsafeBitCast(sum1 .>= t, to: SIMD2<Int64>.self)
            index += 1
          }
          let zero = SIMD2<Int64>.zero
          let lanes = high ? Mask8(zero, zero, a0, a1) : Mask8(a0, a1, zero, zero)
          return index == sg.count ? lanes.bits : scalar(lanes, from: index)
        }
      }
    }
  }
}
