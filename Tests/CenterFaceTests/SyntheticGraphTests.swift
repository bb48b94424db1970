import Foundation
import PhotoCore
import Testing

@testable import CenterFace

/// A small random network with every piece CenterFace's graph has (a full 3×3 convolution with
/// stride 2, inverted residual blocks with and without a residual, a block without expansion,
/// a 3×3 convolution, a transposed convolution with a folded batch normalisation, a residual
/// added into a 1×1 convolution, an addition nothing can fuse, the four heads), at a size whose
/// rows are no multiple of the kernels' 6-pixel blocks, against the reference computation in
/// Double.
func syntheticNetwork(width: Int = 160, height: Int = 96, seed: UInt64 = 7) -> (GraphBuilder, [String]) {
  var input = RefTensor(c: 3, h: height, w: width)
  var rng: UInt64 = seed
  for i in input.v.indices {
    rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    input.v[i] = Double(rng >> 56)
  }
  var g = GraphBuilder(seed: seed, input: input)
  var x = g.relu(g.conv("input", 8, k: 3, stride: 2))  // 80 wide
  x = g.relu(g.conv(x, 8, k: 3, depthwise: true))
  let a = g.conv(x, 16, k: 1)  // block: 3×3 expansion, depthwise, projection
  x = g.relu(g.conv(a, 24, k: 1))
  x = g.relu(g.conv(x, 24, k: 3, stride: 2, depthwise: true))
  let b = g.conv(x, 16, k: 1)  // 40 wide, block with stride 2
  x = g.relu(g.conv(b, 40, k: 1))
  x = g.relu(g.conv(x, 40, k: 3, depthwise: true))
  let c = g.add(b, g.conv(x, 16, k: 1))  // block with a residual
  let d = g.relu(g.conv(c, 24, k: 3, stride: 2))  // 20 wide, full 3×3
  x = g.relu(g.conv(d, 24, k: 3, depthwise: true))  // two readers: not a block
  let d2 = g.add(g.conv(x, 24, k: 1), x)
  let e = g.relu(g.batchNorm(g.transposed(d2, 12)))  // back to 40 wide
  let f = g.add(e, g.relu(g.conv(c, 12, k: 1)))  // residual after the ReLU
  let h = g.relu(g.conv(f, 12, k: 3))
  let h2 = g.add(h, h)  // nothing to fuse into
  let heat = g.sigmoid(g.conv(h2, 1, k: 1))
  let outputs = [heat, g.conv(h2, 2, k: 1), g.conv(h2, 2, k: 1), g.conv(h2, 10, k: 1)]
  return (g, outputs)
}

@Suite struct SyntheticGraphTests {
  /// The network's input tensor (3 x h x w, values 0-255) as an opaque image.
  static func image(of input: RefTensor) -> Image {
    var bytes = [UInt8](repeating: 255, count: input.w * input.h * 4)
    for y in 0..<input.h {
      for x in 0..<input.w {
        for ch in 0..<3 { bytes[(y * input.w + x) * 4 + ch] = UInt8(input[ch, y, x]) }
      }
    }
    return Image(width: input.w, height: input.h, bytes: bytes)
  }

