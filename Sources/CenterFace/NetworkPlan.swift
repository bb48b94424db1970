import CenterFaceKernels
import CenterFaceKernelsAVX2

/// The network as the engine runs it: a checked list of steps over numbered values, with batch
/// normalisations folded into the convolution before them, ReLUs and residual additions fused
/// into the convolution that produces their input, and weights packed for one kernel build.
///
/// Built from any graph of the six operators CenterFace uses, wired so that the four outputs are
/// CenterFace's (a sigmoid heatmap of 1 channel, then 2 scale, 2 offset and 10 landmark channels,
/// all at a quarter of the input's size); anything else is refused with the fact.
struct NetworkPlan: Sendable {
  /// One tensor: its channel count, its floats per pixel, and its size relative to the input
  /// (`input size × 2^exponent`, exponent from -5 to 0).
  struct Value: Sendable {
    var channels: Int
    var pixelStride: Int
    var exponent: Int
  }

  struct Convolution: Sendable {
    var input: Int
    var output: Int
    var kernelSize: Int
    var stride: Int
    var padding: Int
    var inputChannels: Int
    /// Unpacked: output channel (padded to the output's pixel stride), tap, input channel.
    var weights: [Float]
    var bias: [Float]
    var relu = false
    var residual: Int? = nil
    /// `weights` packed by the kernel build in use.
    var packed: [Float] = []
    /// `packed` holds one tap per window row (see `ConvolutionJob.rowTaps`): 3×3 kernels.
    var rowTaps = false
  }

  struct Depthwise: Sendable {
    var input: Int
    var output: Int
    var stride: Int
    /// 9 taps × pixel stride.
    var weights: [Float]
    var bias: [Float]
    var relu = false
  }

  /// A 2×2, stride-2 transposed convolution: four 1×1 convolutions, one per output position.
  struct Transposed: Sendable {
    var input: Int
    var output: Int
    var inputChannels: Int
    /// For (dy, dx) = (0,0), (0,1), (1,0), (1,1): output channel, input channel.
    var weights: [[Float]]
    var bias: [Float]
    var relu = false
    var residual: Int? = nil
    var packed: [[Float]] = []
  }

  /// An inverted residual block run a few rows at a time: a convolution (with ReLU) whose rows
  /// feed a 3×3 depthwise convolution (with ReLU) whose rows feed a 1×1 convolution (with any
  /// residual). The two inner tensors never exist whole: each thread keeps three rows of the
  /// first and one of the second, so they stay in cache. Without `expand`, the depthwise
  /// convolution reads `input` itself.
  struct Block: Sendable {
    var input: Int
    var expand: Convolution?
    var depthwise: Depthwise
    var project: Convolution
  }

  enum Step: Sendable {
    case convolution(Convolution)
    case block(Block)
    case depthwise(Depthwise)
    case transposed(Transposed)
    case add(Int, Int, output: Int)
    case relu(Int, output: Int)
    case sigmoid(Int, output: Int)
    /// Per channel `x × scale + shift` (a batch normalisation that could not be folded).
    case affine(Int, output: Int, scale: [Float], shift: [Float])

    var inputs: [Int] {
      switch self {
      case .convolution(let c): [c.input] + (c.residual.map { [$0] } ?? [])
      case .block(let b): [b.input] + (b.project.residual.map { [$0] } ?? [])
      case .depthwise(let d): [d.input]
      case .transposed(let t): [t.input] + (t.residual.map { [$0] } ?? [])
      case .add(let a, let b, _): [a, b]
      case .relu(let x, _), .sigmoid(let x, _), .affine(let x, _, _, _): [x]
      }
    }

    var output: Int {
      switch self {
      case .convolution(let c): c.output
      case .block(let b): b.project.output
      case .depthwise(let d): d.output
      case .transposed(let t): t.output
      case .add(_, _, let o), .relu(_, let o), .sigmoid(_, let o), .affine(_, let o, _, _): o
      }
    }
  }

  /// The outputs' value numbers.
  struct Outputs: Sendable {
    var heatmap: Int
    var scale: Int
    var offset: Int
    var landmarks: Int
  }

  var values: [Value]
  var steps: [Step]
  /// Value 0, the RGB input, 4 floats per pixel.
  let input = 0
  var outputs: Outputs
  /// The index of the last step that reads each value (`Int.max` for the outputs).
  var lastUse: [Int]
  /// When the four heads are one convolution (see `fuseHeads`): the value that holds their 15
  /// channels side by side (heatmap before its sigmoid, scale, offset, landmarks); the values
  /// in `outputs` are then never computed.
  var heads: Int?
  /// Multiply-accumulates per input pixel, for benchmarks.
  var macsPerInputPixel: Double
  /// The most floats per input pixel that a run keeps at once (see `peakFloats`).
  var floatsPerInputPixel: Double
  /// Whether the input is made a few rows at a time as the first step reads it, never whole:
  /// the first step is a block with a convolution before its depthwise one, and nothing else
  /// reads the input (CenterFace: a 3×3, stride-2 convolution of the RGB input). It is then
  /// never held, which is most of a run's memory at its first step (4 of 8 floats a pixel).
  var streamsInput: Bool

