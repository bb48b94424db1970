// The tables the Haar stump kernels read, shared by the three builds of `HaarKernels.swift`
// (this file is compiled once, in the baseline module). PhotoCore's `CascadeEvaluator` fills
// them; the kernels only read them.

/// A stump for lanes of neighbouring windows, lane i reading the table entry i after each corner.
public struct HaarStump: Sendable {
  /// The rectangles' corners as byte offsets (sum = p0 − p1 − p2 + p3); the third rectangle is
  /// only read when its weight is not 0.
  public var a0: Int32, a1: Int32, a2: Int32, a3: Int32
  public var b0: Int32, b1: Int32, b2: Int32, b3: Int32
  public var c0: Int32, c1: Int32, c2: Int32, c3: Int32
  public var weightA: Float, weightB: Float, weightC: Float
  public var threshold: Float
  /// The weights as integers, for stumps whose feature is computed exactly in `Int32` (see
  /// ``HaarStage``).
  public var integerA: Int32, integerB: Int32, integerC: Int32
  /// The change the stump's left leaf makes to the stage's sum (`(left − right) · 2^K`, an exact
  /// integer), split into its low ``HaarStage/lowBits`` bits (`low`, not negative) and the rest.
  public var low: Int32, high: Int32

  public init(
    a: SIMD4<Int32>, b: SIMD4<Int32>, c: SIMD4<Int32>, weightA: Float, weightB: Float, weightC: Float,
    threshold: Float, change: Int64
  ) {
    (a0, a1, a2, a3) = (a[0], a[1], a[2], a[3])
    (b0, b1, b2, b3) = (b[0], b[1], b[2], b[3])
    (c0, c1, c2, c3) = (c[0], c[1], c[2], c[3])
    (self.weightA, self.weightB, self.weightC, self.threshold) = (weightA, weightB, weightC, threshold)
    // Only read when the weights are small integers (the builder's promise for integer stumps).
    @inline(__always) func integer(_ w: Float) -> Int32 { w == w.rounded() && abs(w) <= 1024 ? Int32(w) : 0 }
    (integerA, integerB, integerC) = (integer(weightA), integer(weightB), integer(weightC))
    (low, high) = HaarStage.split(change)
  }
}

/// A stump whose corners merge into one of ``HaarStage``'s shapes: its distinct corners as byte
/// offsets, grouped as the shape says, in 48 bytes (half a ``HaarStump``: a deep stage's stumps
/// are read again for every vector of windows that reaches it, so their size counts).
public struct HaarCornerStump: Sendable {
  public var a0: Int32, a1: Int32, a2: Int32, a3: Int32
  public var b0: Int32, b1: Int32, b2: Int32, b3: Int32
  public var c0: Int32
  public var threshold: Float
  /// As ``HaarStump/low`` and ``HaarStump/high``.
  public var low: Int32, high: Int32

  public init(a: SIMD4<Int32>, b: SIMD4<Int32>, c: Int32, threshold: Float, change: Int64) {
    (a0, a1, a2, a3) = (a[0], a[1], a[2], a[3])
    (b0, b1, b2, b3) = (b[0], b[1], b[2], b[3])
    (c0, self.threshold) = (c, threshold)
    (low, high) = HaarStage.split(change)
  }
}

/// A stage: its stumps are `start..<end` of the stump table, in runs by how their feature is
/// computed. A window passes when its exact integer sum of leaf changes is at least `need`, so
/// the order of the stumps does not matter.
///
/// An integer stump's weights are small integers and its rectangles small enough that every
/// product `w · s` and every partial sum of OpenCV's `Float` feature value is an integer below
/// 2^24 in magnitude, so exact in a `Float`: that value is the `Int32` combination
/// `wA·sA + wB·sB [+ wC·sC]` converted once, which the kernels compute instead. That combination
/// is a sum of table entries at the rectangles' corners, each times an integer; where corners
/// coincide, they merge. Three shapes cover every stump of OpenCV's frontal and profile face
/// cascades, each read from fewer corners and with shifts and adds instead of multiplies (the
/// sums are modulo 2^32, as the tables are, and the value is below 2^24, so it is the same):
///
/// These are `cornerStart..<negatedEnd` of the corner table (``HaarCornerStump``):
///
/// - `cornerStart..<lineEnd`, a line (a rectangle less 3 times its middle third): corners a0 +
///   a3 − a1 − a2 at 1 and b0 + b3 − b1 − b2 at 3;
/// - `lineEnd..<edgeEnd`, an edge (a rectangle less 2 times its half): a0 + a3 − a1 − a2 at 1
///   and b0 − b1 at 2;
/// - `edgeEnd..<diagonalEnd`, a diagonal (a rectangle less 2 times two opposite quarters): the
///   four corners a at 1, the four b at −2 and c0 at 4; `diagonalEnd..<negatedEnd` the same
///   negated.
///
/// The others are `start..<end` of the stump table: the other integer stumps with two rectangles
/// (`start..<integerSplit`) and with three (`integerSplit..<integerEnd`), then the others with
/// two (`integerEnd..<split`) and with three (`split..<end`).
public struct HaarStage: Sendable {
  /// The bits of a leaf change held in ``HaarStump/low``.
  @inlinable public static var lowBits: Int { 20 }

