// CenterFace's convolution kernels. This one file is compiled twice: here for baseline x86-64
// (`BaselineKernels`: 4-float SSE vectors, separate multiply and add), and in
// CenterFaceKernelsAVX2, through a symbolic link, with `-mavx2 -mfma` and CENTERFACE_AVX2 defined
// (`AVX2Kernels`: 8-float vectors, fused multiply-add). CenterFace picks one at run time from
// CPUID. Both give the same sums in the same order; they differ only in rounding (a fused
// multiply-add rounds once where a multiply then an add rounds twice).

#if CENTERFACE_AVX2
  import CenterFaceKernels

  /// The kernels for processors with AVX2 and FMA: 8-float vectors, fused multiply-add.
  public enum AVX2Kernels {}
  typealias Kernels = AVX2Kernels
  typealias Vector = SIMD8<Float>
#else
  /// The kernels for baseline x86-64 (and any other processor): 4-float vectors, a multiply
  /// then an add.
  public enum BaselineKernels {}
  typealias Kernels = BaselineKernels
  typealias Vector = SIMD4<Float>
#endif

/// Output pixels computed together by the convolution's inner kernel.
private let blockPixels = 6
private let lanes = Vector.scalarCount

@inline(__always)
private func load(_ p: UnsafePointer<Float>) -> Vector {
  UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
}

@inline(__always)
private func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) {
  UnsafeMutableRawPointer(p).storeBytes(of: v, as: Vector.self)
}

/// `acc + a × b`, fused (one rounding) where the build has FMA.
@inline(__always)
private func madd(_ acc: inout Vector, _ a: Vector, _ b: Vector) {
  #if CENTERFACE_AVX2
    acc.addProduct(a, b)
  #else
    acc += a * b
  #endif
}

extension Kernels {
  /// The name of this build, for messages and benchmarks: "avx2" or "baseline".
  public static var name: String {
    #if CENTERFACE_AVX2
      "avx2"
    #else
      "baseline"
    #endif
  }