  /// Input width and height must be multiples of this.
  static let alignment = 32

  /// The floats the steps may hold in all (weights, biases, scales and shifts, padded to pixel
  /// strides), as many as the file may hold (`ONNXLimits.tensorElements`): one initializer read
  /// by many nodes is copied for each, so the file's own bound does not bound the plan's.
  /// CenterFace's plan holds about 1.8 million.
  static let maxWeights = ONNXLimits.tensorElements
  /// Multiply-accumulates per input pixel, at most: 16 times CenterFace's (about 6,000). Past it
  /// a file within every other bound (a chain of thousands of convolutions sharing one
  /// initializer) would keep the detector busy for days on one photo.
  static let maxMACs = 100_000.0
  /// Floats per input pixel a run keeps at once, at most: 4 times CenterFace's when it holds its
  /// input (8; 5.5 as it runs, streaming it), so 768 MB for a tile of
  /// `CenterFaceOptions.maxTilePixels` by default. Past it a tile's memory would have no
  /// bound: wide tensors at full size, or thousands of tensors that nothing reads, each kept
  /// until the run ends.
  static let maxFloats = 32.0

  static func pixelStride(channels: Int) -> Int { (channels + 7) / 8 * 8 }
}

extension NetworkPlan {
  // swift-format-ignore: NoBlockComments
  init(model: ONNXModel, kernel: CenterFaceKernel) throws(CenterFaceError) {
    try Self.checkVersions(model)
    let graph = model.graph
    var weights: [String: ONNXTensor] = [:]
    for t in graph.initializers {
      guard weights[t.name] == nil else { throw .unexpectedGraph("initializer \(t.name) given twice") }
      weights[t.name] = t
    }

    // The one real input: float [N, 3, H, W].
    let realInputs = graph.inputs.filter { weights[$0.name] == nil }
    guard realInputs.count == 1, let input = realInputs.first else {
      throw .unexpectedGraph("\(realInputs.count) graph inputs (expected 1 image)")
    }
    guard input.elementType == 1 else { throw .unexpectedGraph("input \(input.name) is not float") }
    if let shape = input.shape {
      guard shape.count == 4 else {
        throw .unexpectedGraph("input \(input.name) has \(shape.count) dimensions")
      }
      if case .value(let c) = shape[1], c != 3 {
        throw .unexpectedGraph("input \(input.name) has \(c) channels (expected 3)")
      }
    }
    guard graph.outputs.count == 4 else {
      throw .unexpectedGraph(
        "\(graph.outputs.count) graph outputs (expected 4: heatmap, scale, offset, landmarks)")
    }

    var builder = Builder(weights: weights, kernel: kernel)
    builder.consumers = Self.consumerCounts(graph)
    builder.define(input.name, Value(channels: 3, pixelStride: 4, exponent: 0), producer: nil)
    for node in graph.nodes {
      try builder.add(node)
    }

    // The outputs, in the file's order: heatmap (through a sigmoid), scale, offset, landmarks.
    var ids: [Int] = []
    for (info, channels) in zip(graph.outputs, [1, 2, 2, 10]) {
      guard let id = builder.names[info.name] else {
        throw .unexpectedGraph("output \(info.name) is not computed by any node")
      }
      let v = builder.values[id]
      guard v.channels == channels, v.exponent == -2 else {
        throw .unexpectedGraph(
          "output \(info.name) has \(v.channels) channels at 1/\(1 << -min(0, v.exponent)) size (expected \(channels) at 1/4)"
        )
      }
      if let shape = info.shape, shape.count == 4, case .value(let c) = shape[1], c != Int64(channels) {
        throw .unexpectedGraph("output \(info.name) declares \(c) channels")
      }
      ids.append(id)
    }
    guard let producer = builder.producer[ids[0]], case .sigmoid = builder.steps[producer] else {
      throw .unexpectedGraph("the heatmap output is not a Sigmoid")
    }
    guard Set(ids).count == 4 else { throw .unexpectedGraph("two outputs are the same tensor") }

    values = builder.values
    steps = Self.fuseBlocks(builder.steps, values: builder.values, outputs: Set(ids))
    outputs = Outputs(heatmap: ids[0], scale: ids[1], offset: ids[2], landmarks: ids[3])
    heads = Self.fuseHeads(&steps, values: &values, outputs: outputs)
    var last = [Int](repeating: -1, count: values.count)
    for (i, step) in steps.enumerated() {
      for v in step.inputs { last[v] = i }
    }
    for id in heads.map({ [$0] }) ?? ids { last[id] = Int.max }
    lastUse = last
    macsPerInputPixel = builder.macs
    if case .block(let b) = steps.first, b.input == self.input, b.expand != nil, last[self.input] == 0 {
      streamsInput = true
    } else {
      streamsInput = false
    }
    floatsPerInputPixel = Self.peakFloats(steps, values: values, lastUse: last, holdsInput: !streamsInput)
    guard macsPerInputPixel <= Self.maxMACs else {
      throw .tooLarge(
        "\(Int(macsPerInputPixel)) multiply-adds per input pixel (at most \(Int(Self.maxMACs)))")
    }
    guard floatsPerInputPixel <= Self.maxFloats else {
      throw .tooLarge(
        "\(floatsPerInputPixel) floats per input pixel held at once (at most \(Int(Self.maxFloats)))")
    }
    for i in steps.indices { Self.pack(&steps[i], kernel: kernel, values: values) }
  }

