import PhotoCore
import Testing

@testable import CenterFace

/// How little a run of the network holds: the input made a few rows at a time as CenterFace's
/// first block (a 3×3, stride-2 convolution of the RGB input, then a depthwise one and a
/// projection) reads them, never whole; the tensors in one buffer at planned offsets.
@Suite struct RunMemoryTests {
  @Test(arguments: CenterFaceKernel.allCases.filter(\.isAvailable))
  func aStreamedInputGivesTheSameBitsAsAWholeOne(kernel: CenterFaceKernel) throws {
    let m = try model(kernel)
    #expect(m.plan.streamsInput)
    // At most 5.5 floats per input pixel at once (the first block's 16 channels at half size,
    // the second's 24 at a quarter), where holding the input (4 floats a pixel) made 8.
    #expect(m.plan.floatsPerInputPixel == 5.5)
    let image = try decodedFixture("faces/astronaut.png")
    // Full size; a resampled input (area averages); rows cut into strips of 8 columns.
    for (w, h, strip) in [
      (512, 512, NetworkPlan.stripBytes), (300, 200, NetworkPlan.stripBytes), (512, 512, 1),
    ] {
      let streamed = m.outputMaps(for: image, scaledWidth: w, scaledHeight: h, stripBytes: strip)
      let whole = m.outputMaps(
        for: image, scaledWidth: w, scaledHeight: h, stripBytes: strip, wholeInput: true)
      #expect(streamed.channels == whole.channels, "\(w)x\(h), strips of \(strip) bytes")
      #expect(streamed.channels[0].max()! > 0.5, "the face is found")
    }
  }

  /// The layout of a 24 MP photo's largest tile at full size: no two tensors alive at the same
  /// step share a float, and the buffer is the most floats alive at once, to within alignment.
  @Test func tensorsAliveTogetherNeverShareAFloat() throws {
    let plan = try model().plan
    let (w, h) = (2272, 2144)
    for placesInput in [false, true] {
      let layout = TensorLayout(plan, width: w, height: h, placesInput: placesInput)
      var start = [Int](repeating: -2, count: plan.values.count)
      if placesInput { start[plan.input] = -1 }
      for (i, step) in plan.steps.enumerated() { start[step.output] = i }
      let placed = plan.values.indices.filter { start[$0] > -2 }
      #expect(placed.allSatisfy { layout.offsets[$0] != nil })
      func floats(_ v: Int) -> Int {
        let (vw, vh) = plan.size(of: v, width: w, height: h)
        return vw * vh * plan.values[v].pixelStride
      }
      func end(_ v: Int) -> Int { max(start[v], min(plan.lastUse[v], plan.steps.count)) }
      var mostAlive = 0
      for step in -1...plan.steps.count {
        let alive = placed.filter { start[$0] <= step && step <= end($0) }
        mostAlive = max(mostAlive, alive.map(floats).reduce(0, +))
        for a in alive {
          for b in alive where a < b {
            let (oa, ob) = (layout.offsets[a]!, layout.offsets[b]!)
            #expect(
              oa + floats(a) <= ob || ob + floats(b) <= oa, "values \(a) and \(b) overlap at step \(step)")
          }
        }
      }
      #expect(layout.floats >= mostAlive)
      #expect(
        Double(layout.floats) <= Double(mostAlive) * 1.01, "\(layout.floats) floats for \(mostAlive) alive")
      #expect(placesInput || Double(mostAlive) == plan.floatsPerInputPixel * Double(w * h))
    }
  }

  /// A search's estimate, which it draws from the process's memory budget before it starts,
  /// covers what its runs take; a 24 MP photo's largest tile at full size takes under 120 MiB.
  @Test func theEstimateCoversWhatARunTakes() throws {
    let m = try model()
    let image = Image(width: 2000, height: 1500, fill: RGBA(90, 120, 150))
    let options = CenterFaceOptions(maxTilePixels: 1_000_000)
    let arena = BufferArena()
    let sampler = InputSampler(image, scaledWidth: 2000, scaledHeight: 1500)
    _ = m.candidates(
      sampler: sampler, threshold: 0.5, margin: options.tileMargin, maxTilePixels: options.maxTilePixels,
      arena: arena)
    let estimate = m.memoryEstimate(
      width: 2000, height: 1500, margin: options.tileMargin, maxTilePixels: options.maxTilePixels, limit: 0)
    #expect(arena.allocatedFloats > 0)
    #expect(
      arena.allocatedFloats * 4 <= estimate, "\(arena.allocatedFloats * 4) bytes taken, \(estimate) estimated"
    )
    let tile = m.plan.runFloats(width: 2272, height: 2144) * 4
    #expect(tile < 120 << 20, "\(tile) bytes")
  }
}

