// The Haar stump kernels: the variance test and stage 0 over a row of windows, and the later
// stages over the windows of a row that passed stage 0. This one file is compiled three times:
// here for baseline x86-64 (`BaselineHaarKernels`: 8 windows a vector, as pairs of SSE
// registers), and through symbolic links in HaarKernelsAVX2 with `-mavx2 -mfma` and HAAR_AVX2
// (`AVX2HaarKernels`: 8 windows in one AVX2 register) and in HaarKernelsAVX512 with AVX-512 F
// and VL and HAAR_AVX512 (`AVX512HaarKernels`: 16 windows in one AVX-512 register, going on in
// the AVX2 build's code once a vector's live windows fit in 8 lanes). PhotoCore picks one at run
// time from CPUID.
//
// Every build does, in each lane, exactly OpenCV's scalar operations in the scalar order: IEEE
// `Float` and `Double` multiplies, adds, divisions and square roots, never fused (Swift does not
// contract `a * b + c`), so each lane's values are the scalar ones bit for bit and all three
// builds give the same windows. The one exception gives the same values too: an integer stump's
// feature (see `HaarStage`) is the exact `Int32` combination of its rectangle sums (or of its
// distinct corners), converted once, which is what the `Float` operations give when every
// intermediate is an integer below 2^24. Stage sums are exact integers, so their order does not
// matter. The modules are built with `-fno-math-errno` so that `squareRoot()` of a vector is one
// vector square root (the same correctly rounded result) rather than a library call per lane.

#if HAAR_AVX512
  import HaarKernels
  import HaarKernelsAVX2

  /// The kernels for processors with AVX-512 F and VL: 16 windows a vector.
  public enum AVX512HaarKernels {}
  typealias Kernels = AVX512HaarKernels
  typealias IntV = SIMD16<Int32>
  typealias FloatV = SIMD16<Float>
  typealias ByteV = SIMD16<Int8>
  typealias HalfInt = SIMD8<Int32>
  typealias HalfFloat = SIMD8<Float>
  typealias HalfDouble = SIMD8<Double>
  typealias HalfMask = SIMD8<Int64>
#else
  #if HAAR_AVX2
    import HaarKernels

    /// The kernels for processors with AVX2: 8 windows in one register.
    public enum AVX2HaarKernels {}
    typealias Kernels = AVX2HaarKernels
  #else
    /// The kernels for baseline x86-64 (and any other processor): 8 windows a vector, as pairs
    /// of 4-lane registers.
    public enum BaselineHaarKernels {}
    typealias Kernels = BaselineHaarKernels
  #endif
  typealias IntV = SIMD8<Int32>
  typealias FloatV = SIMD8<Float>
  typealias ByteV = SIMD8<Int8>
  typealias HalfInt = SIMD4<Int32>
  typealias HalfFloat = SIMD4<Float>
  typealias HalfDouble = SIMD4<Double>
  typealias HalfMask = SIMD4<Int64>
#endif

/// Windows in one vector.
private let lanes = IntV.scalarCount

// The helpers are written for the concrete vector types, never generic (a generic SIMD helper
// compiles to one scalar operation per lane), and conversions go through halves: the standard
// library's 16-lane conversions are not inlined.

@inline(__always)
private func load(_ p: UnsafeRawPointer, _ offset: Int32) -> IntV {
  p.loadUnaligned(fromByteOffset: Int(offset), as: IntV.self)
}

/// The rectangle sums p0 − p1 − p2 + p3 of the lanes' windows.
@inline(__always)
private func sums(_ p: UnsafeRawPointer, _ o0: Int32, _ o1: Int32, _ o2: Int32, _ o3: Int32) -> IntV {
  load(p, o0) &- load(p, o1) &- load(p, o2) &+ load(p, o3)
}

@inline(__always)
private func floats(_ v: IntV) -> FloatV {
  FloatV(lowHalf: HalfFloat(v.lowHalf), highHalf: HalfFloat(v.highHalf))
}

/// A lane mask (all ones or zero in each lane) from a comparison.
@inline(__always)
private func mask(_ m: SIMDMask<IntV.MaskStorage>) -> IntV {
  unsafeBitCast(m, to: IntV.self)
}