  private static func checkVersions(_ model: ONNXModel) throws(CenterFaceError) {
    guard (3...10).contains(model.irVersion) else {
      throw .unexpectedGraph("ONNX IR version \(model.irVersion) (this reader knows 3 to 10)")
    }
    var sawDefault = false
    for (domain, version) in model.opsets {
      guard domain.isEmpty || domain == "ai.onnx" else {
        throw .unexpectedGraph("operator set domain \(domain)")
      }
      // Conv, ConvTranspose, Relu, Add, Sigmoid and inference-mode BatchNormalization mean the
      // same from opset 7 to 17.
      guard (7...17).contains(version) else {
        throw .unexpectedGraph("ONNX operator set \(version) (this reader knows 7 to 17)")
      }
      sawDefault = true
    }
    guard sawDefault else { throw .unexpectedGraph("no ONNX operator set imported") }
  }

  private static func consumerCounts(_ graph: ONNXGraph) -> [String: Int] {
    var counts: [String: Int] = [:]
    for node in graph.nodes {
      for name in node.inputs where !name.isEmpty { counts[name, default: 0] += 1 }
    }
    for output in graph.outputs { counts[output.name, default: 0] += 1 }
    return counts
  }

  /// The most floats per input pixel that a run keeps at once, the input's included: after each
  /// step, the tensors computed and not yet read for the last time, as `run` takes and gives
  /// back their buffers (a tensor that nothing reads is kept to the end). The blocks' strips
  /// are not counted.
  private static func peakFloats(_ steps: [Step], values: [Value], lastUse: [Int], holdsInput: Bool) -> Double
  {
    func floats(_ v: Int) -> Double {
      Double(values[v].pixelStride) / Double(1 << (-2 * values[v].exponent))
    }
    var live = holdsInput ? floats(0) : 0
    var peak = live
    for (i, step) in steps.enumerated() {
      live += floats(step.output)
      peak = max(peak, live)
      for v in Set(step.inputs) where lastUse[v] == i && (v != 0 || holdsInput) { live -= floats(v) }
    }
    return peak
  }

  /// Replaces each run of three consecutive steps convolution (ReLU) → depthwise (ReLU) →
  /// 1×1 convolution, whose inner tensors nothing else reads, with one `Block`; and likewise
  /// depthwise (ReLU) → 1×1 convolution.
  private static func fuseBlocks(_ steps: [Step], values: [Value], outputs: Set<Int>) -> [Step] {
    var readers = [Int](repeating: 0, count: values.count)
    for step in steps {
      for v in step.inputs { readers[v] += 1 }
    }
    for v in outputs { readers[v] += 1 }
    func private1(_ v: Int) -> Bool { readers[v] == 1 && v != 0 }
    var fused: [Step] = []
    var i = 0
    while i < steps.count {
      if i + 2 < steps.count, case .convolution(let e) = steps[i], e.relu, e.residual == nil,
        case .depthwise(let d) = steps[i + 1], d.relu, d.input == e.output, private1(e.output),
        case .convolution(let p) = steps[i + 2], p.kernelSize == 1, p.stride == 1, !p.relu,
        p.input == d.output, private1(d.output)
      {
        fused.append(.block(Block(input: e.input, expand: e, depthwise: d, project: p)))
        i += 3
      } else if i + 1 < steps.count, case .depthwise(let d) = steps[i], d.relu,
        case .convolution(let p) = steps[i + 1], p.kernelSize == 1, p.stride == 1, !p.relu,
        p.input == d.output, private1(d.output)
      {
        fused.append(.block(Block(input: d.input, expand: nil, depthwise: d, project: p)))
        i += 2
      } else {
        fused.append(steps[i])
        i += 1
      }
    }
    return fused
  }

