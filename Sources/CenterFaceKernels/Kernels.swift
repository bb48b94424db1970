// CenterFace's convolution kernels. This one file is compiled three times: here for baseline
// x86-64 (`BaselineKernels`: 4-float SSE vectors, separate multiply and add), and through symbolic
// links in CenterFaceKernelsAVX2 with `-mavx2 -mfma` and CENTERFACE_AVX2 defined (`AVX2Kernels`:
// 8-float vectors, fused multiply-add) and in CenterFaceKernelsAVX512 with AVX-512 F and VL and
// CENTERFACE_AVX512 (`AVX512Kernels`: 16-float vectors). CenterFace picks one at run time from
// CPUID. Both give the same sums in the same order; they differ only in rounding (a fused
// multiply-add rounds once where a multiply then an add rounds twice).

#if CENTERFACE_AVX512
  import CenterFaceKernels

  /// The kernels for processors with AVX-512: 16-float vectors, fused multiply-add. Its
  /// depthwise convolutions need a multiple of 16 channels a pixel (CenterFace's all are); the
  /// others go to `AVX2Kernels`, whose 8-float lanes do the same operations.
  public enum AVX512Kernels {}
  typealias Kernels = AVX512Kernels
  typealias Vector = SIMD16<Float>
  typealias DepthwiseVector = SIMD16<Float>
#elseif CENTERFACE_AVX2
  import CenterFaceKernels

  /// The kernels for processors with AVX2 and FMA: 8-float vectors, fused multiply-add.
  public enum AVX2Kernels {}
  typealias Kernels = AVX2Kernels
  typealias Vector = SIMD8<Float>
  typealias DepthwiseVector = SIMD8<Float>
#else
  /// The kernels for baseline x86-64 (and any other processor): 4-float vectors, a multiply
  /// then an add.
  public enum BaselineKernels {}
  typealias Kernels = BaselineKernels
  typealias Vector = SIMD4<Float>
  typealias DepthwiseVector = SIMD4<Float>
#endif

/// Output pixels computed together by the convolution's inner kernel.
private let blockPixels = 6
private let lanes = Vector.scalarCount

private let depthwiseLanes = DepthwiseVector.scalarCount

// The helpers are written for each vector type, never generic: a generic `addProduct` or
// `replacing(with:where:)` compiles to one scalar operation per lane even when inlined.

@inline(__always)
private func load(_ p: UnsafePointer<Float>) -> Vector {
  UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
}

@inline(__always)
private func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
  UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
}

/// max(v, 0) lane by lane (one `maxps`; the standard library's `pointwiseMax` is not inlined).
@inline(__always)
private func rectified(_ v: Vector) -> Vector {
  v.replacing(with: Vector(), where: v .< Vector())
}

/// `acc + a × b`, fused (one rounding) where the build has FMA.
@inline(__always)
private func madd(_ acc: inout Vector, _ a: Vector, _ b: Vector) {
  #if CENTERFACE_AVX2 || CENTERFACE_AVX512
    acc.addProduct(a, b)
  #else
    acc += a * b
  #endif
}

#if CENTERFACE_AVX512
  // 8-float vectors beside the 16-float ones: the last, narrow panels.
  typealias Half = SIMD8<Float>

  @inline(__always)
  private func loadHalf(_ p: UnsafePointer<Float>) -> Half {
    UnsafeRawPointer(p).loadUnaligned(as: Half.self)
  }

  @inline(__always)
  private func store(_ v: Half, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Half.self)
  }

  @inline(__always)
  private func rectified(_ v: Half) -> Half {
    v.replacing(with: Half(), where: v .< Half())
  }

  @inline(__always)
  private func madd(_ acc: inout Half, _ a: Half, _ b: Half) {
    acc.addProduct(a, b)
  }

  @inline(__always)
  private func loadD(_ p: UnsafePointer<Float>) -> DepthwiseVector { load(p) }
#else
  @inline(__always)
  private func loadD(_ p: UnsafePointer<Float>) -> DepthwiseVector { load(p) }
#endif

extension Kernels {
  /// The name of this build, for messages and benchmarks: "avx2" or "baseline".
  public static var name: String {
    #if CENTERFACE_AVX512
      "avx512"
    #elseif CENTERFACE_AVX2
      "avx2"
    #else
      "baseline"
    #endif
  }

  /// Output channels per weight panel (the last ones may be narrower).
  public static var panelWidth: Int {
    #if CENTERFACE_AVX512
      4 * lanes
    #else
      2 * lanes
    #endif
  }