  /// A leaf change as ``HaarStump/low`` (its low ``lowBits`` bits, not negative) and
  /// ``HaarStump/high`` (the rest).
  static func split(_ change: Int64) -> (low: Int32, high: Int32) {
    (Int32(change & (Int64(1) << lowBits - 1)), Int32(truncatingIfNeeded: change >> Int64(lowBits)))
  }

  public var cornerStart: Int, lineEnd: Int, edgeEnd: Int, diagonalEnd: Int, negatedEnd: Int
  public var start: Int, integerSplit: Int, integerEnd: Int, split: Int, end: Int
  public var need: Int64
  /// `need` as `needHigh · 2^lowBits + needLow` (0 ≤ needLow < 2^lowBits), `needHigh` clamped
  /// to Int32 (a sum never comes near: see ``HaarTables``).
  public var needHigh: Int32, needLow: Int32

  /// `cornerEnds` are `lineEnd`, `edgeEnd`, `diagonalEnd` and `negatedEnd`; `ends`
  /// `integerSplit`, `integerEnd`, `split` and `end`.
  public init(cornerStart: Int, cornerEnds: SIMD4<Int>, start: Int, ends: SIMD4<Int>, need: Int64) {
    self.cornerStart = cornerStart
    (lineEnd, edgeEnd, diagonalEnd, negatedEnd) = (cornerEnds[0], cornerEnds[1], cornerEnds[2], cornerEnds[3])
    self.start = start
    (integerSplit, integerEnd, split, end) = (ends[0], ends[1], ends[2], ends[3])
    self.need = need
    let high = need >> Int64(Self.lowBits)
    needHigh = Int32(clamping: high)
    needLow = Int32(need & (Int64(1) << Self.lowBits - 1))
  }
}

/// A compiled stump cascade for the kernels: pointers valid for the duration of one call.
///
/// The builder guarantees that every stage has 1 to 2 047 stumps and that the sum of the
/// magnitudes of a stage's leaf changes is below 2^50, so that the lanes' sums of low parts stay
/// below 2^31 and of high parts below 2^30 in magnitude.
public struct HaarTables {
  public var corners: UnsafePointer<HaarCornerStump>
  public var stumps: UnsafePointer<HaarStump>
  public var stages: UnsafePointer<HaarStage>
  public var stageCount: Int
  /// The variance rectangle's corners as byte offsets.
  public var n0: Int32, n1: Int32, n2: Int32, n3: Int32
  /// That rectangle's area in pixels.
  public var area: Double
  /// Normalisers (`area · Σx² − (Σx)²`) at most this are surely rejected: no factor needed.
  public var surelyFlat: Double

  public init(
    corners: UnsafePointer<HaarCornerStump>, stumps: UnsafePointer<HaarStump>,
    stages: UnsafePointer<HaarStage>,
    stageCount: Int, norm: SIMD4<Int32>, area: Double
  ) {
    (self.corners, self.stumps, self.stages, self.stageCount) = (corners, stumps, stages, stageCount)
    (n0, n1, n2, n3) = (norm[0], norm[1], norm[2], norm[3])
    self.area = area
    // A window is rejected when area · factor ≥ 0.1, that is when its normaliser is at most
    // about 100 · area². Below this bound, 10⁻⁵ less, the rounding of the square root, the
    // division and the Float (a few 10⁻⁸ in all) cannot make it pass.
    surelyFlat = 100 * area * area * (1 - 1e-5)
  }
}
