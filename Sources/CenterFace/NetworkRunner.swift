import CenterFaceKernels
import CenterFaceKernelsAVX2
import PhotoCore

/// Float buffers reused from tile to tile (a run's tensors, in one buffer) and from block to
/// block (their scratch); freed when the arena goes.
///
/// Every kernel writes every float of its output (padding channels included), so a buffer taken
/// from the arena is never cleared first.
final class BufferArena {
  private var free: [(pointer: UnsafeMutablePointer<Float>, capacity: Int)] = []
  private var all: [UnsafeMutablePointer<Float>] = []
  /// Floats allocated in all, for memory reports.
  private(set) var allocatedFloats = 0

  func take(_ count: Int) -> (pointer: UnsafeMutablePointer<Float>, capacity: Int) {
    // The smallest free buffer that is large enough, else a new one.
    var best: Int? = nil
    for (i, b) in free.enumerated() where b.capacity >= count {
      if best == nil || b.capacity < free[best!].capacity { best = i }
    }
    if let best { return free.remove(at: best) }
    // Nothing free is large enough: free buffers are then too small for this tile's sizes, so
    // let them go rather than keep them beside the new one.
    for b in free {
      b.pointer.deallocate()
      allocatedFloats -= b.capacity
      all.removeAll { $0 == b.pointer }
    }
    free.removeAll()
    let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
    all.append(p)
    allocatedFloats += count
    return (p, count)
  }

  func give(_ buffer: (pointer: UnsafeMutablePointer<Float>, capacity: Int)) {
    free.append(buffer)
  }

  deinit {
    for p in all { p.deallocate() }
  }
}

/// One tensor during a run: channels-last floats, `width × height` pixels.
struct Tensor {
  var pointer: UnsafeMutablePointer<Float>
  var capacity: Int
  var width: Int
  var height: Int
  var pixelStride: Int
}

/// The four output maps of one run, channels-last at a quarter of the input's size, each pixel
/// `pixelStride` floats: heatmap (after the sigmoid) 1 channel, scale 2, offset 2, landmarks 10.
/// When the heads are fused (`NetworkPlan.heads`), the four are views of one tensor of 16 floats
/// a pixel, starting at channels 0, 1, 3 and 5.
struct NetworkOutputs {
  var heatmap: Tensor
  var scale: Tensor
  var offset: Tensor
  var landmarks: Tensor
}

/// The network's input made on demand: `fill(out, y, columns)` writes those columns of input
/// row `y` at `out` (the first column's pixel), 4 floats a pixel (R, G, B 0–255 and a zero), on
/// the calling thread; it is called from several threads at once.
struct InputRows {
  var width: Int
  var height: Int
  var fill: (_ out: UnsafeMutablePointer<Float>, _ y: Int, _ columns: Range<Int>) -> Void

  /// Writes every row into `out` (`width × height × 4` floats), split by rows over all cores.
  func fill(into out: UnsafeMutablePointer<Float>) {
    let shared = UnsafeSendable(out)
    Parallel.forEachRowRange(height, minimumRows: 8) { range in
      for y in range { fill(shared.value + y * width * 4, y, 0..<width) }
    }
  }
}

/// The scratch floats a block's run takes: each of `chunks` pieces of its output rows (run on
/// their own thread) has a ring of three pieces of expanded rows a strip wide and one of zeros
/// (`slot` floats each), a row of the depthwise convolution, and for a streamed input the input
/// rows one expanded row reads (`InputWindow`).
struct BlockScratch {
  let stripWidth: Int, slot: Int, perChunk: Int, chunks: Int
  /// Where a streamed input's rows go, after the ring and the depthwise row (nil: not streamed).
  let window: InputWindow?
  var floats: Int { chunks * perChunk }

  init(
    _ b: NetworkPlan.Block, values: [NetworkPlan.Value], inputWidth: Int, output: (width: Int, height: Int),
    streamed: Bool, stripBytes: Int
  ) {
    let dc = values[b.depthwise.input].pixelStride
    let s = b.depthwise.stride
    stripWidth = NetworkPlan.stripWidth(outputWidth: output.width, channels: dc, stride: s, bytes: stripBytes)
    // A ring slot holds the expanded columns x0 × s − 1 ... (x1 − 1) × s + 1 of a strip x0..<x1.
    slot = ((stripWidth - 1) * s + 3) * dc
    window = streamed ? InputWindow(b.expand!) : nil
    perChunk = 4 * slot + stripWidth * dc + (window.map { $0.rows * inputWidth * 4 } ?? 0)
    chunks = min(Parallel.workerCount * 2, max(1, output.height / 4))
  }
}