  /// The width of the panel that starts with `remaining` output channels left (a multiple of 8):
  /// four vectors (AVX-512 only: its 32 registers hold 6 × 4 sums), two, one, or 8 channels; in
  /// the AVX-512 build a last 24 channels are one panel of a vector and a half.
  @inline(__always)
  static func panel(_ remaining: Int) -> Int {
    #if CENTERFACE_AVX512
      if remaining >= 4 * lanes { return 4 * lanes }
      if remaining == 24 { return 24 }
    #endif
    return remaining >= 2 * lanes ? 2 * lanes : (remaining >= lanes ? lanes : 8)
  }

  /// Weights for `convolve`, packed in panels of `panelWidth` output channels (a last panel of
  /// `panelWidth / 2` when the channel count asks for it): panel by panel, tap by tap, input
  /// channel by input channel, the panel's output channels side by side.
  ///
  /// - Parameters:
  ///   - weights: `outputChannels × taps × inputChannels` values, output channel by output
  ///     channel, tap by tap (row-major in the window); zeros for padding channels.
  ///   - outputChannels: A multiple of 8.
  public static func packConvolutionWeights(
    _ weights: [Float], outputChannels: Int, taps: Int, inputChannels: Int
  ) -> [Float] {
    precondition(outputChannels % 8 == 0 && weights.count == outputChannels * taps * inputChannels)
    var packed = [Float]()
    packed.reserveCapacity(weights.count)
    var n0 = 0
    while n0 < outputChannels {
      let width = panel(outputChannels - n0)
      for t in 0..<taps {
        for k in 0..<inputChannels {
          for j in 0..<width {
            packed.append(weights[((n0 + j) * taps + t) * inputChannels + k])
          }
        }
      }
      n0 += width
    }
    return packed
  }