  /// Replaces the four output convolutions, when they are 1×1 convolutions of one input that
  /// nothing else reads (CenterFace's heads: 1 + 2 + 2 + 10 channels), and the heatmap's
  /// sigmoid with one 1×1 convolution of 15 channels; the sigmoid is then applied to its
  /// channel 0 in place (`run` does). Each channel is the same sum as before, in the same order.
  /// Nothing but the graph's outputs may read the heatmap either: the sigmoid that computes it
  /// is dropped. Returns the new value, or nil when the graph is not of that shape.
  private static func fuseHeads(_ steps: inout [Step], values: inout [Value], outputs: Outputs) -> Int? {
    var readers = [Int](repeating: 0, count: values.count)
    for step in steps {
      for v in step.inputs { readers[v] += 1 }
    }
    var producer: [Int: Int] = [:]
    for (i, step) in steps.enumerated() { producer[step.output] = i }
    guard let si = producer[outputs.heatmap], case .sigmoid(let logits, _) = steps[si], readers[logits] == 1,
      readers[outputs.heatmap] == 0
    else { return nil }
    var convolutions: [(index: Int, conv: Convolution)] = []
    for id in [logits, outputs.scale, outputs.offset, outputs.landmarks] {
      guard let i = producer[id], case .convolution(let c) = steps[i], c.kernelSize == 1, c.stride == 1,
        !c.relu, c.residual == nil, id == logits || readers[id] == 0
      else { return nil }
      convolutions.append((i, c))
    }
    let first = convolutions[0].conv
    guard
      convolutions.allSatisfy({ $0.conv.input == first.input && $0.conv.inputChannels == first.inputChannels }
      )
    else { return nil }
    let k = first.inputChannels
    let channels = convolutions.reduce(0) { $0 + values[$1.conv.output].channels }
    let stride = pixelStride(channels: channels)
    var weights = [Float]()
    var bias = [Float]()
    for (_, c) in convolutions {
      let n = values[c.output].channels
      weights += c.weights[0..<(n * k)]
      bias += c.bias[0..<n]
    }
    weights += [Float](repeating: 0, count: (stride - channels) * k)
    bias += [Float](repeating: 0, count: stride - channels)
    values.append(Value(channels: channels, pixelStride: stride, exponent: values[outputs.heatmap].exponent))
    let fused = Convolution(
      input: first.input, output: values.count - 1, kernelSize: 1, stride: 1, padding: 0, inputChannels: k,
      weights: weights, bias: bias)
    // In the place of the last of them: their input is computed by then.
    let last = convolutions.map(\.index).max()!
    let removed = Set(convolutions.map(\.index) + [si])
    var result: [Step] = []
    for (i, step) in steps.enumerated() {
      if i == last { result.append(.convolution(fused)) }
      if !removed.contains(i) { result.append(step) }
    }
    steps = result
    return values.count - 1
  }

  /// A `size × size` kernel's weights (output channel, tap, input channel) regrouped as `size`
  /// taps (window rows) of `size × inputPixelStride` channels, zeros for the padding channels.
  static func rowWeights(
    _ weights: [Float], outputChannels: Int, size: Int, inputChannels: Int, inputPixelStride: Int
  ) -> [Float] {
    precondition(
      inputChannels <= inputPixelStride && weights.count == outputChannels * size * size * inputChannels)
    let rowK = size * inputPixelStride
    var rows = [Float](repeating: 0, count: outputChannels * size * rowK)
    for n in 0..<outputChannels {
      for ky in 0..<size {
        for kx in 0..<size {
          for c in 0..<inputChannels {
            rows[(n * size + ky) * rowK + kx * inputPixelStride + c] =
              weights[((n * size + ky) * size + kx) * inputChannels + c]
          }
        }
      }
    }
    return rows
  }

  private static func pack(_ step: inout Step, kernel: CenterFaceKernel, values: [Value]) {
    func packed(_ w: [Float], _ n: Int, _ taps: Int, _ k: Int) -> [Float] {
      kernel.packConvolutionWeights(w, outputChannels: n, taps: taps, inputChannels: k)
    }
    switch step {
    case .convolution(var c):
      if c.kernelSize > 1 {
        // One tap per window row: a third of the taps, each three times as long.
        let ps = values[c.input].pixelStride
        let rows = rowWeights(
          c.weights, outputChannels: values[c.output].pixelStride, size: c.kernelSize,
          inputChannels: c.inputChannels, inputPixelStride: ps)
        c.packed = packed(rows, values[c.output].pixelStride, c.kernelSize, c.kernelSize * ps)
        c.rowTaps = true
      } else {
        c.packed = packed(c.weights, values[c.output].pixelStride, 1, c.inputChannels)
      }
      c.weights = []
      step = .convolution(c)
    case .transposed(var t):
      t.packed = t.weights.map { packed($0, values[t.output].pixelStride, 1, t.inputChannels) }
      t.weights = []
      step = .transposed(t)
    case .block(var b):
      var inner = Step.convolution(b.project)
      pack(&inner, kernel: kernel, values: values)
      if case .convolution(let p) = inner { b.project = p }
      if let e = b.expand {
        inner = .convolution(e)
        pack(&inner, kernel: kernel, values: values)
        if case .convolution(let e) = inner { b.expand = e }
      }
      step = .block(b)
    default: break
    }
  }
}

