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
  /// `tiltedOffset` entries after the upright one.
  init(_ cascade: HaarCascade, stride: Int, tiltedOffset: Int) {
    windowWidth = cascade.windowWidth
    windowHeight = cascade.windowHeight
    stages = cascade.stages
    trees = cascade.trees
    leaves = cascade.leaves
    func corners(_ r: HaarCascade.Rect, tilted: Bool) -> SIMD4<Int32> {
      func at(_ x: Int, _ y: Int) -> Int32 { Int32(y * stride + x + (tilted ? tiltedOffset : 0)) }
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
      stumps = cascade.trees.map { t in
        let node = cascade.nodes[t.nodeStart]
        return Stump(
          feature: compiled[node.featureIndex], threshold: node.threshold,
          left: cascade.leaves[t.leafStart], right: cascade.leaves[t.leafStart + 1])
      }
      nodes = []
    } else {
      stumps = []
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
    if !stumps.isEmpty {
      return stumps.withUnsafeBufferPointer { st in
        stages.withUnsafeBufferPointer { sg in
          var k = 0
          for (index, stage) in sg.enumerated() {
            var sum = 0.0
            for i in k..<(k + stage.count) {
              let s = st[i]
              let v = Self.value(s.feature, p) * factor
              sum += Double(v < s.threshold ? s.left : s.right)
            }
            if sum < Double(stage.threshold) { return -index }
            k += stage.count
          }
          return 1
        }
      }
    }
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
}