  /// Output channels per weight panel (the last panel may be half as wide).
  public static var panelWidth: Int { 2 * lanes }

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
      let width = outputChannels - n0 >= 2 * lanes ? 2 * lanes : lanes
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
    let taps = job.kernelSize * job.kernelSize
    precondition(job.outputChannels % 8 == 0 && job.outputChannels <= job.outputPixelStride)
    precondition(rows.lowerBound >= 0 && rows.upperBound <= job.gridHeight)
    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: taps * blockPixels) { a in
      withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>.self, capacity: blockPixels) {
        dst in
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: blockPixels) { res in
          withUnsafeTemporaryAllocation(of: Float.self, capacity: blockPixels * job.outputPixelStride) {
            scratch in
            scratch.initialize(repeating: 0)
            convolveRows(
              job, rows: rows, taps: taps, a: a.baseAddress!, dst: dst.baseAddress!,
              res: res.baseAddress!, scratch: scratch.baseAddress!)
          }
        }
      }
    }
  }

  private static func convolveRows(
    _ job: ConvolutionJob, rows: Range<Int>, taps: Int, a: UnsafeMutablePointer<UnsafePointer<Float>>,
    dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, res: UnsafeMutablePointer<UnsafePointer<Float>>,
    scratch: UnsafeMutablePointer<Float>
  ) {
    let size = job.kernelSize
    let k = job.inputChannels
    let residual = job.residual
    for gy in rows {
      var gx = 0
      while gx < job.gridWidth {
        let n = min(blockPixels, job.gridWidth - gx)
        // Where each of the block's pixels reads each tap; a pixel past the row's end repeats
        // the last one and writes to scratch.
        for i in 0..<blockPixels {
          let x = (gx + min(i, n - 1)) * job.stride - job.padding
          let y = gy * job.stride - job.padding
          for ky in 0..<size {
            let iy = y + ky
            for kx in 0..<size {
              let ix = x + kx
              let inside = iy >= 0 && iy < job.inputHeight && ix >= 0 && ix < job.inputWidth
              a[(ky * size + kx) * blockPixels + i] =
                inside ? job.input + (iy * job.inputWidth + ix) * job.inputPixelStride : job.zeros
            }
          }
          if i < n {
            let ox = (gx + i) * job.outputStep + job.outputOffsetX
            let oy = gy * job.outputStep + job.outputOffsetY
            let pixel = oy * job.outputWidth + ox
            dst[i] = job.output + pixel * job.outputPixelStride
            res[i] = UnsafePointer(
              residual.map { $0 + pixel * job.residualPixelStride } ?? UnsafePointer(scratch))
          } else {
            dst[i] = scratch + i * job.outputPixelStride
            res[i] = UnsafePointer(scratch)
          }
        }
        var n0 = 0
        while n0 < job.outputChannels {
          let w = job.weights + n0 * taps * k
          if job.outputChannels - n0 >= 2 * lanes {
            block2(
              a: a, taps: taps, k: k, w: w, bias: job.bias + n0, relu: job.relu,
              residual: residual != nil, res: res, dst: dst, n0: n0)
            n0 += 2 * lanes
          } else {
            block1(
              a: a, taps: taps, k: k, w: w, bias: job.bias + n0, relu: job.relu,
              residual: residual != nil, res: res, dst: dst, n0: n0)
            n0 += lanes
          }
        }
        gx += n
      }
    }
  }

  /// Six pixels × two vectors of output channels.
  @inline(__always)
  private static func block2(
    a: UnsafeMutablePointer<UnsafePointer<Float>>, taps: Int, k: Int, w: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, relu: Bool, residual: Bool,
    res: UnsafeMutablePointer<UnsafePointer<Float>>, dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    n0: Int
  ) {
    let b0 = load(bias)
    let b1 = load(bias + lanes)
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
        let w0 = load(wp)
        let w1 = load(wp + lanes)
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
    finish(c00, c01, 0, relu, residual, res, dst, n0)
    finish(c10, c11, 1, relu, residual, res, dst, n0)
    finish(c20, c21, 2, relu, residual, res, dst, n0)
    finish(c30, c31, 3, relu, residual, res, dst, n0)
    finish(c40, c41, 4, relu, residual, res, dst, n0)
    finish(c50, c51, 5, relu, residual, res, dst, n0)
  }

  @inline(__always)
  private static func finish(
    _ v0: Vector, _ v1: Vector, _ i: Int, _ relu: Bool, _ residual: Bool,
    _ res: UnsafeMutablePointer<UnsafePointer<Float>>,
    _ dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    _ n0: Int
  ) {
    var v0 = v0
    var v1 = v1
    if relu {
      v0 = pointwiseMax(v0, Vector())
      v1 = pointwiseMax(v1, Vector())
    }
    if residual {
      v0 += load(res[i] + n0)
      v1 += load(res[i] + n0 + lanes)
    }
    store(v0, dst[i] + n0)
    store(v1, dst[i] + n0 + lanes)
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
    finish(c0, 0, relu, residual, res, dst, n0)
    finish(c1, 1, relu, residual, res, dst, n0)
    finish(c2, 2, relu, residual, res, dst, n0)
    finish(c3, 3, relu, residual, res, dst, n0)
    finish(c4, 4, relu, residual, res, dst, n0)
    finish(c5, 5, relu, residual, res, dst, n0)
  }

  @inline(__always)
  private static func finish(
    _ v: Vector, _ i: Int, _ relu: Bool, _ residual: Bool,
    _ res: UnsafeMutablePointer<UnsafePointer<Float>>,
    _ dst: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
    _ n0: Int
  ) {
    var v = v
    if relu { v = pointwiseMax(v, Vector()) }
    if residual { v += load(res[i] + n0) }
    store(v, dst[i] + n0)
  }

  /// Runs output rows `rows` of a 3×3 depthwise convolution (see `DepthwiseJob`).
  ///
  /// - Complexity: O(rows × outputWidth × pixelStride).
  public static func depthwise(_ job: DepthwiseJob, rows: Range<Int>) {
    precondition(job.pixelStride % 8 == 0)
    precondition(rows.lowerBound >= 0 && rows.upperBound <= job.outputHeight)
    let c = job.pixelStride
    let (inW, inH, s) = (job.inputWidth, job.inputHeight, job.stride)
    for oy in rows {
      let iy0 = oy * s - 1
      for ox in 0..<job.outputWidth {
        let ix0 = ox * s - 1
        let out = job.output + (oy * job.outputWidth + ox) * c
        var ch = 0
        while ch < c {
          var acc = load(job.bias + ch)
          for ky in 0..<3 {
            let iy = iy0 + ky
            if iy < 0 || iy >= inH { continue }
            let row = job.input + iy * inW * c + ch
            for kx in 0..<3 {
              let ix = ix0 + kx
              if ix < 0 || ix >= inW { continue }
              madd(&acc, load(row + ix * c), load(job.weights + (ky * 3 + kx) * c + ch))
            }
          }
          if job.relu { acc = pointwiseMax(acc, Vector()) }
          store(acc, out + ch)
          ch += lanes
        }
      }
    }
  }
}
