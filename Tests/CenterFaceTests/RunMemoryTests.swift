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