/// The input rows one expanded row of a streamed first block reads, laid out so that the
/// block's convolution computes that row as grid row `gridRow` of a `rows`-row input: grid row g
/// reads input rows g × stride − padding ..< that + kernelSize, so window row `first + k` holds
/// input row iy × stride − padding + k (zeros outside the input), for k below kernelSize.
struct InputWindow {
  let kernelSize: Int, stride: Int, padding: Int
  /// The smallest grid row whose first input row is not above the window.
  let gridRow: Int
  let first: Int
  var rows: Int { first + kernelSize }

  init(_ c: NetworkPlan.Convolution) {
    (kernelSize, stride, padding) = (c.kernelSize, c.stride, c.padding)
    gridRow = (c.padding + c.stride - 1) / c.stride
    first = gridRow * c.stride - c.padding
  }

  /// Writes the input rows expanded row `iy` reads, over the input columns expanded columns
  /// `columns` read, into `out` (`rows` rows of `width` pixels).
  func fill(
    _ out: UnsafeMutablePointer<Float>, width: Int, height: Int, row iy: Int, columns: Range<Int>,
    from source: InputRows
  ) {
    let x0 = max(0, columns.lowerBound * stride - padding)
    let x1 = min(width, (columns.upperBound - 1) * stride - padding + kernelSize)
    guard x0 < x1 else { return }
    for k in 0..<kernelSize {
      let y = iy * stride - padding + k
      let at = out + ((first + k) * width + x0) * 4
      if y >= 0 && y < height {
        source.fill(at, y, x0..<x1)
      } else {
        at.initialize(repeating: 0, count: (x1 - x0) * 4)
      }
    }
  }
}

extension NetworkPlan {
  /// Runs the network on one input and calls `body` with its outputs, which are valid only
  /// inside `body`.
  ///
  /// - Parameters:
  ///   - input: `width × height × 4` floats: R, G, B (0–255) and a zero, row by row.
  ///   - width, height: Multiples of `NetworkPlan.alignment`.
  ///   - stripBytes: The bytes of expanded rows a block's strip keeps (see `stripWidth`); the
  ///     results do not depend on it (tests make it small to cut rows into many strips).
  /// - Complexity: O(width × height × `macsPerInputPixel`), on all cores.
  func run<R>(
    input: UnsafeMutablePointer<Float>, width: Int, height: Int, kernel: CenterFaceKernel,
    arena: BufferArena, stripBytes: Int = NetworkPlan.stripBytes,
    observer: ((Int, Duration) -> Void)? = nil, _ body: (NetworkOutputs) -> R
  ) -> R {
    run(
      input: Tensor(
        pointer: input, capacity: width * height * 4, width: width, height: height, pixelStride: 4),
      rows: nil, width: width, height: height, kernel: kernel, arena: arena, stripBytes: stripBytes,
      observer: observer, body)
  }

  /// Runs the network on the input `rows` makes, and calls `body` with its outputs, which are
  /// valid only inside `body`. When the plan ``streamsInput``, the first block asks `rows` for
  /// the few input rows each expanded row it computes reads, and the input is never held whole;
  /// otherwise it is made whole first, in the run's buffer. The outputs are the same floats
  /// either way.
  func run<R>(
    rows: InputRows, kernel: CenterFaceKernel, arena: BufferArena, stripBytes: Int = NetworkPlan.stripBytes,
    observer: ((Int, Duration) -> Void)? = nil, _ body: (NetworkOutputs) -> R
  ) -> R {
    run(
      input: nil, rows: rows, width: rows.width, height: rows.height, kernel: kernel, arena: arena,
      stripBytes: stripBytes, observer: observer, body)
  }

  /// The floats a run on a `width` × `height` input takes at most: its tensors' buffer and the
  /// largest block scratch (which depends on the core count).
  func runFloats(width: Int, height: Int, stripBytes: Int = NetworkPlan.stripBytes) -> Int {
    let layout = TensorLayout(self, width: width, height: height, placesInput: !streamsInput)
    var scratch = 0
    for (i, step) in steps.enumerated() {
      guard case .block(let b) = step else { continue }
      let streamed = i == 0 && streamsInput
      let x = size(of: b.input, width: width, height: height)
      let out = size(of: b.project.output, width: width, height: height)
      scratch = max(
        scratch,
        BlockScratch(
          b, values: values, inputWidth: x.width, output: out, streamed: streamed, stripBytes: stripBytes
        )
        .floats)
    }
    return layout.floats + scratch
  }