  @Test(arguments: CenterFaceKernel.allCases.filter(\.isAvailable))
  func everyStepMatchesTheReference(kernel: CenterFaceKernel) throws {
    let (g, outputs) = syntheticNetwork()
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs), kernel: kernel)
    // The plan fused what it should: two blocks with expansion, one convolution + residual.
    let blocks = m.plan.steps.filter { if case .block = $0 { true } else { false } }.count
    #expect(blocks == 3)
    // The four heads are one convolution of 15 channels.
    #expect(m.plan.heads.map { m.plan.values[$0].channels } == 15)
    let input = g.values["input"]!
    let image = Self.image(of: input)
    let maps = m.outputMaps(for: image, scaledWidth: input.w, scaledHeight: input.h)
    var channel = 0
    var worst = 0.0
    for name in outputs {
      let r = g.values[name]!
      #expect(r.w == maps.width && r.h == maps.height)
      for c in 0..<r.c {
        for i in 0..<(r.w * r.h) {
          let expected = r.v[c * r.w * r.h + i]
          let d = abs(Double(maps.channels[channel][i]) - expected) / max(1, abs(expected))
          worst = max(worst, d)
        }
        channel += 1
      }
    }
    #expect(channel == 15)
    #expect(worst < 1e-5, "worst relative difference \(worst)")
    print("synthetic [\(kernel)]: worst relative difference \(worst)")
  }

  /// Baseline rounds a multiply then an add, the others fuse them: they differ in the last bits.
  /// AVX2 and AVX-512 make the same sums in the same order with the same fused operations (only
  /// the vector width differs), so they agree to the bit.
  @Test func kernelBuildsAgree() throws {
    let (g, outputs) = syntheticNetwork(width: 224, height: 128, seed: 11)
    let file = g.model(outputs: outputs)
    let image = Image(width: 224, height: 128, fill: RGBA(90, 140, 200))
    var results: [CenterFaceKernel: [Float]] = [:]
    for k in CenterFaceKernel.allCases where k.isAvailable {
      let m = try CenterFaceModel(onnx: file, kernel: k)
      results[k] = m.outputMaps(for: image, scaledWidth: 224, scaledHeight: 128).channels.flatMap { $0 }
    }
    let baseline = results[.baseline]!
    for (k, r) in results where k != .baseline {
      let worst = zip(r, baseline).map { abs($0 - $1) / max(1, abs($1)) }.max()!
      #expect(worst < 1e-5, "\(k) against baseline: \(worst)")
      #expect(r != baseline, "\(k) fuses multiply-adds: it cannot be bit-identical to baseline")
    }
    if let a = results[.avx2], let b = results[.avx512] {
      #expect(a == b, "AVX2 and AVX-512 differ")
    }
  }

  /// Blocks run their rows in strips of columns; cutting the rows into strips of 8 columns
  /// (every strip edge recomputing its neighbours' expanded columns) gives the same bits as
  /// whole rows.
  @Test(arguments: CenterFaceKernel.allCases.filter(\.isAvailable))
  func blockStripsGiveTheSameBits(kernel: CenterFaceKernel) throws {
    let (g, outputs) = syntheticNetwork(width: 224, height: 128, seed: 5)
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs), kernel: kernel)
    let input = g.values["input"]!
    let image = Self.image(of: input)
    let whole = m.outputMaps(for: image, scaledWidth: input.w, scaledHeight: input.h, stripBytes: 1 << 30)
    let strips = m.outputMaps(for: image, scaledWidth: input.w, scaledHeight: input.h, stripBytes: 1)
    #expect(NetworkPlan.stripWidth(outputWidth: 112, channels: 8, stride: 1, bytes: 1) == 8)
    #expect(whole.channels == strips.channels)
    #expect(whole.channels[0].contains { $0 > 0.01 && $0 < 0.99 })
  }

  /// On CenterFace itself (whose depthwise convolutions all have a multiple of 16 channels, so
  /// AVX-512 runs its own 16-channel depthwise kernel, its 64- and 24-channel panels), AVX2 and
  /// AVX-512 give the same bits.
  @Test(.enabled(if: CenterFaceKernel.avx512.isAvailable))
  func avx512MatchesAVX2OnCenterFace() throws {
    let image = try decodedFixture("faces/astronaut.png")
    let a = try model(.avx2).outputMaps(for: image, scaledWidth: image.width, scaledHeight: image.height)
    let b = try model(.avx512).outputMaps(for: image, scaledWidth: image.width, scaledHeight: image.height)
    #expect(a.channels == b.channels)
    #expect(a.channels[0].max()! > 0.9)
  }

}