  /// Runs grid rows `rows` of a convolution (see `ConvolutionJob`).
  ///
  /// - Complexity: O(rows × gridWidth × taps × inputChannels × outputChannels).
  public static func convolve(_ job: ConvolutionJob, rows: Range<Int>) {
    let taps = job.rowTaps ? job.kernelSize : job.kernelSize * job.kernelSize
    precondition(job.outputChannels % 8 == 0 && job.outputChannels <= job.outputPixelStride)
    precondition(rows.lowerBound >= 0 && rows.upperBound <= job.gridHeight)
    precondition(job.firstColumn >= 0 && job.firstColumn <= job.gridWidth)
    let pixels = groupBlocks * blockPixels
    // Window rows that cross the input's left or right edge are copied here, zeros outside.
    let edgeFloats = job.rowTaps ? taps * pixels * job.kernelSize * job.inputPixelStride : 1
    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: taps * pixels) { a in
      withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: pixels) { dst in
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: pixels) { res in
          withUnsafeTemporaryAllocation(of: Float.self, capacity: blockPixels * job.outputPixelStride) {
            scratch in
            scratch.initialize(repeating: 0)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: edgeFloats) { edge in
              convolveRows(
                job, rows: rows, taps: taps, a: a.baseAddress!, dst: dst.baseAddress!,
                res: res.baseAddress!, scratch: scratch.baseAddress!, edge: edge.baseAddress!)
            }
          }
        }
      }
    }
  }

  /// Blocks of `blockPixels` pixels computed panel by panel together, so that each panel's
  /// weights are read once for all of them (from L1 when they fit) rather than once per block.
  private static let groupBlocks = 8

  private static func convolveRows(
    _ job: ConvolutionJob, rows: Range<Int>, taps: Int, a: UnsafeMutablePointer<UnsafePointer<Float>>,
    dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, res: UnsafeMutablePointer<UnsafePointer<Float>>,
    scratch: UnsafeMutablePointer<Float>, edge: UnsafeMutablePointer<Float>
  ) {
    let k = job.rowTaps ? job.kernelSize * job.inputPixelStride : job.inputChannels
    let residual = job.residual != nil
    for gy in rows {
      var gx = job.firstColumn
      while gx < job.gridWidth {
        // Where each pixel of a group of blocks reads each tap and writes.
        let end = min(job.gridWidth, gx + groupBlocks * blockPixels)
        var blocks = 0
        var bx = gx
        while bx < end {
          let n = min(blockPixels, end - bx)
          setUpBlock(
            job, gx: bx, gy: gy, n: n, taps: taps, k: k, a: a + blocks * taps * blockPixels,
            dst: dst + blocks * blockPixels, res: res + blocks * blockPixels, scratch: scratch,
            edge: edge + blocks * taps * blockPixels * k)
          blocks += 1
          bx += n
        }
        var n0 = 0
        while n0 < job.outputChannels {
          let w = job.weights + n0 * taps * k
          let width = panel(job.outputChannels - n0)
          let bias = job.bias + n0
          for b in 0..<blocks {
            let (a, dst, res) = (a + b * taps * blockPixels, dst + b * blockPixels, res + b * blockPixels)
            #if CENTERFACE_AVX512
              if width == 4 * lanes {
                block4(
                  a: a, taps: taps, k: k, w: w, bias: bias, relu: job.relu, residual: residual, res: res,
                  dst: dst, n0: n0)
                continue
              }
              if width == 24 {
                block24(
                  a: a, taps: taps, k: k, w: w, bias: bias, relu: job.relu, residual: residual, res: res,
                  dst: dst, n0: n0)
                continue
              }
            #endif
            if width == 2 * lanes {
              block2(
                a: a, taps: taps, k: k, w: w, bias: bias, relu: job.relu, residual: residual, res: res,
                dst: dst, n0: n0)
            } else if width == lanes {
              block1(
                a: a, taps: taps, k: k, w: w, bias: bias, relu: job.relu, residual: residual, res: res,
                dst: dst, n0: n0)
            } else {
              #if CENTERFACE_AVX512
                blockHalf(
                  a: a, taps: taps, k: k, w: w, bias: bias, relu: job.relu, residual: residual, res: res,
                  dst: dst, n0: n0)
              #else
                preconditionFailure("panels narrower than a vector exist only in the AVX-512 build")
              #endif
            }
          }
          n0 += width
        }
        gx = end
      }
    }
  }

  /// Where each of a block's pixels (`n` of them from grid column `gx`) reads each tap and
  /// writes; a pixel past the row's end repeats the last one and writes to scratch.
  @inline(__always)
  private static func setUpBlock(
    _ job: ConvolutionJob, gx: Int, gy: Int, n: Int, taps: Int, k: Int,
    a: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    res: UnsafeMutablePointer<UnsafePointer<Float>>, scratch: UnsafeMutablePointer<Float>,
    edge: UnsafeMutablePointer<Float>
  ) {
    let size = job.kernelSize
    if size == 1 && !job.rowTaps {
      // 1×1 (most of the network's convolutions): one tap, addresses with no overflow checks.
      let y = gy &* job.stride &- job.padding
      let rowInside = y >= 0 && y < job.inputHeight
      let ox = (gx &- job.outputColumnBase) &* job.outputStep &+ job.outputOffsetX
      let oy = (gy &- job.outputRowBase) &* job.outputStep &+ job.outputOffsetY
      let first = oy &* job.outputWidth &+ ox
      for i in 0..<blockPixels {
        let x = (gx &+ min(i, n &- 1)) &* job.stride &- job.padding
        a[i] =
          rowInside && x >= 0 && x < job.inputWidth
          ? job.input + (y &* job.inputWidth &+ x) &* job.inputPixelStride : job.zeros
        if i < n {
          let pixel = first &+ i &* job.outputStep
          dst[i] = job.output + pixel &* job.outputPixelStride
          if let r = job.residual {
            res[i] = r + pixel &* job.residualPixelStride
          } else {
            res[i] = UnsafePointer(scratch)
          }
        } else {
          dst[i] = scratch + i &* job.outputPixelStride
          res[i] = UnsafePointer(scratch)
        }
      }
      return
    }
    for i in 0..<blockPixels {
      let x = (gx + min(i, n - 1)) * job.stride - job.padding
      let y = gy * job.stride - job.padding
      if job.rowTaps {
        // One tap per window row: its `size` pixels side by side, read in place when they are
        // all inside the input.
        let ps = job.inputPixelStride
        for ky in 0..<size {
          let iy = y + ky
          let slot = ky * blockPixels + i
          if iy < 0 || iy >= job.inputHeight {
            a[slot] = job.zeros
          } else if x >= 0 && x + size <= job.inputWidth {
            a[slot] = job.input + (iy * job.inputWidth + x) * ps
          } else {
            let e = edge + slot * k
            for kx in 0..<size {
              let ix = x + kx
              if ix >= 0 && ix < job.inputWidth {
                (e + kx * ps).update(from: job.input + (iy * job.inputWidth + ix) * ps, count: ps)
              } else {
                (e + kx * ps).initialize(repeating: 0, count: ps)
              }
            }
            a[slot] = UnsafePointer(e)
          }
        }
      } else {
        for ky in 0..<size {
          let iy = y + ky
          for kx in 0..<size {
            let ix = x + kx
            let inside = iy >= 0 && iy < job.inputHeight && ix >= 0 && ix < job.inputWidth
            a[(ky * size + kx) * blockPixels + i] =
              inside ? job.input + (iy * job.inputWidth + ix) * job.inputPixelStride : job.zeros
          }
        }
      }
      if i < n {
        let ox = (gx + i - job.outputColumnBase) * job.outputStep + job.outputOffsetX
        let oy = (gy - job.outputRowBase) * job.outputStep + job.outputOffsetY
        let pixel = oy * job.outputWidth + ox
        dst[i] = job.output + pixel * job.outputPixelStride
        res[i] = UnsafePointer(
          job.residual.map { $0 + pixel * job.residualPixelStride } ?? UnsafePointer(scratch))
      } else {
        dst[i] = scratch + i * job.outputPixelStride
        res[i] = UnsafePointer(scratch)
      }
    }
  }

  #if CENTERFACE_AVX512
    /// Six pixels × four vectors of output channels (24 of the 32 registers hold sums).
    @inline(__always)
    private static func block4(
      a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
      bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
      res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
      n0: Int
    ) {
      let b0: Vector = load(bias)
      let b1: Vector = load(bias + lanes)
      let b2: Vector = load(bias + 2 * lanes)
      let b3: Vector = load(bias + 3 * lanes)
      var c00 = b0
      var c01 = b1
      var c02 = b2
      var c03 = b3
      var c10 = b0
      var c11 = b1
      var c12 = b2
      var c13 = b3
      var c20 = b0
      var c21 = b1
      var c22 = b2
      var c23 = b3
      var c30 = b0
      var c31 = b1
      var c32 = b2
      var c33 = b3
      var c40 = b0
      var c41 = b1
      var c42 = b2
      var c43 = b3
      var c50 = b0
      var c51 = b1
      var c52 = b2
      var c53 = b3
      var wp = w
      for t in 0..<taps {
        let p = a + t * blockPixels
        let a0 = p[0]
        let a1 = p[1]
        let a2 = p[2]
        let a3 = p[3]
        let a4 = p[4]
        let a5 = p[5]
        for kk in 0..<k {
          let w0: Vector = load(wp)
          let w1: Vector = load(wp + lanes)
          let w2: Vector = load(wp + 2 * lanes)
          let w3: Vector = load(wp + 3 * lanes)
          wp += 4 * lanes
          var s = Vector(repeating: a0[kk])
          madd(&c00, s, w0)
          madd(&c01, s, w1)
          madd(&c02, s, w2)
          madd(&c03, s, w3)
          s = Vector(repeating: a1[kk])
          madd(&c10, s, w0)
          madd(&c11, s, w1)
          madd(&c12, s, w2)
          madd(&c13, s, w3)
          s = Vector(repeating: a2[kk])
          madd(&c20, s, w0)
          madd(&c21, s, w1)
          madd(&c22, s, w2)
          madd(&c23, s, w3)
          s = Vector(repeating: a3[kk])
          madd(&c30, s, w0)
          madd(&c31, s, w1)
          madd(&c32, s, w2)
          madd(&c33, s, w3)
          s = Vector(repeating: a4[kk])
          madd(&c40, s, w0)
          madd(&c41, s, w1)
          madd(&c42, s, w2)
          madd(&c43, s, w3)
          s = Vector(repeating: a5[kk])
          madd(&c50, s, w0)
          madd(&c51, s, w1)
          madd(&c52, s, w2)
          madd(&c53, s, w3)
        }
      }
      finish1(c00, 0, relu, residual, res, dst, n0)
      finish1(c01, 0, relu, residual, res, dst, n0 + lanes)
      finish1(c02, 0, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c03, 0, relu, residual, res, dst, n0 + 3 * lanes)
      finish1(c10, 1, relu, residual, res, dst, n0)
      finish1(c11, 1, relu, residual, res, dst, n0 + lanes)
      finish1(c12, 1, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c13, 1, relu, residual, res, dst, n0 + 3 * lanes)
      finish1(c20, 2, relu, residual, res, dst, n0)
      finish1(c21, 2, relu, residual, res, dst, n0 + lanes)
      finish1(c22, 2, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c23, 2, relu, residual, res, dst, n0 + 3 * lanes)
      finish1(c30, 3, relu, residual, res, dst, n0)
      finish1(c31, 3, relu, residual, res, dst, n0 + lanes)
      finish1(c32, 3, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c33, 3, relu, residual, res, dst, n0 + 3 * lanes)
      finish1(c40, 4, relu, residual, res, dst, n0)
      finish1(c41, 4, relu, residual, res, dst, n0 + lanes)
      finish1(c42, 4, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c43, 4, relu, residual, res, dst, n0 + 3 * lanes)
      finish1(c50, 5, relu, residual, res, dst, n0)
      finish1(c51, 5, relu, residual, res, dst, n0 + lanes)
      finish1(c52, 5, relu, residual, res, dst, n0 + 2 * lanes)
      finish1(c53, 5, relu, residual, res, dst, n0 + 3 * lanes)
    }
  #endif

  #if CENTERFACE_AVX512
    /// Six pixels × 24 output channels (a 16-float and an 8-float vector): 12 sums in flight
    /// where a panel of 16 and one of 8 would have 6 each.
    @inline(__always)
    private static func block24(
      a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
      bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
      res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
      n0: Int
    ) {
      let b0: Vector = load(bias)
      let b1: Half = loadHalf(bias + lanes)
      var c00 = b0
      var c01 = b1
      var c10 = b0
      var c11 = b1
      var c20 = b0
      var c21 = b1
      var c30 = b0
      var c31 = b1
      var c40 = b0
      var c41 = b1
      var c50 = b0
      var c51 = b1
      var wp = w
      for t in 0..<taps {
        let p = a + t * blockPixels
        let a0 = p[0]
        let a1 = p[1]
        let a2 = p[2]
        let a3 = p[3]
        let a4 = p[4]
        let a5 = p[5]
        for kk in 0..<k {
          let w0: Vector = load(wp)
          let w1: Half = loadHalf(wp + lanes)
          wp += 24
          madd(&c00, Vector(repeating: a0[kk]), w0)
          madd(&c01, Half(repeating: a0[kk]), w1)
          madd(&c10, Vector(repeating: a1[kk]), w0)
          madd(&c11, Half(repeating: a1[kk]), w1)
          madd(&c20, Vector(repeating: a2[kk]), w0)
          madd(&c21, Half(repeating: a2[kk]), w1)
          madd(&c30, Vector(repeating: a3[kk]), w0)
          madd(&c31, Half(repeating: a3[kk]), w1)
          madd(&c40, Vector(repeating: a4[kk]), w0)
          madd(&c41, Half(repeating: a4[kk]), w1)
          madd(&c50, Vector(repeating: a5[kk]), w0)
          madd(&c51, Half(repeating: a5[kk]), w1)
        }
      }
      finish1(c00, 0, relu, residual, res, dst, n0)
      finishHalf(c01, 0, relu, residual, res, dst, n0 + lanes)
      finish1(c10, 1, relu, residual, res, dst, n0)
      finishHalf(c11, 1, relu, residual, res, dst, n0 + lanes)
      finish1(c20, 2, relu, residual, res, dst, n0)
      finishHalf(c21, 2, relu, residual, res, dst, n0 + lanes)
      finish1(c30, 3, relu, residual, res, dst, n0)
      finishHalf(c31, 3, relu, residual, res, dst, n0 + lanes)
      finish1(c40, 4, relu, residual, res, dst, n0)
      finishHalf(c41, 4, relu, residual, res, dst, n0 + lanes)
      finish1(c50, 5, relu, residual, res, dst, n0)
      finishHalf(c51, 5, relu, residual, res, dst, n0 + lanes)
    }
  #endif

  /// Six pixels × two vectors of output channels.
  @inline(__always)
  private static func block2(
    a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
    res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    n0: Int
  ) {
    let b0: Vector = load(bias)
    let b1: Vector = load(bias + lanes)
    var c00 = b0
    var c01 = b1
    var c10 = b0
    var c11 = b1
    var c20 = b0
    var c21 = b1
    var c30 = b0
    var c31 = b1
    var c40 = b0
    var c41 = b1
    var c50 = b0
    var c51 = b1
    var wp = w
    for t in 0..<taps {
      let p = a + t * blockPixels
      let a0 = p[0]
      let a1 = p[1]
      let a2 = p[2]
      let a3 = p[3]
      let a4 = p[4]
      let a5 = p[5]
      for kk in 0..<k {
        let w0: Vector = load(wp)
        let w1: Vector = load(wp + lanes)
        wp += 2 * lanes
        var s = Vector(repeating: a0[kk])
        madd(&c00, s, w0)
        madd(&c01, s, w1)
        s = Vector(repeating: a1[kk])
        madd(&c10, s, w0)
        madd(&c11, s, w1)
        s = Vector(repeating: a2[kk])
        madd(&c20, s, w0)
        madd(&c21, s, w1)
        s = Vector(repeating: a3[kk])
        madd(&c30, s, w0)
        madd(&c31, s, w1)
        s = Vector(repeating: a4[kk])
        madd(&c40, s, w0)
        madd(&c41, s, w1)
        s = Vector(repeating: a5[kk])
        madd(&c50, s, w0)
        madd(&c51, s, w1)
      }
    }
    finish1(c00, 0, relu, residual, res, dst, n0)
    finish1(c01, 0, relu, residual, res, dst, n0 + lanes)
    finish1(c10, 1, relu, residual, res, dst, n0)
    finish1(c11, 1, relu, residual, res, dst, n0 + lanes)
    finish1(c20, 2, relu, residual, res, dst, n0)
    finish1(c21, 2, relu, residual, res, dst, n0 + lanes)
    finish1(c30, 3, relu, residual, res, dst, n0)
    finish1(c31, 3, relu, residual, res, dst, n0 + lanes)
    finish1(c40, 4, relu, residual, res, dst, n0)
    finish1(c41, 4, relu, residual, res, dst, n0 + lanes)
    finish1(c50, 5, relu, residual, res, dst, n0)
    finish1(c51, 5, relu, residual, res, dst, n0 + lanes)
  }

  /// Six pixels × one vector of output channels (the last, narrow panel).
  @inline(__always)
  private static func block1(
    a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
    res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    n0: Int
  ) {
    let b0 = load(bias)
    var c0 = b0
    var c1 = b0
    var c2 = b0
    var c3 = b0
    var c4 = b0
    var c5 = b0
    var wp = w
    for t in 0..<taps {
      let p = a + t * blockPixels
      let a0 = p[0]
      let a1 = p[1]
      let a2 = p[2]
      let a3 = p[3]
      let a4 = p[4]
      let a5 = p[5]
      for kk in 0..<k {
        let w0 = load(wp)
        wp += lanes
        madd(&c0, Vector(repeating: a0[kk]), w0)
        madd(&c1, Vector(repeating: a1[kk]), w0)
        madd(&c2, Vector(repeating: a2[kk]), w0)
        madd(&c3, Vector(repeating: a3[kk]), w0)
        madd(&c4, Vector(repeating: a4[kk]), w0)
        madd(&c5, Vector(repeating: a5[kk]), w0)
      }
    }
    finish1(c0, 0, relu, residual, res, dst, n0)
    finish1(c1, 1, relu, residual, res, dst, n0)
    finish1(c2, 2, relu, residual, res, dst, n0)
    finish1(c3, 3, relu, residual, res, dst, n0)
    finish1(c4, 4, relu, residual, res, dst, n0)
    finish1(c5, 5, relu, residual, res, dst, n0)
  }

  /// ReLU, residual and store of one vector of sums. One vector a call: a helper taking two
  /// 16-float vectors was compiled as a real call that passed them in 4-float pieces (8% of the
  /// AVX-512 build's time at 24 MP).
  @inline(__always)
  private static func finish1(
    _ v: Vector, _ i: Int, _ relu: Bool, _ residual: Bool,
    _ res: UnsafeMutablePointer<UnsafePointer<Float>>,
    _ dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, _ n0: Int
  ) {
    var v = v
    if relu { v = rectified(v) }
    if residual { v += load(res[i] + n0) }
    store(v, dst[i] + n0)
  }

  #if CENTERFACE_AVX512
    /// Six pixels × 8 output channels: the last panel when 8 channels are left over.
    @inline(__always)
    private static func blockHalf(
      a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
      bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
      res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
      n0: Int
    ) {
      let b0 = loadHalf(bias)
      var c0 = b0
      var c1 = b0
      var c2 = b0
      var c3 = b0
      var c4 = b0
      var c5 = b0
      var wp = w
      for t in 0..<taps {
        let p = a + t * blockPixels
        let a0 = p[0]
        let a1 = p[1]
        let a2 = p[2]
        let a3 = p[3]
        let a4 = p[4]
        let a5 = p[5]
        for kk in 0..<k {
          let w0 = loadHalf(wp)
          wp += 8
          madd(&c0, Half(repeating: a0[kk]), w0)
          madd(&c1, Half(repeating: a1[kk]), w0)
          madd(&c2, Half(repeating: a2[kk]), w0)
          madd(&c3, Half(repeating: a3[kk]), w0)
          madd(&c4, Half(repeating: a4[kk]), w0)
          madd(&c5, Half(repeating: a5[kk]), w0)
        }
      }
      finishHalf(c0, 0, relu, residual, res, dst, n0)
      finishHalf(c1, 1, relu, residual, res, dst, n0)
      finishHalf(c2, 2, relu, residual, res, dst, n0)
      finishHalf(c3, 3, relu, residual, res, dst, n0)
      finishHalf(c4, 4, relu, residual, res, dst, n0)
      finishHalf(c5, 5, relu, residual, res, dst, n0)
    }

    @inline(__always)
    private static func finishHalf(
      _ v: Half, _ i: Int, _ relu: Bool, _ residual: Bool,
      _ res: UnsafeMutablePointer<UnsafePointer<Float>>,
      _ dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, _ n0: Int
    ) {
      var v = v
      if relu { v = rectified(v) }
      if residual { v += loadHalf(res[i] + n0) }
      store(v, dst[i] + n0)
    }
  #endif

  /// Runs output rows `rows` of a 3×3 depthwise convolution (see `DepthwiseJob`).
  ///
  /// Pixels whose whole window lies inside the input go four at a time with the window's nine
  /// weights held in registers; the others (the map's border) go one at a time, skipping the
  /// taps outside. Both sum the taps in the same order, so a pixel's value does not depend on
  /// which path computed it.
  ///
  /// - Complexity: O(rows × outputWidth × pixelStride).
  public static func depthwise(_ job: DepthwiseJob, rows: Range<Int>) {
    precondition(job.pixelStride % depthwiseLanes == 0 && (job.stride == 1 || job.stride == 2))
    precondition(rows.lowerBound >= 0 && rows.upperBound <= job.outputHeight)
    precondition(job.outputWidth == (job.inputWidth - 1) / job.stride + 1)
    precondition(job.outputHeight == (job.inputHeight - 1) / job.stride + 1)
    let c = job.pixelStride
    let (inW, inH, s, outW) = (job.inputWidth, job.inputHeight, job.stride, job.outputWidth)
    // Output columns whose window is inside the input: ox × s - 1 ≥ 0 and ox × s + 1 ≤ inW - 1.
    let xStart = min(1, outW)
    let xEnd = max(xStart, min(outW, (inW - 2) / s + 1))
    for oy in rows {
      let iy0 = oy * s - 1
      let out = job.output + oy * outW * c
      if iy0 >= 0 && iy0 + 2 < inH {
        let r0 = job.input + iy0 * inW * c
        let r1 = r0 + inW * c
        for ox in 0..<xStart { depthwiseBorderPixel(job, ox: ox, oy: oy) }
        depthwiseInterior(job, r0, r1, r1 + inW * c, out: out, from: xStart, to: xEnd)
        for ox in xEnd..<outW { depthwiseBorderPixel(job, ox: ox, oy: oy) }
      } else {
        for ox in 0..<outW { depthwiseBorderPixel(job, ox: ox, oy: oy) }
      }
    }
  }

  /// One output row of a 3×3 depthwise convolution from three input rows that each have one
  /// pixel of zeros before and after them (so every window is inside): `above`, `middle` and
  /// `below` point at each row's first real pixel. `job.input`, `inputHeight` and `outputHeight`
  /// are not read; `inputWidth` is the rows' real width.
  ///
  /// - Complexity: O(outputWidth × pixelStride).
  public static func depthwiseRow(
    _ job: DepthwiseJob, above: UnsafePointer<Float>, middle: UnsafePointer<Float>,
    below: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>
  ) {
    precondition(job.pixelStride % depthwiseLanes == 0 && (job.stride == 1 || job.stride == 2))
    precondition(job.outputWidth == (job.inputWidth - 1) / job.stride + 1)
    depthwiseInterior(job, above, middle, below, out: output, from: 0, to: job.outputWidth)
  }

  /// Output pixels `from..<to` of one row, all of whose windows are inside the input.
  @inline(__always)
  private static func depthwiseInterior(
    _ job: DepthwiseJob, _ above: UnsafePointer<Float>, _ middle: UnsafePointer<Float>,
    _ below: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, from: Int, to: Int
  ) {
    let c = job.pixelStride
    let s = job.stride
    let chunk = 8  // output pixels per sweep over the channels, so their inputs stay in L1
    var x0 = from
    while x0 < to {
      let x1 = min(to, x0 &+ chunk)
      var ch = 0
      while ch < c {
        let w = job.weights + ch
        let w0 = loadD(w)
        let w1 = loadD(w + c)
        let w2 = loadD(w + 2 &* c)
        let w3 = loadD(w + 3 &* c)
        let w4 = loadD(w + 4 &* c)
        let w5 = loadD(w + 5 &* c)
        let w6 = loadD(w + 6 &* c)
        let w7 = loadD(w + 7 &* c)
        let w8 = loadD(w + 8 &* c)
        let bias = loadD(job.bias + ch)
        var ox = x0
        while ox < x1 {
          // Window top-left for output ox: input column ox × s - 1.
          let column: Int = (ox &* s &- 1) &* c &+ ch
          let r0 = above + column
          let r1 = middle + column
          let r2 = below + column
          if x1 &- ox >= 4 {
            var a0 = bias
            var a1 = bias
            var a2 = bias
            var a3 = bias
            if s == 1 {
              row4s1(r0, c, w0, w1, w2, &a0, &a1, &a2, &a3)
              row4s1(r1, c, w3, w4, w5, &a0, &a1, &a2, &a3)
              row4s1(r2, c, w6, w7, w8, &a0, &a1, &a2, &a3)
            } else {
              row4s2(r0, c, w0, w1, w2, &a0, &a1, &a2, &a3)
              row4s2(r1, c, w3, w4, w5, &a0, &a1, &a2, &a3)
              row4s2(r2, c, w6, w7, w8, &a0, &a1, &a2, &a3)
            }
            if job.relu {
              a0 = rectified(a0)
              a1 = rectified(a1)
              a2 = rectified(a2)
              a3 = rectified(a3)
            }
            let o = out + (ox &* c &+ ch)
            store(a0, o)
            store(a1, o + c)
            store(a2, o + 2 &* c)
            store(a3, o + 3 &* c)
            ox &+= 4
          } else {
            var a = bias
            madd(&a, loadD(r0), w0)
            madd(&a, loadD(r0 + c), w1)
            madd(&a, loadD(r0 + 2 &* c), w2)
            madd(&a, loadD(r1), w3)
            madd(&a, loadD(r1 + c), w4)
            madd(&a, loadD(r1 + 2 &* c), w5)
            madd(&a, loadD(r2), w6)
            madd(&a, loadD(r2 + c), w7)
            madd(&a, loadD(r2 + 2 &* c), w8)
            if job.relu { a = rectified(a) }
            store(a, out + (ox &* c &+ ch))
            ox &+= 1
          }
        }
        ch &+= depthwiseLanes
      }
      x0 = x1
    }
  }

  /// One window row for four stride-1 outputs: six inputs.
  @inline(__always)
  private static func row4s1(
    _ r: UnsafePointer<Float>, _ c: Int, _ w0: DepthwiseVector, _ w1: DepthwiseVector, _ w2: DepthwiseVector,
    _ a0: inout DepthwiseVector, _ a1: inout DepthwiseVector, _ a2: inout DepthwiseVector,
    _ a3: inout DepthwiseVector
  ) {
    let p0 = loadD(r)
    let p1 = loadD(r + c)
    let p2 = loadD(r + 2 &* c)
    let p3 = loadD(r + 3 &* c)
    let p4 = loadD(r + 4 &* c)
    let p5 = loadD(r + 5 &* c)
    madd(&a0, p0, w0)
    madd(&a0, p1, w1)
    madd(&a0, p2, w2)
    madd(&a1, p1, w0)
    madd(&a1, p2, w1)
    madd(&a1, p3, w2)
    madd(&a2, p2, w0)
    madd(&a2, p3, w1)
    madd(&a2, p4, w2)
    madd(&a3, p3, w0)
    madd(&a3, p4, w1)
    madd(&a3, p5, w2)
  }

  /// One window row for four stride-2 outputs: nine inputs.
  @inline(__always)
  private static func row4s2(
    _ r: UnsafePointer<Float>, _ c: Int, _ w0: DepthwiseVector, _ w1: DepthwiseVector, _ w2: DepthwiseVector,
    _ a0: inout DepthwiseVector, _ a1: inout DepthwiseVector, _ a2: inout DepthwiseVector,
    _ a3: inout DepthwiseVector
  ) {
    var p0 = loadD(r)
    var p1 = loadD(r + c)
    var p2 = loadD(r + 2 &* c)
    madd(&a0, p0, w0)
    madd(&a0, p1, w1)
    madd(&a0, p2, w2)
    p0 = loadD(r + 3 &* c)
    p1 = loadD(r + 4 &* c)
    madd(&a1, p2, w0)
    madd(&a1, p0, w1)
    madd(&a1, p1, w2)
    p0 = loadD(r + 5 &* c)
    p2 = loadD(r + 6 &* c)
    madd(&a2, p1, w0)
    madd(&a2, p0, w1)
    madd(&a2, p2, w2)
    p0 = loadD(r + 7 &* c)
    p1 = loadD(r + 8 &* c)
    madd(&a3, p2, w0)
    madd(&a3, p0, w1)
    madd(&a3, p1, w2)
  }

  /// One output pixel, all channels, skipping the taps outside the input.
  private static func depthwiseBorderPixel(_ job: DepthwiseJob, ox: Int, oy: Int) {
    let c = job.pixelStride
    let (inW, inH, s) = (job.inputWidth, job.inputHeight, job.stride)
    let iy0 = oy * s - 1
    let ix0 = ox * s - 1
    let out = job.output + (oy * job.outputWidth + ox) * c
    var ch = 0
    while ch < c {
      var acc = loadD(job.bias + ch)
      for ky in 0..<3 {
        let iy = iy0 + ky
        if iy < 0 || iy >= inH { continue }
        let row = job.input + iy * inW * c + ch
        for kx in 0..<3 {
          let ix = ix0 + kx
          if ix < 0 || ix >= inW { continue }
          madd(&acc, loadD(row + ix * c), loadD(job.weights + (ky * 3 + kx) * c + ch))
        }
      }
      if job.relu { acc = rectified(acc) }
      store(acc, out + ch)
      ch += depthwiseLanes
    }
  }
}