  /// The size of value `v` in a run on a `width` × `height` input.
  func size(of v: Int, width: Int, height: Int) -> (width: Int, height: Int) {
    let e = values[v].exponent
    return e >= 0 ? (width << e, height << e) : (width >> -e, height >> -e)
  }

  /// The tensors live in one buffer from `arena`, at the offsets of a `TensorLayout`; a block's
  /// scratch comes from `arena` too.
  private func run<R>(
    input given: Tensor?, rows: InputRows?, width: Int, height: Int, kernel: CenterFaceKernel,
    arena: BufferArena, stripBytes: Int, observer: ((Int, Duration) -> Void)?, _ body: (NetworkOutputs) -> R
  ) -> R {
    precondition(width % Self.alignment == 0 && height % Self.alignment == 0 && width > 0 && height > 0)
    let streamed = given == nil && streamsInput
    let layout = TensorLayout(self, width: width, height: height, placesInput: given == nil && !streamsInput)
    let slab = arena.take(max(1, layout.floats))
    defer { arena.give(slab) }
    func tensor(_ v: Int) -> Tensor {
      let (w, h) = size(of: v, width: width, height: height)
      let stride = values[v].pixelStride
      return Tensor(
        pointer: slab.pointer + layout.offsets[v]!, capacity: w * h * stride, width: w, height: h,
        pixelStride: stride)
    }
    var live = [Tensor?](repeating: nil, count: values.count)
    if let given {
      live[input] = given
    } else if let rows, !streamed {
      let t = tensor(input)
      rows.fill(into: t.pointer)
      live[input] = t
    }
    // What taps outside the input read: a window row of the widest pixels (`rowTaps`).
    let zeros = [Float](repeating: 0, count: 3 * (values.map(\.pixelStride).max() ?? 0))
    zeros.withUnsafeBufferPointer { zeros in
      for (index, step) in steps.enumerated() {
        let t = tensor(step.output)
        let start = observer == nil ? nil : ContinuousClock.now
        execute(
          step, output: t, live: live, rows: rows, kernel: kernel, zeros: zeros.baseAddress!,
          arena: arena, stripBytes: stripBytes)
        if let start, let observer { observer(index, ContinuousClock.now - start) }
        live[step.output] = t
        for i in step.inputs where lastUse[i] == index { live[i] = nil }
      }
    }
    let maps: NetworkOutputs
    if let heads {
      // Views of the one tensor of the fused heads, after the heatmap's sigmoid.
      let t = live[heads]!
      let map = UnsafeSendable(t.pointer)
      Parallel.forEachRowRange(t.height, minimumRows: 8) { rows in
        for p in (rows.lowerBound * t.width)..<(rows.upperBound * t.width) {
          map.value[p * t.pixelStride] = sigmoid(map.value[p * t.pixelStride])
        }
      }
      func view(_ channel: Int) -> Tensor {
        Tensor(
          pointer: t.pointer + channel, capacity: t.capacity - channel, width: t.width, height: t.height,
          pixelStride: t.pixelStride)
      }
      maps = NetworkOutputs(heatmap: view(0), scale: view(1), offset: view(3), landmarks: view(5))
    } else {
      maps = NetworkOutputs(
        heatmap: live[outputs.heatmap]!, scale: live[outputs.scale]!, offset: live[outputs.offset]!,
        landmarks: live[outputs.landmarks]!)
    }
    return body(maps)
  }