/// Walks the nodes in file order (ONNX requires topological order) and emits steps.
private struct Builder {
  let weights: [String: ONNXTensor]
  let kernel: CenterFaceKernel
  var consumers: [String: Int] = [:]
  var names: [String: Int] = [:]
  var values: [NetworkPlan.Value] = []
  var steps: [NetworkPlan.Step] = []
  /// The step that computes each value (nil for the input).
  var producer: [Int: Int] = [:]
  /// Names of values that fused steps stand for (not free to fuse into again).
  var macs = 0.0
  /// The floats the steps hold so far (see `NetworkPlan.maxWeights`).
  var weightFloats = 0

  init(weights: [String: ONNXTensor], kernel: CenterFaceKernel) {
    self.weights = weights
    self.kernel = kernel
  }

  mutating func define(_ name: String, _ value: NetworkPlan.Value, producer step: Int?) {
    names[name] = values.count
    if let step { producer[values.count] = step }
    values.append(value)
  }

  /// The value a node input names; it must be computed earlier.
  func value(_ name: String, of node: ONNXNode) throws(CenterFaceError) -> Int {
    guard let id = names[name] else {
      if weights[name] != nil {
        throw .unexpectedGraph("\(node.opType) \(node.name) takes initializer \(name) as data")
      }
      throw .unexpectedGraph("\(node.opType) \(node.name) reads \(name) before any node computes it")
    }
    return id
  }