/// A first block of each shape a model may have (its convolution 1×1 or 3×3, stride 1 or 2),
/// with its input streamed: the same bits as a whole input, and the reference computation's
/// values, for rows cut into strips of 8 columns and whole.
@Suite struct StreamedFirstBlockTests {
  /// input → convolution (k, stride) with ReLU → depthwise 3×3 with ReLU → 1×1 projection (the
  /// first block), then 3×3 stride-2 convolutions down to a quarter, then the four heads.
  static func network(k: Int, stride: Int) -> (GraphBuilder, [String]) {
    var input = RefTensor(c: 3, h: 64, w: 96)
    var rng: UInt64 = 3
    for i in input.v.indices {
      rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      input.v[i] = Double(rng >> 56)
    }
    var g = GraphBuilder(seed: 9, input: input)
    var x = g.relu(g.conv("input", 8, k: k, stride: stride))
    x = g.relu(g.conv(x, 8, k: 3, depthwise: true))
    x = g.conv(x, 16, k: 1)
    for _ in 0..<(stride == 1 ? 2 : 1) { x = g.relu(g.conv(x, 16, k: 3, stride: 2)) }
    let heat = g.sigmoid(g.conv(x, 1, k: 1))
    let outputs = [heat, g.conv(x, 2, k: 1), g.conv(x, 2, k: 1), g.conv(x, 10, k: 1)]
    return (g, outputs)
  }

  /// A network whose first step is no block (two full 3×3 convolutions, then the heads) cannot
  /// stream its input: it is made whole in the run's buffer, with the same values.
  @Test func aNetworkThatCannotStreamHoldsItsInput() throws {
    var input = RefTensor(c: 3, h: 64, w: 96)
    for i in input.v.indices { input.v[i] = Double((i * 37) % 256) }
    var g = GraphBuilder(seed: 4, input: input)
    var x = g.relu(g.conv("input", 8, k: 3, stride: 2))
    x = g.relu(g.conv(x, 16, k: 3, stride: 2))
    let heat = g.sigmoid(g.conv(x, 1, k: 1))
    let outputs = [heat, g.conv(x, 2, k: 1), g.conv(x, 2, k: 1), g.conv(x, 10, k: 1)]
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs), kernel: .best)
    #expect(!m.plan.streamsInput)
    let layout = TensorLayout(m.plan, width: 96, height: 64, placesInput: true)
    #expect(layout.offsets[m.plan.input] != nil)
    let image = SyntheticGraphTests.image(of: input)
    let rows = m.outputMaps(for: image, scaledWidth: 96, scaledHeight: 64)
    let whole = m.outputMaps(for: image, scaledWidth: 96, scaledHeight: 64, wholeInput: true)
    #expect(rows.channels == whole.channels)
    let heatmap = g.values[heat]!
    let worst = zip(rows.channels[0], heatmap.v).map { abs(Double($0) - $1) }.max() ?? 1
    #expect(worst < 1e-5, "worst difference \(worst)")
  }

  @Test(arguments: [(1, 1), (1, 2), (3, 1), (3, 2)])
  func aStreamedFirstBlockGivesTheReferenceValues(k: Int, stride: Int) throws {
    let (g, outputs) = Self.network(k: k, stride: stride)
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs), kernel: .best)
    #expect(m.plan.streamsInput)
    let input = g.values["input"]!
    let image = SyntheticGraphTests.image(of: input)
    for strip in [NetworkPlan.stripBytes, 1] {
      let streamed = m.outputMaps(for: image, scaledWidth: 96, scaledHeight: 64, stripBytes: strip)
      let whole = m.outputMaps(
        for: image, scaledWidth: 96, scaledHeight: 64, stripBytes: strip, wholeInput: true)
      #expect(streamed.channels == whole.channels, "strips of \(strip) bytes")
      var (channel, worst) = (0, 0.0)
      for name in outputs {
        let r = g.values[name]!
        for c in 0..<r.c {
          for i in 0..<(r.w * r.h) {
            let expected = r.v[c * r.w * r.h + i]
            worst = max(worst, abs(Double(streamed.channels[channel][i]) - expected) / max(1, abs(expected)))
          }
          channel += 1
        }
      }
      #expect(channel == 15)
      #expect(worst < 1e-5, "worst relative difference \(worst)")
    }
  }
}