  private func execute(
    _ step: Step, output: Tensor, live: [Tensor?], rows: InputRows?, kernel: CenterFaceKernel,
    zeros: UnsafePointer<Float>, arena: BufferArena, stripBytes: Int
  ) {
    switch step {
    case .block(let b):
      executeBlock(
        b, output: output, live: live, rows: live[b.input] == nil ? rows : nil, kernel: kernel, zeros: zeros,
        arena: arena, stripBytes: stripBytes)
    case .convolution(let c):
      let x = live[c.input]!
      let r = c.residual.map { live[$0]! }
      c.packed.withUnsafeBufferPointer { w in
        c.bias.withUnsafeBufferPointer { b in
          let job = ConvolutionJob(
            input: x.pointer, inputWidth: x.width, inputHeight: x.height, inputPixelStride: x.pixelStride,
            inputChannels: c.inputChannels, kernelSize: c.kernelSize, stride: c.stride, padding: c.padding,
            gridWidth: output.width, gridHeight: output.height, output: output.pointer,
            outputWidth: output.width, outputPixelStride: output.pixelStride, outputStep: 1,
            outputOffsetX: 0, outputOffsetY: 0, outputChannels: output.pixelStride,
            weights: w.baseAddress!, bias: b.baseAddress!, relu: c.relu,
            residual: r.map { UnsafePointer($0.pointer) }, residualPixelStride: r?.pixelStride ?? 0,
            zeros: zeros, rowTaps: c.rowTaps)
          let work = c.inputChannels * c.kernelSize * c.kernelSize * output.pixelStride * output.width
          Self.parallelRows(output.height, work: work) { rows in
            kernel.convolve(job, rows: rows)
          }
        }
      }
    case .depthwise(let d):
      let x = live[d.input]!
      d.weights.withUnsafeBufferPointer { w in
        d.bias.withUnsafeBufferPointer { b in
          let job = DepthwiseJob(
            input: x.pointer, inputWidth: x.width, inputHeight: x.height, pixelStride: x.pixelStride,
            stride: d.stride, output: output.pointer, outputWidth: output.width,
            outputHeight: output.height, weights: w.baseAddress!, bias: b.baseAddress!, relu: d.relu)
          Self.parallelRows(output.height, work: 9 * output.pixelStride * output.width) { rows in
            kernel.depthwise(job, rows: rows)
          }
        }
      }
    case .transposed(let t):
      let x = live[t.input]!
      let r = t.residual.map { live[$0]! }
      t.bias.withUnsafeBufferPointer { b in
        for d in 0..<4 {
          t.packed[d].withUnsafeBufferPointer { w in
            let job = ConvolutionJob(
              input: x.pointer, inputWidth: x.width, inputHeight: x.height, inputPixelStride: x.pixelStride,
              inputChannels: t.inputChannels, kernelSize: 1, stride: 1, padding: 0,
              gridWidth: x.width, gridHeight: x.height, output: output.pointer,
              outputWidth: output.width, outputPixelStride: output.pixelStride, outputStep: 2,
              outputOffsetX: d & 1, outputOffsetY: d >> 1, outputChannels: output.pixelStride,
              weights: w.baseAddress!, bias: b.baseAddress!, relu: t.relu,
              residual: r.map { UnsafePointer($0.pointer) }, residualPixelStride: r?.pixelStride ?? 0,
              zeros: zeros)
            let work = t.inputChannels * output.pixelStride * x.width
            Self.parallelRows(x.height, work: work) { rows in
              kernel.convolve(job, rows: rows)
            }
          }
        }
      }
    case .add(let a, let b, _):
      let (x, y) = (live[a]!, live[b]!)
      Self.pointwise(output, channels: values[step.output].channels) { i, c in x.pointer[i] + y.pointer[i] }
    case .relu(let a, _):
      let x = live[a]!
      Self.pointwise(output, channels: values[step.output].channels) { i, _ in max(x.pointer[i], 0) }
    case .sigmoid(let a, _):
      let x = live[a]!
      Self.pointwise(output, channels: values[step.output].channels) { i, _ in sigmoid(x.pointer[i]) }
    case .affine(let a, _, let scale, let shift):
      let x = live[a]!
      Self.pointwise(output, channels: values[step.output].channels) { i, c in
        x.pointer[i] * scale[c] + shift[c]
      }
    }
  }