  /// A float initializer of exactly `dims` (any dims when nil).
  func tensor(_ name: String, dims: [Int]?, of node: ONNXNode) throws(CenterFaceError) -> ONNXTensor {
    guard let t = weights[name] else {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) is not an initializer")
    }
    guard t.dataType == 1, !t.isExternal, t.floats != nil else {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) is not float data stored in the file")
    }
    if let dims, t.dims != dims {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) has shape \(t.dims) (expected \(dims))")
    }
    return t
  }

  /// A node's only output name, not yet defined.
  func output(of node: ONNXNode) throws(CenterFaceError) -> String {
    guard node.outputs.count == 1, let out = node.outputs.first, !out.isEmpty else {
      throw .unexpectedGraph("\(node.opType) \(node.name) has \(node.outputs.count) outputs (expected 1)")
    }
    guard names[out] == nil, weights[out] == nil else {
      throw .unexpectedGraph("\(out) is computed twice")
    }
    return out
  }

  /// The step computing `value` when it may take a fused ReLU, residual or folded normalisation:
  /// a convolution whose output nothing else reads.
  func fusable(_ value: Int, name: String) -> Int? {
    guard let step = producer[value], consumers[name] == 1 else { return nil }
    return step
  }

  mutating func add(_ node: ONNXNode) throws(CenterFaceError) {
    guard node.domain.isEmpty || node.domain == "ai.onnx" else {
      throw .unsupportedOperator("\(node.domain).\(node.opType)")
    }
    let attributes = try Attributes(node)
    switch node.opType {
    case "Conv": try addConvolution(node, attributes)
    case "ConvTranspose": try addTransposed(node, attributes)
    case "BatchNormalization": try addBatchNormalization(node, attributes)
    case "Relu":
      try attributes.allow([], node)
      let x = try single(node)
      let out = try output(of: node)
      if let s = fusable(x, name: node.inputs[0]) {
        switch steps[s] {
        case .convolution(var c) where !c.relu && c.residual == nil:
          c.relu = true
          steps[s] = .convolution(c)
          names[out] = x
          return
        case .depthwise(var d) where !d.relu:
          d.relu = true
          steps[s] = .depthwise(d)
          names[out] = x
          return
        case .transposed(var t) where !t.relu && t.residual == nil:
          t.relu = true
          steps[s] = .transposed(t)
          names[out] = x
          return
        default: break
        }
      }
      define(out, values[x], producer: steps.count)
      steps.append(.relu(x, output: values.count - 1))
    case "Sigmoid":
      try attributes.allow([], node)
      let x = try single(node)
      let out = try output(of: node)
      define(out, values[x], producer: steps.count)
      steps.append(.sigmoid(x, output: values.count - 1))
    case "Add":
      try attributes.allow([], node)
      guard node.inputs.count == 2 else {
        throw .unexpectedGraph("Add \(node.name) has \(node.inputs.count) inputs")
      }
      let a = try value(node.inputs[0], of: node)
      let b = try value(node.inputs[1], of: node)
      let out = try output(of: node)
      guard values[a].channels == values[b].channels, values[a].exponent == values[b].exponent else {
        throw .unexpectedGraph("Add \(node.name) of tensors of different shapes (no broadcasting)")
      }
      // Fuse into the later of the two convolutions when the other operand is ready before it.
      for (mine, other, name) in [(b, a, node.inputs[1]), (a, b, node.inputs[0])] where mine != other {
        guard let s = fusable(mine, name: name) else { continue }
        let ready = other == 0 || (producer[other].map { $0 < s } ?? false)
        guard ready else { continue }
        switch steps[s] {
        case .convolution(var c) where c.residual == nil:
          c.residual = other
          steps[s] = .convolution(c)
          names[out] = mine
          return
        case .transposed(var t) where t.residual == nil:
          t.residual = other
          steps[s] = .transposed(t)
          names[out] = mine
          return
        default: continue
        }
      }
      define(out, values[a], producer: steps.count)
      steps.append(.add(a, b, output: values.count - 1))
    default:
      throw .unsupportedOperator(node.opType)
    }
  }

  /// Counts the floats a new step holds, before they are allocated.
  ///
  /// - Throws: `.tooLarge` past `NetworkPlan.maxWeights` in all.
  mutating func hold(_ floats: Int, for node: ONNXNode) throws(CenterFaceError) {
    weightFloats += floats
    guard weightFloats <= NetworkPlan.maxWeights else {
      throw .tooLarge(
        "\(node.opType) \(node.name) takes the network's weights past \(NetworkPlan.maxWeights) floats")
    }
  }

  func single(_ node: ONNXNode) throws(CenterFaceError) -> Int {
    guard node.inputs.count == 1 else {
      throw .unexpectedGraph("\(node.opType) \(node.name) has \(node.inputs.count) inputs (expected 1)")
    }
    return try value(node.inputs[0], of: node)
  }

  mutating func addConvolution(_ node: ONNXNode, _ a: Attributes) throws(CenterFaceError) {
    try a.allow(["kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"], node)
    guard node.inputs.count == 2 || node.inputs.count == 3 else {
      throw .unexpectedGraph("Conv \(node.name) has \(node.inputs.count) inputs")
    }
    let x = try value(node.inputs[0], of: node)
    let w = try tensor(node.inputs[1], dims: nil, of: node)
    guard w.dims.count == 4, w.dims[2] == w.dims[3], w.dims[2] == 1 || w.dims[2] == 3 else {
      throw .unexpectedGraph("Conv \(node.name) has weights of shape \(w.dims) (1×1 and 3×3 kernels only)")
    }
    let (n, cg, k) = (w.dims[0], w.dims[1], w.dims[2])
    guard n >= 1, n <= 4096 else { throw .unexpectedGraph("Conv \(node.name) has \(n) output channels") }
    let bias = try optionalBias(node, count: n)
    try a.expectKernel(k, node)
    let stride = try a.stride(node, allowed: [1, 2])
    try a.expectInts("pads", [Int](repeating: (k - 1) / 2, count: 4), node)
    try a.expectInts("dilations", [1, 1], node)
    try a.expectAutoPadNotSet(node)
    let group = try a.int("group", default: 1, node)
    let input = values[x]
    let out = try output(of: node)
    let exponent = input.exponent - (stride == 2 ? 1 : 0)
    guard exponent >= -5 else {
      throw .unexpectedGraph("Conv \(node.name) shrinks the input more than 32 times")
    }
    let stridePixels = Double(1 << (-exponent * 2))
    let outValue = NetworkPlan.Value(
      channels: n, pixelStride: NetworkPlan.pixelStride(channels: n), exponent: exponent)
    let wf = w.floats!

    if group == 1 {
      guard cg == input.channels else {
        throw .unexpectedGraph("Conv \(node.name) reads \(cg) channels of a \(input.channels)-channel tensor")
      }
      let taps = k * k
      try hold(outValue.pixelStride * (taps * cg + 1), for: node)
      var packed = [Float](repeating: 0, count: outValue.pixelStride * taps * cg)
      for o in 0..<n {
        for c in 0..<cg {
          for t in 0..<taps { packed[(o * taps + t) * cg + c] = wf[(o * cg + c) * taps + t] }
        }
      }
      define(out, outValue, producer: steps.count)
      steps.append(
        .convolution(
          .init(
            input: x, output: values.count - 1, kernelSize: k, stride: stride, padding: (k - 1) / 2,
            inputChannels: cg, weights: packed, bias: padded(bias, outValue.pixelStride))))
      macs += Double(n * cg * taps) / stridePixels
    } else if group == input.channels, cg == 1, n == group, k == 3, input.pixelStride % 8 == 0 {
      try hold(10 * outValue.pixelStride, for: node)
      var dw = [Float](repeating: 0, count: 9 * outValue.pixelStride)
      for c in 0..<n {
        for t in 0..<9 { dw[t * outValue.pixelStride + c] = wf[c * 9 + t] }
      }
      define(out, outValue, producer: steps.count)
      steps.append(
        .depthwise(
          .init(
            input: x, output: values.count - 1, stride: stride, weights: dw,
            bias: padded(bias, outValue.pixelStride))))
      macs += Double(n * 9) / stridePixels
    } else {
      throw .unexpectedGraph(
        "Conv \(node.name) with group \(group) (only 1, or one group per channel with a 3×3 kernel)")
    }
  }

  mutating func addTransposed(_ node: ONNXNode, _ a: Attributes) throws(CenterFaceError) {
    try a.allow(
      ["kernel_shape", "strides", "pads", "dilations", "group", "output_padding", "auto_pad"], node)
    guard node.inputs.count == 2 || node.inputs.count == 3 else {
      throw .unexpectedGraph("ConvTranspose \(node.name) has \(node.inputs.count) inputs")
    }
    let x = try value(node.inputs[0], of: node)
    let input = values[x]
    let w = try tensor(node.inputs[1], dims: nil, of: node)
    guard w.dims.count == 4, w.dims[0] == input.channels, w.dims[2] == 2, w.dims[3] == 2 else {
      throw .unexpectedGraph(
        "ConvTranspose \(node.name) has weights of shape \(w.dims) (2×2 kernels over \(input.channels) channels only)"
      )
    }
    let n = w.dims[1]
    guard n >= 1, n <= 4096 else {
      throw .unexpectedGraph("ConvTranspose \(node.name) has \(n) output channels")
    }
    let bias = try optionalBias(node, count: n)
    try a.expectKernel(2, node)
    guard try a.stride(node, allowed: [2]) == 2 else { throw .unexpectedGraph("ConvTranspose stride") }
    try a.expectInts("pads", [0, 0, 0, 0], node)
    try a.expectInts("dilations", [1, 1], node)
    try a.expectInts("output_padding", [0, 0], node)
    try a.expectAutoPadNotSet(node)
    guard try a.int("group", default: 1, node) == 1 else {
      throw .unexpectedGraph("ConvTranspose \(node.name) with groups")
    }
    guard input.exponent < 0 else {
      throw .unexpectedGraph("ConvTranspose \(node.name) grows past the input's size")
    }
    let out = try output(of: node)
    let outValue = NetworkPlan.Value(
      channels: n, pixelStride: NetworkPlan.pixelStride(channels: n), exponent: input.exponent + 1)
    let cin = input.channels
    let wf = w.floats!
    try hold(outValue.pixelStride * (4 * cin + 1), for: node)
    var four: [[Float]] = []
    for d in 0..<4 {
      var m = [Float](repeating: 0, count: outValue.pixelStride * cin)
      for o in 0..<n {
        for c in 0..<cin { m[o * cin + c] = wf[(c * n + o) * 4 + d] }
      }
      four.append(m)
    }
    define(out, outValue, producer: steps.count)
    steps.append(
      .transposed(
        .init(
          input: x, output: values.count - 1, inputChannels: cin, weights: four,
          bias: padded(bias, outValue.pixelStride))))
    macs += Double(n * cin * 4) / Double(1 << (-input.exponent * 2))
  }

  mutating func addBatchNormalization(_ node: ONNXNode, _ a: Attributes) throws(CenterFaceError) {
    try a.allow(["epsilon", "momentum", "spatial"], node)
    guard node.inputs.count == 5 else {
      throw .unexpectedGraph("BatchNormalization \(node.name) has \(node.inputs.count) inputs")
    }
    guard try a.int("spatial", default: 1, node) == 1 else {
      throw .unexpectedGraph("BatchNormalization \(node.name) with spatial=0")
    }
    let x = try value(node.inputs[0], of: node)
    let c = values[x].channels
    let gamma = try tensor(node.inputs[1], dims: [c], of: node).floats!
    let beta = try tensor(node.inputs[2], dims: [c], of: node).floats!
    let mean = try tensor(node.inputs[3], dims: [c], of: node).floats!
    let variance = try tensor(node.inputs[4], dims: [c], of: node).floats!
    let epsilon = Double(try a.float("epsilon", default: 1e-5, node))
    let out = try output(of: node)
    // y = (x - mean) / sqrt(var + eps) * gamma + beta = x * scale + shift.
    var scale = [Float](repeating: 0, count: c)
    var shift = [Float](repeating: 0, count: c)
    for i in 0..<c {
      let v = Double(variance[i]) + epsilon
      guard v > 0, v.isFinite else {
        throw .unexpectedGraph("BatchNormalization \(node.name) has variance \(variance[i])")
      }
      let s = Double(gamma[i]) / v.squareRoot()
      scale[i] = Float(s)
      shift[i] = Float(Double(beta[i]) - Double(mean[i]) * s)
    }
    if let s = fusable(x, name: node.inputs[0]) {
      let stride = values[x].pixelStride
      switch steps[s] {
      case .convolution(var conv) where !conv.relu && conv.residual == nil:
        let per = conv.weights.count / stride
        for o in 0..<c {
          let f = Double(scale[o])
          for j in 0..<per { conv.weights[o * per + j] = Float(Double(conv.weights[o * per + j]) * f) }
          conv.bias[o] = Float(Double(conv.bias[o]) * f + Double(shift[o]))
        }
        steps[s] = .convolution(conv)
        names[out] = x
        return
      case .transposed(var t) where !t.relu && t.residual == nil:
        let per = t.inputChannels
        for d in 0..<4 {
          for o in 0..<c {
            let f = Double(scale[o])
            for j in 0..<per { t.weights[d][o * per + j] = Float(Double(t.weights[d][o * per + j]) * f) }
          }
        }
        for o in 0..<c { t.bias[o] = Float(Double(t.bias[o]) * Double(scale[o]) + Double(shift[o])) }
        steps[s] = .transposed(t)
        names[out] = x
        return
      default: break
      }
    }
    try hold(2 * c, for: node)
    define(out, values[x], producer: steps.count)
    steps.append(.affine(x, output: values.count - 1, scale: scale, shift: shift))
  }

  func optionalBias(_ node: ONNXNode, count: Int) throws(CenterFaceError) -> [Float] {
    guard node.inputs.count == 3, !node.inputs[2].isEmpty else { return [Float](repeating: 0, count: count) }
    return try tensor(node.inputs[2], dims: [count], of: node).floats!
  }

  func padded(_ v: [Float], _ count: Int) -> [Float] {
    v + [Float](repeating: 0, count: count - v.count)
  }
}

