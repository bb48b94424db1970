import Foundation
import PhotoCore
import Testing

@testable import CenterFace

/// The multiply-add counter (`NetworkPlan.work`) behind docs/centerface.md's "The ceiling":
/// checked against figures computed by hand on a small network, so that it cannot drift from
/// the runner's loops unnoticed; and, with PHOTOEDIT_BENCH=1, the table for a 24 MP photo.
@Suite struct WorkCountTests {
  /// conv 3×3 stride 2 (3 → 8, ReLU); block: 1×1 (8 → 16, ReLU), depthwise 3×3 stride 2 (ReLU),
  /// 1×1 (16 → 8); the four heads (1 + 2 + 2 + 10 channels) on its output. Input 64 × 32.
  @Test func smallNetworkByHand() throws {
    var input = RefTensor(c: 3, h: 32, w: 64)
    for i in input.v.indices { input.v[i] = Double(i % 251) }
    var g = GraphBuilder(seed: 3, input: input)
    let a = g.relu(g.conv("input", 8, k: 3, stride: 2))  // 32 × 16
    let e = g.relu(g.conv(a, 16, k: 1))
    let d = g.relu(g.conv(e, 16, k: 3, stride: 2, depthwise: true))  // 16 × 8
    let p = g.conv(d, 8, k: 1)
    let outputs = [
      g.sigmoid(g.conv(p, 1, k: 1)), g.conv(p, 2, k: 1), g.conv(p, 2, k: 1), g.conv(p, 10, k: 1),
    ]
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs), kernel: .baseline)
    for workers in [1, 2, 8] {
      let w = m.plan.work(width: 64, height: 32, workers: workers)
      #expect(w.map(\.kind) == ["conv3x3", "block", "heads"])
      // The graph: 8×3×9 per pixel of 32×16; 16×8 per pixel of 32×16, 9×16 and 8×16 per pixel
      // of 16×8; 15×8 per pixel of 16×8.
      #expect(w.map(\.model) == [110_592, 65_536 + 18_432 + 16_384, 15_360])
      #expect(w.map(\.depthwise) == [0, 18_432, 0])
      #expect(Double(w.reduce(0) { $0 + $1.model }) == m.macsPerInputPixel * 64 * 32)
      // Issued: the 3×3 as three window rows of 3 × 4 input floats into 8 outputs, 36 pixels a
      // row (blocks of 6) × 16 rows. The block's output rows in two chunks (0-3 and 4-7), whose
      // rings compute expanded rows 0-7 and 7-15 (17 rows), each of 32 columns as 36 pixels, 16
      // × 8 each; depthwise 9 × 16 × 128; projection 18 pixels a row × 8 rows, 8 × 16 each. The
      // heads: 16 channels (15 padded) × 8 over 18 × 8 pixels.
      #expect(w.map(\.issued) == [288 * 36 * 16, 17 * 36 * 128 + 18_432 + 8 * 18 * 128, 128 * 18 * 8])
    }
  }

  /// The real model: the counter's graph figure is the plan's `macsPerInputPixel` at any size.
  @Test func realModelAgreesWithThePlan() throws {
    let m = try model()
    for (w, h) in [(640, 480), (3552, 2112), (384, 256)] {
      let total = m.plan.work(width: w, height: h).reduce(0) { $0 + $1.model }
      #expect(abs(Double(total) - m.macsPerInputPixel * Double(w * h)) < 1)
    }
  }

  /// The multiply-adds of a 6000 × 4000 photo searched as `CenterFaceDetector` searches it:
  /// every scale of the pyramid, every tile with its margins. Printed for docs/centerface.md.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["PHOTOEDIT_BENCH"] == "1"))
  func twentyFourMegapixels() throws {
    let m = try model()
    let (width, height) = (6000, 4000)
    let detector = CenterFaceDetector(model: m, checksum: "")
    let o = detector.base
    var total = (pixels: 0, model: 0, issued: 0)
    print("scale | resampled | padded | tiles | pixels run | graph MACs | issued MACs")
    for scale in detector.scales(width: width, height: height, options: DetectionOptions()) {
      let sw = max(1, min(width, Int((Double(width) * scale).rounded())))
      let sh = max(1, min(height, Int((Double(height) * scale).rounded())))
      let a = NetworkPlan.alignment
      let (pw, ph) = ((sw + a - 1) / a * a, (sh + a - 1) / a * a)
      let grid = TileGrid(width: pw, height: ph, margin: o.tileMargin, maxPixels: o.maxTilePixels)
      var row = (pixels: 0, model: 0, issued: 0)
      for t in grid.tiles {
        let w = m.plan.work(width: t.width, height: t.height)
        row.pixels += t.width * t.height
        row.model += w.reduce(0) { $0 + $1.model }
        row.issued += w.reduce(0) { $0 + $1.issued }
      }
      let sizes = Set(grid.tiles.map { "\($0.width)x\($0.height)" }).sorted().joined(separator: ", ")
      print(
        "\(scale) | \(sw)x\(sh) | \(pw)x\(ph) | \(grid.tiles.count) (\(sizes)) | \(row.pixels) | \(row.model) | \(row.issued)"
      )
      total = (total.pixels + row.pixels, total.model + row.model, total.issued + row.issued)
    }
    print("total | | | | \(total.pixels) | \(total.model) | \(total.issued)")
    // By kind, at full size (the largest tile).
    let grid = TileGrid(width: 6016, height: 4000, margin: o.tileMargin, maxPixels: o.maxTilePixels)
    var byKind: [String: (Int, Int, Int)] = [:]
    for t in grid.tiles {
      for s in m.plan.work(width: t.width, height: t.height) {
        byKind[s.kind, default: (0, 0, 0)].0 += s.model
        byKind[s.kind, default: (0, 0, 0)].1 += s.issued
        byKind[s.kind, default: (0, 0, 0)].2 += s.depthwise
      }
    }
    for (k, v) in byKind.sorted(by: { $0.key < $1.key }) {
      print("full size, \(k): graph \(v.0) issued \(v.1) (graph depthwise \(v.2))")
    }

    // CPU seconds (both threads, the process's getrusage) of each step of the largest full-size
    // tile, the least of 3 runs, beside its multiply-adds: FLOP/s per CPU second by kind.
    let t = grid.tiles.max { $0.width * $0.height < $1.width * $1.height }!
    var input = [Float](repeating: 0, count: t.width * t.height * 4)
    var seed: UInt32 = 1
    for i in input.indices where i % 4 != 3 {
      seed = seed &* 1_664_525 &+ 1_013_904_223
      input[i] = Float(seed >> 24)
    }
    let work = m.plan.work(width: t.width, height: t.height)
    var cpu = [Double](repeating: .infinity, count: m.plan.steps.count)
    var runs: [Double] = []
    let arena = BufferArena()
    for _ in 0..<3 {
      let start = cpuSeconds()
      var last = start
      input.withUnsafeMutableBufferPointer { p in
        m.plan.run(
          input: p.baseAddress!, width: t.width, height: t.height, kernel: m.kernel, arena: arena,
          observer: { i, _ in
            let now = cpuSeconds()
            cpu[i] = min(cpu[i], now - last)
            last = now
          }
        ) { _ in }
      }
      runs.append(cpuSeconds() - start)
    }
    var kinds: [String: (model: Int, issued: Int, cpu: Double)] = [:]
    var w = 0
    for (i, step) in m.plan.steps.enumerated() {
      let kind: String
      switch step {
      case .convolution, .block, .depthwise, .transposed:
        kind = work[w].kind
        kinds[kind, default: (0, 0, 0)].model += work[w].model
        kinds[kind, default: (0, 0, 0)].issued += work[w].issued
        w += 1
      default: kind = "pointwise"
      }
      kinds[kind, default: (0, 0, 0)].cpu += cpu[i]
    }
    print(
      "tile \(t.width)x\(t.height), \(Parallel.workerCount) threads, run CPU \(runs.map { String(format: "%.3f", $0) })"
    )
    for (k, v) in kinds.sorted(by: { $0.value.cpu > $1.value.cpu }) {
      print(
        k + ": "
          + String(
            format:
              "graph %.2f G, issued %.2f G MACs, CPU %.3f s, %.1f GFLOP/s per CPU second (graph), %.1f (issued)",
            Double(v.model) / 1e9, Double(v.issued) / 1e9, v.cpu, 2 * Double(v.model) / v.cpu / 1e9,
            2 * Double(v.issued) / v.cpu / 1e9))
    }
  }
}

/// User and system CPU time of the whole process so far.
private func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
  return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}