  /// Runs a fused block: the output rows are split between threads, and each thread's rows are
  /// cut into strips of columns narrow enough that the expanded rows a strip needs stay in the
  /// processor's cache. For each strip the thread computes the pieces of the expanded rows its
  /// rows need (one or two rows more than its share, and a column or two beside the strip, which
  /// its neighbours compute too, identically) into a ring of three row pieces, then one row of
  /// the depthwise convolution, then that row of the projection.
  private func executeBlock(
    _ b: Block, output: Tensor, live: [Tensor?], rows source: InputRows?, kernel: CenterFaceKernel,
    zeros: UnsafePointer<Float>, arena: BufferArena, stripBytes: Int
  ) {
    // The block's input, or (when `source` makes it a few rows at a time) its size alone.
    let x =
      live[b.input]
      ?? Tensor(
        pointer: UnsafeMutablePointer(mutating: zeros), capacity: 0, width: source!.width,
        height: source!.height, pixelStride: 4)
    let residual = b.project.residual.map { live[$0]! }
    let d = b.depthwise
    let inner = values[d.input]
    let ew =
      inner.exponent == values[b.input].exponent
      ? x.width : x.width >> (values[b.input].exponent - inner.exponent)
    let eh =
      inner.exponent == values[b.input].exponent
      ? x.height : x.height >> (values[b.input].exponent - inner.exponent)
    let dc = inner.pixelStride
    let s = d.stride
    let (outW, outH) = (output.width, output.height)
    let sizes = BlockScratch(
      b, values: values, inputWidth: x.width, output: (outW, outH), streamed: source != nil,
      stripBytes: stripBytes)
    let (stripWidth, slot, perChunk, chunks) = (sizes.stripWidth, sizes.slot, sizes.perChunk, sizes.chunks)
    let scratch = arena.take(sizes.floats)
    defer { arena.give(scratch) }
    let shared = UnsafeSendable(scratch.pointer)
    let p = b.project
    b.expand.map { $0.packed }.withOptionalPointer { ew8 in
      b.expand.map { $0.bias }.withOptionalPointer { eb in
        p.packed.withUnsafeBufferPointer { pw in
          p.bias.withUnsafeBufferPointer { pb in
            d.weights.withUnsafeBufferPointer { dw in
              d.bias.withUnsafeBufferPointer { db in
                Parallel.forEach(chunks) { ci in
                  let base = shared.value + ci * perChunk
                  // Slots 0-2 hold pieces of expanded rows (iy % 3), slot 3 is all zeros (rows
                  // outside).
                  let zeroSlot = UnsafePointer(base + 3 * slot)
                  (base + 3 * slot).initialize(repeating: 0, count: slot)
                  let dwRow = base + 4 * slot
                  let rows = (outH * ci / chunks)..<(outH * (ci + 1) / chunks)
                  var x0 = 0
                  while x0 < outW {
                    let x1 = min(outW, x0 + stripWidth)
                    let width = x1 - x0
                    let used = (width - 1) * s + 3
                    let left = x0 * s - 1
                    // The expanded columns inside the map; the slots' other pixels are zeros.
                    let c0 = max(0, left)
                    let c1 = min(ew, left + used)
                    for k in 0..<3 {
                      let sl = base + k * slot
                      sl.initialize(repeating: 0, count: (c0 - left) * dc)
                      (sl + (c1 - left) * dc).initialize(repeating: 0, count: (left + used - c1) * dc)
                    }
                    var held = (-1, -1, -1)
                    for oy in rows {
                      var pointers = (zeroSlot, zeroSlot, zeroSlot)
                      for ky in 0..<3 {
                        let iy = oy * s - 1 + ky
                        guard iy >= 0 && iy < eh else { continue }
                        let k = iy % 3
                        let row = base + k * slot
                        let have = k == 0 ? held.0 : (k == 1 ? held.1 : held.2)
                        if have != iy {
                          if let e = b.expand {
                            // A streamed input: the rows expanded row `iy` reads, made now at
                            // window rows `window.first...` and computed as grid row
                            // `window.gridRow` of them; else the input tensor's own rows.
                            var (input, inputHeight, gridRow) = (UnsafePointer(x.pointer), x.height, iy)
                            if let window = sizes.window, let source {
                              let rows = base + 4 * slot + stripWidth * dc
                              window.fill(
                                rows, width: x.width, height: x.height, row: iy, columns: c0..<c1,
                                from: source)
                              (input, inputHeight, gridRow) = (
                                UnsafePointer(rows), window.rows, window.gridRow
                              )
                            }
                            let job = ConvolutionJob(
                              input: input, inputWidth: x.width, inputHeight: inputHeight,
                              inputPixelStride: x.pixelStride, inputChannels: e.inputChannels,
                              kernelSize: e.kernelSize, stride: e.stride, padding: e.padding, gridWidth: c1,
                              gridHeight: source == nil ? eh : gridRow + 1, output: row, outputWidth: used,
                              outputPixelStride: dc, outputStep: 1, outputOffsetX: 0, outputOffsetY: 0,
                              outputChannels: dc, weights: ew8!, bias: eb!, relu: true, residual: nil,
                              residualPixelStride: 0, zeros: zeros, outputRowBase: gridRow, firstColumn: c0,
                              outputColumnBase: left, rowTaps: e.rowTaps)
                            kernel.convolve(job, rows: gridRow..<(gridRow + 1))
                          } else {
                            (row + (c0 - left) * dc).update(
                              from: x.pointer + (iy * x.width + c0) * x.pixelStride, count: (c1 - c0) * dc)
                          }
                          if k == 0 { held.0 = iy } else if k == 1 { held.1 = iy } else { held.2 = iy }
                        }
                        let piece = UnsafePointer(row)
                        if ky == 0 {
                          pointers.0 = piece
                        } else if ky == 1 {
                          pointers.1 = piece
                        } else {
                          pointers.2 = piece
                        }
                      }
                      let dj = DepthwiseJob(
                        input: pointers.1 + dc, inputWidth: (width - 1) * s + 1, inputHeight: eh,
                        pixelStride: dc,
                        stride: s, output: dwRow, outputWidth: width, outputHeight: outH,
                        weights: dw.baseAddress!, bias: db.baseAddress!, relu: d.relu)
                      kernel.depthwiseRow(
                        dj, above: pointers.0 + dc, middle: pointers.1 + dc, below: pointers.2 + dc,
                        output: dwRow)
                      let pixel = oy * outW + x0
                      let pj = ConvolutionJob(
                        input: dwRow, inputWidth: width, inputHeight: 1, inputPixelStride: dc,
                        inputChannels: p.inputChannels, kernelSize: 1, stride: 1, padding: 0,
                        gridWidth: width,
                        gridHeight: 1, output: output.pointer + pixel * output.pixelStride,
                        outputWidth: width, outputPixelStride: output.pixelStride, outputStep: 1,
                        outputOffsetX: 0, outputOffsetY: 0, outputChannels: output.pixelStride,
                        weights: pw.baseAddress!, bias: pb.baseAddress!, relu: false,
                        residual: residual.map { UnsafePointer($0.pointer + pixel * $0.pixelStride) },
                        residualPixelStride: residual?.pixelStride ?? 0, zeros: zeros)
                      kernel.convolve(pj, rows: 0..<1)
                    }
                    x0 = x1
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /// The output columns of a block's strip: about `bytes` of expanded rows in the ring (three
  /// row pieces of `channels` floats a pixel), at least 8 columns, the row cut into equal strips.
  /// Measured at 2464×1504 (AVX-512): 192 KiB and 768 KiB ran the early blocks alike, 768 KiB ran
  /// the last three (960 channels) about 20% faster.
  static func stripWidth(outputWidth: Int, channels: Int, stride: Int, bytes: Int = stripBytes) -> Int {
    let pixels = bytes / (3 * 4 * channels)
    let columns = max(8, (pixels - 3) / stride + 1)
    let strips = max(1, (outputWidth + columns - 1) / columns)
    return (outputWidth + strips - 1) / strips
  }

  /// Bytes of expanded rows a block's strip keeps (in L2, 1-2 MB a core on current x86 servers).
  static let stripBytes = 768 * 1024

  /// Splits `rows` over the cores when each row is worth it (`work` multiply-adds per row).
  private static func parallelRows(_ rows: Int, work: Int, _ body: (Range<Int>) -> Void) {
    // About 2 million multiply-adds per piece keeps the threads' start-up cost out of sight.
    let minimumRows = max(1, 2_000_000 / max(1, work))
    Parallel.forEachRowRange(rows, minimumRows: minimumRows, body)
  }

  /// Computes each real channel of `output` from the float index (into an input of the same
  /// layout) and the channel; the padding channels get zeros.
  private static func pointwise(_ output: Tensor, channels: Int, _ f: (Int, Int) -> Float) {
    let stride = output.pixelStride
    for p in 0..<(output.width * output.height) {
      for c in 0..<stride {
        let i = p * stride + c
        output.pointer[i] = c < channels ? f(i, c) : 0
      }
    }
  }
}

extension Optional where Wrapped == [Float] {
  /// Calls `body` with the array's base address, or nil.
  func withOptionalPointer<R>(_ body: (UnsafePointer<Float>?) -> R) -> R {
    switch self {
    case .some(let a): a.withUnsafeBufferPointer { body($0.baseAddress) }
    case .none: body(nil)
    }
  }
}