@inline(__always)
private func mask(_ m0: SIMDMask<HalfMask>, _ m1: SIMDMask<HalfMask>) -> IntV {
  IntV(
    lowHalf: HalfInt(truncatingIfNeeded: unsafeBitCast(m0, to: HalfMask.self)),
    highHalf: HalfInt(truncatingIfNeeded: unsafeBitCast(m1, to: HalfMask.self)))
}

#if HAAR_AVX512
  @inline(__always) private var laneBitValues: IntV {
    IntV(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
  }
#else
  @inline(__always) private var laneBitValues: IntV { IntV(1, 2, 4, 8, 16, 32, 64, 128) }
#endif

/// A bit per set lane of a lane mask.
@inline(__always)
private func bits(_ m: IntV) -> UInt32 {
  UInt32(bitPattern: (m & laneBitValues).wrappedSum())
}

/// Which lanes of `stage` pass, as a lane mask, for the windows at `p`, `p` + 1 entry, … whose
/// variance factors are `f`: each lane's feature values are the scalar `Float` ones, its sum the
/// exact integer.
@inline(__always)
private func stageMask(_ t: HaarTables, _ stage: HaarStage, _ p: UnsafeRawPointer, _ f: FloatV) -> IntV {
  stageMasks(t, stage, p, f, p, f, two: false).0
}

/// ``stageMask`` for two vectors of windows at once, at `p0` and `p1` (when `two`; else only the
/// first, and the second mask is `.zero`). Each stump's offsets, threshold and leaf changes are
/// read once for both, which are about as many loads as the table entries of one vector, and the
/// two vectors are independent chains of work.
@inline(__always)
private func stageMasks(
  _ t: HaarTables, _ stage: HaarStage, _ p0: UnsafeRawPointer, _ f0: FloatV, _ p1: UnsafeRawPointer,
  _ f1: FloatV, two: Bool
) -> (IntV, IntV) {
  var (low0, high0, low1, high1) = (IntV.zero, IntV.zero, IntV.zero, IntV.zero)
  /// Adds a stump's leaf change to the lanes whose feature `value` (of the windows at a
  /// pointer), times their factor, is below `threshold`.
  @inline(__always) func add(
    _ threshold: Float, _ low: Int32, _ high: Int32, _ value: (UnsafeRawPointer) -> FloatV
  ) {
    let (threshold, low, high) = (FloatV(repeating: threshold), IntV(repeating: low), IntV(repeating: high))
    let below0 = mask(value(p0) * f0 .< threshold)
    low0 &+= below0 & low
    high0 &+= below0 & high
    guard two else { return }
    let below1 = mask(value(p1) * f1 .< threshold)
    low1 &+= below1 & low
    high1 &+= below1 & high
  }
  // Merged integer stumps: their distinct corners, shifts and adds (see `HaarStage`).
  var m = t.corners + stage.cornerStart
  @inline(__always) func addExact(_ value: (UnsafeRawPointer) -> IntV) {
    add(m.pointee.threshold, m.pointee.low, m.pointee.high) { floats(value($0)) }
    m += 1
  }
  @inline(__always) func four(_ p: UnsafeRawPointer, _ o0: Int32, _ o1: Int32, _ o2: Int32, _ o3: Int32)
    -> IntV
  { (load(p, o0) &+ load(p, o1)) &+ (load(p, o2) &+ load(p, o3)) }
  @inline(__always) func diagonal(_ p: UnsafeRawPointer) -> IntV {
    let ones = four(p, m.pointee.a0, m.pointee.a1, m.pointee.a2, m.pointee.a3)
    let twos = four(p, m.pointee.b0, m.pointee.b1, m.pointee.b2, m.pointee.b3)
    return (ones &+ (load(p, m.pointee.c0) &<< 2)) &- (twos &<< 1)
  }
  let lineEnd = t.corners + stage.lineEnd
  while m < lineEnd {
    addExact { p in
      let threes = sums(p, m.pointee.b0, m.pointee.b1, m.pointee.b2, m.pointee.b3)
      return sums(p, m.pointee.a0, m.pointee.a1, m.pointee.a2, m.pointee.a3) &+ (threes &<< 1) &+ threes
    }
  }
  let edgeEnd = t.corners + stage.edgeEnd
  while m < edgeEnd {
    addExact { p in
      let twos = load(p, m.pointee.b0) &- load(p, m.pointee.b1)
      return sums(p, m.pointee.a0, m.pointee.a1, m.pointee.a2, m.pointee.a3) &+ (twos &<< 1)
    }
  }
  let diagonalEnd = t.corners + stage.diagonalEnd
  while m < diagonalEnd { addExact(diagonal) }
  let negatedEnd = t.corners + stage.negatedEnd
  while m < negatedEnd { addExact { IntV.zero &- diagonal($0) } }
  var s = t.stumps + stage.start
  @inline(__always) func addStump(_ value: (UnsafeRawPointer) -> FloatV) {
    add(s.pointee.threshold, s.pointee.low, s.pointee.high, value)
    s += 1
  }
  @inline(__always) func sumA(_ p: UnsafeRawPointer) -> IntV {
    sums(p, s.pointee.a0, s.pointee.a1, s.pointee.a2, s.pointee.a3)
  }
  @inline(__always) func sumB(_ p: UnsafeRawPointer) -> IntV {
    sums(p, s.pointee.b0, s.pointee.b1, s.pointee.b2, s.pointee.b3)
  }
  @inline(__always) func sumC(_ p: UnsafeRawPointer) -> IntV {
    sums(p, s.pointee.c0, s.pointee.c1, s.pointee.c2, s.pointee.c3)
  }
  @inline(__always) func twoSums(_ p: UnsafeRawPointer) -> FloatV {
    FloatV(repeating: s.pointee.weightA) * floats(sumA(p)) + FloatV(repeating: s.pointee.weightB)
      * floats(sumB(p))
  }
  @inline(__always) func integerTwo(_ p: UnsafeRawPointer) -> IntV {
    sumA(p) &* IntV(repeating: s.pointee.integerA) &+ sumB(p) &* IntV(repeating: s.pointee.integerB)
  }
  // Other integer stumps: one conversion of the exact value.
  let integerSplit = t.stumps + stage.integerSplit
  while s < integerSplit { addStump { floats(integerTwo($0)) } }
  let integerEnd = t.stumps + stage.integerEnd
  while s < integerEnd {
    addStump { floats(integerTwo($0) &+ sumC($0) &* IntV(repeating: s.pointee.integerC)) }
  }
  let split = t.stumps + stage.split
  while s < split { addStump(twoSums) }
  let end = t.stumps + stage.end
  while s < end { addStump { twoSums($0) + FloatV(repeating: s.pointee.weightC) * floats(sumC($0)) } }
  // The sum is high · 2^20 + low; carry low's upper bits so that 0 ≤ low < 2^20, then compare
  // (high, low) with (needHigh, needLow). |high| stays below 2^31 (see `HaarTables`).
  @inline(__always) func passes(_ low: IntV, _ high: IntV) -> IntV {
    let high = high &+ low &>> Int32(HaarStage.lowBits)
    let low = low & IntV(repeating: Int32(1) << Int32(HaarStage.lowBits) - 1)
    let needHigh = IntV(repeating: stage.needHigh)
    return mask(high .> needHigh) | (mask(high .== needHigh) & mask(low .>= IntV(repeating: stage.needLow)))
  }
  return (passes(low0, high0), two ? passes(low1, high1) : .zero)
}

extension Kernels {
  /// Windows evaluated together.
  public static var laneCount: Int { lanes }

  /// The variance test and stage 0 for the `count` windows whose top-left table entries are
  /// `p`, `p + 1`, … (values) and `q`, `q + 1`, … (squares).
  ///
  /// `codes[i]` becomes −1 when window i is rejected before stage 0 (no variance, or almost
  /// flat), 0 when it fails stage 0 and 1 when it passes; `factors[i]` its variance factor
  /// (meaningful when `codes[i]` is 1). Up to 7 entries past `count` are written too. The
  /// tables must be readable 15 entries past the last window's entries.
  public static func firstStage(
    _ t: HaarTables, _ p: UnsafePointer<Int32>, _ q: UnsafePointer<Int32>, count: Int,
    codes: UnsafeMutablePointer<Int8>, factors: UnsafeMutablePointer<Float>
  ) {
    let area = HalfDouble(repeating: t.area)
    let surelyFlat = HalfDouble(repeating: t.surelyFlat)
    let stage = t.stages[0]
    let one = HalfDouble(repeating: 1)
    let small = HalfDouble(repeating: 0.1)
    @inline(__always) func store(_ c: ByteV, _ f: FloatV?, at i: Int) {
      // Whole vectors while they end within 7 entries of `count`, else the first half.
      if lanes == 8 || count - i > 8 {
        UnsafeMutableRawPointer(codes + i).storeBytes(of: c, as: ByteV.self)
        if let f { UnsafeMutableRawPointer(factors + i).storeBytes(of: f, as: FloatV.self) }
      } else {
        UnsafeMutableRawPointer(codes + i).storeBytes(of: c.lowHalf, as: type(of: c.lowHalf))
        if let f { UnsafeMutableRawPointer(factors + i).storeBytes(of: f.lowHalf, as: HalfFloat.self) }
      }
    }
    /// The variance test of the windows at `i`, `i + 1`, …: their factors and which pass it, or
    /// nil (and their codes stored) when none does.
    @inline(__always) func variance(at i: Int) -> (ok: IntV, f: FloatV)? {
      let pv = UnsafeRawPointer(p + i)
      let qv = UnsafeRawPointer(q + i)
      let sum = sums(pv, t.n0, t.n1, t.n2, t.n3)
      // Squared sums are unsigned: u = (u − 2³¹ as a signed value) + 2³¹, exactly.
      let squares = sums(qv, t.n0, t.n1, t.n2, t.n3) ^ IntV(repeating: Int32.min)
      @inline(__always) func normaliser(_ s: HalfInt, _ u: HalfInt) -> HalfDouble {
        let sd = HalfDouble(s)
        let ud = HalfDouble(u) + 2_147_483_648
        return area * ud - sd * sd
      }
      let nf0 = normaliser(sum.lowHalf, squares.lowHalf)
      let nf1 = normaliser(sum.highHalf, squares.highHalf)
      if bits(mask(nf0 .> surelyFlat, nf1 .> surelyFlat)) == 0 {
        // Flat windows (a clear sky, a blurred background): no factor or stage needed.
        store(ByteV(repeating: -1), nil, at: i)
        return nil
      }
      // The factor Float(1 / sqrt(nf)) and the test area · factor < 0.1, in Double. Lanes
      // without variance take 1 (their factor is not used), so sqrt never sees a negative.
      @inline(__always) func factor(_ nf: HalfDouble) -> (HalfFloat, SIMDMask<HalfMask>) {
        let positive = nf .> 0
        let safe = unsafeBitCast(
          (unsafeBitCast(nf, to: HalfMask.self) & unsafeBitCast(positive, to: HalfMask.self))
            | (unsafeBitCast(one, to: HalfMask.self) & ~unsafeBitCast(positive, to: HalfMask.self)),
          to: HalfDouble.self)
        let f = HalfFloat(one / safe.squareRoot())
        return (f, positive .& (area * HalfDouble(f) .< small))
      }
      let (f0, ok0) = factor(nf0)
      let (f1, ok1) = factor(nf1)
      let ok = mask(ok0, ok1)
      if bits(ok) == 0 {
        store(ByteV(repeating: -1), nil, at: i)
        return nil
      }
      return (ok, FloatV(lowHalf: f0, highHalf: f1))
    }
    /// Stores the codes of the windows at `i`, … from their variance test and stage 0's mask.
    @inline(__always) func finish(_ i: Int, _ tested: (ok: IntV, f: FloatV), _ passed: IntV) {
      // −1 when rejected, else 1 when passed, 0 when failed.
      let code = (passed & IntV(repeating: 1)) | ~tested.ok
      store(ByteV(truncatingIfNeeded: code), tested.f, at: i)
    }
    // The 8-lane builds take two vectors at a time, whose stage 0 shares its stumps' loads (see
    // `stageMasks`). The AVX-512 build takes one: paired, its stage 0 took about a quarter more
    // time on a Zen 4 EPYC (perf samples on the crowd, 481 and 514 against 391 and 378), and
    // `detect`'s whole search about 3% more (0.972 the median ratio of 16 alternating runs).
    let paired = lanes == 8
    var i = 0
    while i < count {
      let j = i + lanes
      let first = variance(at: i)
      let second = paired && j < count ? variance(at: j) : nil
      if let first, let second {
        let (m0, m1) = stageMasks(
          t, stage, UnsafeRawPointer(p + i), first.f, UnsafeRawPointer(p + j), second.f, two: true)
        finish(i, first, m0)
        finish(j, second, m1)
      } else if let first {
        finish(i, first, stageMask(t, stage, UnsafeRawPointer(p + i), first.f))
      } else if let second {
        finish(j, second, stageMask(t, stage, UnsafeRawPointer(p + j), second.f))
      }
      i = paired ? j + lanes : j
    }
  }

  /// Stages 1 and on for the windows among `count` at `p`, `p + 1`, … whose flag is 1 (flags
  /// are 0 or 1), with their variance factors at `factors`. Writes the index of each window that
  /// passes every stage to `hits`, in increasing order, and returns how many.
  ///
  /// Blocks of lanes start at each window still to do whose flag is set and cover the next
  /// windows, whatever their flags: a stage costs the same on one vector however many of its
  /// lanes are alive, even one: a window left alone stays in its vector (one window at a time,
  /// with its unpredictable branch per stump, was about 10% slower on the 24 MP crowd). The row's
  /// blocks go stage by stage, two at a time, so that each stump's offsets, threshold and leaf
  /// changes are read once for both (`stageMasks`): 0.790 s against 0.738 s for `detect`'s search
  /// on the crowd with stage 0 paired too (medians of 16 alternating runs, AVX2 on a Zen 3 EPYC;
  /// 0.968 the median of the pairs' ratios). Few lanes stay alive past the first stages (on the
  /// 24 MP crowd, 7.4 of 16 enter stage 1, 2.9 stage 4, under 2 stage 7), so the AVX-512 build
  /// goes on 8 lanes wide, in the AVX2 build's code (``blockStage``), with each block whose live
  /// lanes all lie in one half: on processors that run a 512-bit operation as two 256-bit halves
  /// (AMD Zen 4) that halves the cost of those stages, and elsewhere it costs the same. Its blocks
  /// of either width go in pairs too: on a Zen 4 EPYC, 0.983 the median ratio of 16 alternating
  /// runs of `detect`'s search against one block at a time, 16 lanes then 8. Flags and factors
  /// must be readable 15 entries past `count`, the tables 15 entries past the last window's
  /// entries.
  public static func laterStages(
    _ t: HaarTables, _ p: UnsafePointer<Int32>, factors: UnsafePointer<Float>,
    flags: UnsafePointer<Int8>, count: Int, hits: UnsafeMutablePointer<Int32>
  ) -> Int {
    // A block per window that starts one, as its first window's index and its live lanes
    // (`block`): they start at least `lanes` windows apart. The AVX-512 build keeps its 8-lane
    // blocks after them.
    let most = count / lanes + 1
    let blocks = UnsafeMutablePointer<UInt64>.allocate(capacity: lanes == 8 ? most : 2 * most)
    defer { blocks.deallocate() }
    var blockCount = 0
    var i = 0
    while i < count {
      let word = UnsafeRawPointer(flags + i).loadUnaligned(as: UInt64.self)
      if word == 0 {
        i += 8
        continue
      }
      i += word.trailingZeroBitCount >> 3
      if i >= count { break }
      var alive = flagBits(flags + i)
      if count - i < lanes { alive &= (UInt32(1) << UInt32(count - i)) - 1 }
      blocks[blockCount] = block(i, alive)
      blockCount += 1
      i += lanes
    }
    var index = 1
    #if HAAR_AVX512
      // 16 lanes while a block's live lanes lie in both halves, then 8 lanes wide in the half
      // that holds them (see above).
      let narrow = blocks + most
      var narrowCount = 0
      while index < t.stageCount && blockCount + narrowCount > 0 {
        let stage = t.stages[index]
        narrowCount = AVX2HaarKernels.blockStage(t, stage, p, factors, narrow, narrowCount)
        var kept = 0
        runStage(t, stage, p, factors, blocks, blockCount) { start, alive in
          if alive >> 8 == 0 {
            narrow[narrowCount] = block(start, alive)
          } else if alive & 0xFF == 0 {
            narrow[narrowCount] = block(start + 8, alive >> 8)
          } else {
            blocks[kept] = block(start, alive)
            kept += 1
            return
          }
          narrowCount += 1
        }
        blockCount = kept
        index += 1
      }
      // The 8-lane blocks joined in any order: sort the survivors (few) by their start.
      (blocks + blockCount).update(from: narrow, count: narrowCount)
      blockCount += narrowCount
      for j in stride(from: 1, to: blockCount, by: 1) {
        let b = blocks[j]
        var k = j
        while k > 0 && blocks[k - 1] > b {
          blocks[k] = blocks[k - 1]
          k -= 1
        }
        blocks[k] = b
      }
    #else
      while index < t.stageCount && blockCount > 0 {
        blockCount = blockStage(t, t.stages[index], p, factors, blocks, blockCount)
        index += 1
      }
    #endif
    var found = 0
    for j in 0..<blockCount {
      var alive = UInt32(truncatingIfNeeded: blocks[j])
      let start = Int(blocks[j] >> 32)
      while alive != 0 {
        hits[found] = Int32(start + alive.trailingZeroBitCount)
        found += 1
        alive &= alive - 1
      }
    }
    return found
  }
}

#if !HAAR_AVX512
  extension Kernels {
    /// `stage` for the `count` blocks of 8 lanes at `blocks` (see ``laterStages``), of windows at
    /// `p` with their variance factors at `factors`: keeps those with lanes left, in order, at
    /// `blocks`, and returns how many. The AVX-512 build's ``laterStages`` goes on here with
    /// blocks whose live lanes fit in 8.
    public static func blockStage(
      _ t: HaarTables, _ stage: HaarStage, _ p: UnsafePointer<Int32>, _ factors: UnsafePointer<Float>,
      _ blocks: UnsafeMutablePointer<UInt64>, _ count: Int
    ) -> Int {
      var kept = 0
      runStage(t, stage, p, factors, blocks, count) { start, alive in
        blocks[kept] = block(start, alive)
        kept += 1
      }
      return kept
    }
  }
#endif

/// A block of lanes: its first window's index and its live lanes.
@inline(__always)
private func block(_ start: Int, _ alive: UInt32) -> UInt64 { UInt64(start) << 32 | UInt64(alive) }

/// `stage` for the `count` blocks at `blocks`, two at a time (`stageMasks`), in order: calls
/// `keep` with each block's first window and its lanes that pass, when any does. `keep` may
/// overwrite blocks already read.
@inline(__always)
private func runStage(
  _ t: HaarTables, _ stage: HaarStage, _ p: UnsafePointer<Int32>, _ factors: UnsafePointer<Float>,
  _ blocks: UnsafeMutablePointer<UInt64>, _ count: Int, keep: (Int, UInt32) -> Void
) {
  @inline(__always) func read(_ j: Int) -> (start: Int, alive: UInt32, p: UnsafeRawPointer, f: FloatV) {
    let start = Int(blocks[j] >> 32)
    return (
      start, UInt32(truncatingIfNeeded: blocks[j]), UnsafeRawPointer(p + start),
      UnsafeRawPointer(factors + start).loadUnaligned(as: FloatV.self)
    )
  }
  @inline(__always) func keepLive(_ start: Int, _ alive: UInt32) {
    if alive != 0 { keep(start, alive) }
  }
  var j = 0
  while j + 1 < count {
    let (a, b) = (read(j), read(j + 1))
    let (ma, mb) = stageMasks(t, stage, a.p, a.f, b.p, b.f, two: true)
    keepLive(a.start, a.alive & bits(ma))
    keepLive(b.start, b.alive & bits(mb))
    j += 2
  }
  if j < count {
    let a = read(j)
    keepLive(a.start, a.alive & bits(stageMask(t, stage, a.p, a.f)))
  }
}

/// A bit per lane from the lanes' flags (bytes 0 or 1): byte k of a little-endian word times
/// 0x0102040810204080 lands alone in bit 56 + k.
@inline(__always)
private func flagBits(_ flags: UnsafePointer<Int8>) -> UInt32 {
  var result: UInt32 = 0
  for word in 0..<(lanes / 8) {
    let x = UnsafeRawPointer(flags + 8 * word).loadUnaligned(as: UInt64.self)
    result |= UInt32((x &* 0x0102_0408_1020_4080) >> 56) << UInt32(8 * word)
  }
  return result
}

extension Kernels {
  /// `count` RGBA pixels to grey levels as OpenCV 4's 8-bit `cvtColor(COLOR_BGR2GRAY)` makes
  /// them, `(9798 R + 19235 G + 3735 B + 16384) >> 15` (PhotoCore's `GreyImage.grey(r:g:b:)` is
  /// the reference), a vector of pixels at a time: the same integers in every build, with the
  /// multiplies of the build's width (AVX2 and AVX-512 multiply 32-bit lanes in one instruction;
  /// baseline SSE2 does not).
  public static func greyRow(_ src: UnsafePointer<UInt8>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>) {
    var x = 0
    #if _endian(little)
      while x &+ lanes <= count {
        // One pixel a lane: R in the low byte (memory order R, G, B, A).
        let p = UnsafeRawPointer(src + x &* 4).loadUnaligned(as: IntV.self)
        let mask = IntV(repeating: 0xFF)
        let (r, g, b) = (p & mask, (p &>> 8) & mask, (p &>> 16) & mask)
        let level =
          (IntV(repeating: 9798) &* r &+ IntV(repeating: 19235) &* g &+ IntV(repeating: 3735) &* b
            &+ IntV(repeating: 16384)) &>> 15
        UnsafeMutableRawPointer(out + x).storeBytes(of: ByteV(truncatingIfNeeded: level), as: ByteV.self)
        x &+= lanes
      }
    #endif
    while x < count {
      let s = src + x &* 4
      let level = (9798 &* UInt32(s[0]) &+ 19235 &* UInt32(s[1]) &+ 3735 &* UInt32(s[2]) &+ 16384) >> 15
      out[x] = UInt8(truncatingIfNeeded: level)
      x &+= 1
    }
  }
}

extension Kernels {
  /// The horizontal pass of the pyramid's bilinear resize (PhotoCore's `GreyImage.ResizedRows`
  /// is the reference) for one source row, `src`, or two, `src` into `out0` and `below` into
  /// `out1`: output column x is `row[c] · weights0[x] + row[c + 1] · weights1[x]` in 16 bits, c =
  /// `columns[x]` (ascending, c + 1 < `sourceWidth`). The same integers in every build.
  ///
  /// Each lane needs two neighbouring source bytes at its own column. The baseline build loads
  /// them one lane at a time. AVX2 and AVX-512 shift lanes by different counts in one
  /// instruction, so while four neighbouring columns lie within 7 bytes of the first of them
  /// (shrinking by less than 2), they load those 8 bytes once and shift each lane's pair down.
  public static func horizontal(
    _ src: UnsafePointer<UInt8>, _ below: UnsafePointer<UInt8>?, sourceWidth: Int,
    _ columns: UnsafePointer<Int32>, _ weights0: UnsafePointer<UInt16>, _ weights1: UnsafePointer<UInt16>,
    _ count: Int, _ out0: UnsafeMutablePointer<UInt16>, _ out1: UnsafeMutablePointer<UInt16>
  ) {
    // Two inlined copies, each with its `below` known.
    if let below {
      rows(src, below, sourceWidth, columns, weights0, weights1, count, out0, out1)
    } else {
      rows(src, nil, sourceWidth, columns, weights0, weights1, count, out0, out1)
    }
  }

  @inline(__always)
  private static func rows(
    _ src: UnsafePointer<UInt8>, _ below: UnsafePointer<UInt8>?, _ sourceWidth: Int,
    _ columns: UnsafePointer<Int32>, _ weights0: UnsafePointer<UInt16>, _ weights1: UnsafePointer<UInt16>,
    _ count: Int, _ out0: UnsafeMutablePointer<UInt16>, _ out1: UnsafeMutablePointer<UInt16>
  ) {
    @inline(__always) func pair(_ row: UnsafePointer<UInt8>, _ at: Int32) -> UInt16 {
      UnsafeRawPointer(row + Int(at)).loadUnaligned(as: UInt16.self).littleEndian
    }
    /// A pair's first pixel times `w0` plus its second times `w1`.
    @inline(__always) func weighted(_ p: SIMD8<UInt16>, _ w0: SIMD8<UInt16>, _ w1: SIMD8<UInt16>)
      -> SIMD8<UInt16>
    { (p & 0xFF) &* w0 &+ (p &>> 8) &* w1 }
    @inline(__always) func weighted(_ p: UInt16, _ w0: UInt16, _ w1: UInt16) -> UInt16 {
      (p & 0xFF) &* w0 &+ (p &>> 8) &* w1
    }
    var x = 0
    while x &+ 8 <= count {
      let c = UnsafeRawPointer(columns + x).loadUnaligned(as: SIMD8<Int32>.self)
      let w0 = UnsafeRawPointer(weights0 + x).loadUnaligned(as: SIMD8<UInt16>.self)
      let w1 = UnsafeRawPointer(weights1 + x).loadUnaligned(as: SIMD8<UInt16>.self)
      @inline(__always) func lanes(_ row: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        SIMD8(
          pair(row, c[0]), pair(row, c[1]), pair(row, c[2]), pair(row, c[3]), pair(row, c[4]),
          pair(row, c[5]), pair(row, c[6]), pair(row, c[7]))
      }
      var p: SIMD8<UInt16>
      var q = SIMD8<UInt16>.zero
      #if (HAAR_AVX2 || HAAR_AVX512) && _endian(little)
        let (c0, c4) = (c[0], c[4])
        if c[3] &- c0 <= 6 && c[7] &- c4 <= 6 && Int(c4) &+ 8 <= sourceWidth {
          // Byte k of a little-endian word is at bit 8k: lane j's pair is the word shifted down
          // by 8 × (its column − the word's), truncated.
          let first = SIMD8<Int32>(lowHalf: SIMD4(repeating: c0), highHalf: SIMD4(repeating: c4))
          let shifts = SIMD8<UInt64>(truncatingIfNeeded: (c &- first) &<< 3)
          @inline(__always) func shifted(_ row: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
            let a = UnsafeRawPointer(row + Int(c0)).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(row + Int(c4)).loadUnaligned(as: UInt64.self)
            let words = SIMD8<UInt64>(lowHalf: SIMD4(repeating: a), highHalf: SIMD4(repeating: b))
            return SIMD8<UInt16>(truncatingIfNeeded: words &>> shifts)
          }
          p = shifted(src)
          if let below { q = shifted(below) }
        } else {
          p = lanes(src)
          if let below { q = lanes(below) }
        }
      #else
        p = lanes(src)
        if let below { q = lanes(below) }
      #endif
      UnsafeMutableRawPointer(out0 + x).storeBytes(of: weighted(p, w0, w1), as: SIMD8<UInt16>.self)
      if below != nil {
        UnsafeMutableRawPointer(out1 + x).storeBytes(of: weighted(q, w0, w1), as: SIMD8<UInt16>.self)
      }
      x &+= 8
    }
    while x < count {
      let (c, w0, w1) = (columns[x], weights0[x], weights1[x])
      out0[x] = weighted(pair(src, c), w0, w1)
      if let below { out1[x] = weighted(pair(below, c), w0, w1) }
      x &+= 1
    }
  }
}