/// A node's attributes by name, with checks that name the node.
struct Attributes {
  var byName: [String: ONNXAttribute.Value] = [:]

  init(_ node: ONNXNode) throws(CenterFaceError) {
    for a in node.attributes {
      guard byName[a.name] == nil else {
        throw .unexpectedGraph("\(node.opType) \(node.name) has attribute \(a.name) twice")
      }
      byName[a.name] = a.value
    }
  }

  func allow(_ names: Set<String>, _ node: ONNXNode) throws(CenterFaceError) {
    for name in byName.keys.sorted() where !names.contains(name) {
      throw .unexpectedGraph("\(node.opType) \(node.name) has attribute \(name)")
    }
  }

  func ints(_ name: String, _ node: ONNXNode) throws(CenterFaceError) -> [Int]? {
    guard let v = byName[name] else { return nil }
    guard case .ints(let list) = v else {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) is not a list of integers")
    }
    // Attribute lists are at most 64 long; any value past ±2^31 is refused below as a mismatch.
    return list.map { Int(clamping: $0) }
  }

  func expectInts(_ name: String, _ expected: [Int], _ node: ONNXNode) throws(CenterFaceError) {
    guard let v = try ints(name, node) else { return }
    guard v == expected else {
      throw .unexpectedGraph("\(node.opType) \(node.name) has \(name) \(v) (expected \(expected))")
    }
  }

  func expectKernel(_ k: Int, _ node: ONNXNode) throws(CenterFaceError) {
    try expectInts("kernel_shape", [k, k], node)
  }

  func stride(_ node: ONNXNode, allowed: Set<Int>) throws(CenterFaceError) -> Int {
    guard let v = try ints("strides", node) else {
      guard allowed.contains(1) else { throw .unexpectedGraph("\(node.opType) \(node.name) has no strides") }
      return 1
    }
    guard v.count == 2, v[0] == v[1], allowed.contains(v[0]) else {
      throw .unexpectedGraph("\(node.opType) \(node.name) has strides \(v)")
    }
    return v[0]
  }

  func int(_ name: String, default value: Int, _ node: ONNXNode) throws(CenterFaceError) -> Int {
    guard let v = byName[name] else { return value }
    guard case .int(let i) = v, let n = Int(exactly: i) else {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) is not an integer")
    }
    return n
  }

  func float(_ name: String, default value: Float, _ node: ONNXNode) throws(CenterFaceError) -> Float {
    guard let v = byName[name] else { return value }
    guard case .float(let f) = v, f.isFinite, f >= 0 else {
      throw .unexpectedGraph("\(node.opType) \(node.name): \(name) is not a non-negative number")
    }
    return f
  }

  func expectAutoPadNotSet(_ node: ONNXNode) throws(CenterFaceError) {
    guard let v = byName["auto_pad"] else { return }
    guard case .string(let s) = v, s == Array("NOTSET".utf8) else {
      throw .unexpectedGraph("\(node.opType) \(node.name) has auto_pad (explicit pads only)")
    }
  }
}
