import PhotoCore

/// Multiply-adds of a run, counted from the plan and the runner's loops without running them:
/// for docs/centerface.md's "The ceiling" and for `WorkCountTests`. Nothing here is used by a
/// detection.
extension NetworkPlan {
  /// The multiply-adds of one step of a run.
  struct StepWork: Equatable {
    /// The step's name, for tables ("conv3x3", "block", "transposed", "heads", ...).
    var kind: String
    /// The graph's multiply-adds: its real channel counts over the step's output pixels (the sum
    /// over steps is `macsPerInputPixel` × the input's pixels).
    var model: Int
    /// The multiply-adds the kernels issue (vector lanes): output channels padded to the pixel
    /// stride; a 3×3 window row over 3 × the input's pixel stride (zeros for the padding
    /// channels); pixels in blocks of 6 per row (the last block of a row computes 6 and keeps
    /// fewer); a block's expanded rows and columns recomputed at its threads' bands and strips'
    /// edges.
    var issued: Int
    /// Of `model`, the depthwise convolutions' share (a block's middle step).
    var depthwise = 0
  }

  /// The multiply-adds of each step of one run on a `width` × `height` input (multiples of
  /// `alignment`), as `run` executes them with `workers` threads (a block's bands depend on
  /// it) and strips of `stripBytes`.
  func work(width: Int, height: Int, workers: Int = Parallel.workerCount, stripBytes: Int = Self.stripBytes)
    -> [StepWork]
  {
    precondition(width % Self.alignment == 0 && height % Self.alignment == 0 && width > 0 && height > 0)
    func size(_ v: Int) -> (w: Int, h: Int) {
      let e = values[v].exponent
      return e >= 0 ? (width << e, height << e) : (width >> -e, height >> -e)
    }
    /// Pixels a convolution row of `n` grid pixels computes: blocks of 6.
    func blocked(_ n: Int) -> Int { (n + 5) / 6 * 6 }
    /// Issued multiply-adds per computed pixel of a convolution writing `outStride` channels.
    func perPixel(_ c: Convolution, outStride: Int) -> Int {
      c.rowTaps
        ? outStride * c.kernelSize * c.kernelSize * values[c.input].pixelStride
        : outStride * c.kernelSize * c.kernelSize * c.inputChannels
    }
    var out: [StepWork] = []
    for step in steps {
      switch step {
      case .convolution(let c):
        let (w, h) = size(c.output)
        let v = values[c.output]
        let k2 = c.kernelSize * c.kernelSize
        out.append(
          StepWork(
            kind: c.output == heads ? "heads" : "conv\(c.kernelSize)x\(c.kernelSize)",
            model: v.channels * c.inputChannels * k2 * w * h,
            issued: perPixel(c, outStride: v.pixelStride) * blocked(w) * h))
      case .depthwise(let d):
        let (w, h) = size(d.output)
        let v = values[d.output]
        out.append(
          StepWork(
            kind: "depthwise", model: 9 * v.channels * w * h, issued: 9 * v.pixelStride * w * h,
            depthwise: 9 * v.channels * w * h))
      case .transposed(let t):
        let (w, h) = size(t.input)
        let v = values[t.output]
        out.append(
          StepWork(
            kind: "transposed", model: 4 * v.channels * t.inputChannels * w * h,
            issued: 4 * v.pixelStride * t.inputChannels * blocked(w) * h))
      case .block(let b):
        out.append(blockWork(b, size: size, workers: workers, stripBytes: stripBytes, perPixel: perPixel))
      case .add, .relu, .sigmoid, .affine:
        break
      }
    }
    return out
  }

  /// A block's multiply-adds, following `executeBlock`'s loops: chunks of output rows, strips
  /// of columns, a ring of three expanded rows per strip.
  private func blockWork(
    _ b: Block, size: (Int) -> (w: Int, h: Int), workers: Int, stripBytes: Int,
    perPixel: (Convolution, Int) -> Int
  ) -> StepWork {
    let d = b.depthwise
    let (outW, outH) = size(b.project.output)
    let (ew, eh) = size(d.input)
    let inner = values[d.input]
    let dc = inner.pixelStride
    let s = d.stride
    let project = values[b.project.output]
    let depthwise = 9 * values[d.output].channels * outW * outH
    var model = depthwise
    model += project.channels * b.project.inputChannels * outW * outH
    if let e = b.expand { model += inner.channels * e.inputChannels * e.kernelSize * e.kernelSize * ew * eh }

    let stripWidth = Self.stripWidth(outputWidth: outW, channels: dc, stride: s, bytes: stripBytes)
    let chunks = min(workers * 2, max(1, outH / 4))
    // Expanded rows computed, per strip, in all chunks (each chunk's ring starts empty).
    var expandedRows = 0
    for ci in 0..<chunks {
      var held = [-1, -1, -1]
      for oy in (outH * ci / chunks)..<(outH * (ci + 1) / chunks) {
        for ky in 0..<3 {
          let iy = oy * s - 1 + ky
          guard iy >= 0 && iy < eh, held[iy % 3] != iy else { continue }
          held[iy % 3] = iy
          expandedRows += 1
        }
      }
    }
    var expandPixels = 0  // per expanded row, over the strips
    var projectPixels = 0  // per output row, over the strips
    var x0 = 0
    while x0 < outW {
      let x1 = min(outW, x0 + stripWidth)
      let left = x0 * s - 1
      let c0 = max(0, left)
      let c1 = min(ew, left + (x1 - x0 - 1) * s + 3)
      expandPixels += (c1 - c0 + 5) / 6 * 6
      projectPixels += (x1 - x0 + 5) / 6 * 6
      x0 = x1
    }
    var issued = 9 * dc * outW * outH
    issued += perPixel(b.project, project.pixelStride) * projectPixels * outH
    if let e = b.expand { issued += perPixel(e, dc) * expandPixels * expandedRows }
    return StepWork(kind: "block", model: model, issued: issued, depthwise: depthwise)
  }
}
