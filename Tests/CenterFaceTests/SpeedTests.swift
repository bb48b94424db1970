import Foundation
import PhotoCore
import Testing

@testable import CenterFace

/// Per-step times of one run at 1920×1280, for tuning; runs only with PHOTOEDIT_BENCH=1
/// (speed is measured, never asserted).
@Suite struct SpeedTests {
  @Test(.enabled(if: ProcessInfo.processInfo.environment["PHOTOEDIT_BENCH"] == "1"))
  func stepTimes() throws {
    for kernel in CenterFaceKernel.allCases where kernel.isAvailable {
      let m = try model(kernel)
      let (w, h) = (1920, 1280)
      var input = [Float](repeating: 0, count: w * h * 4)
      var seed: UInt32 = 1
      for i in input.indices where i % 4 != 3 {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        input[i] = Float(seed >> 24)
      }
      var times = [Duration](repeating: .zero, count: m.plan.steps.count)
      let arena = BufferArena()
      for round in 0..<3 {
        input.withUnsafeMutableBufferPointer { p in
          m.plan.run(
            input: p.baseAddress!, width: w, height: h, kernel: kernel, arena: arena,
            observer: { i, d in if round > 0 { times[i] += d } }
          ) { _ in }
        }
      }
      var total = Duration.zero
      var byKind: [String: Duration] = [:]
      for (i, step) in m.plan.steps.enumerated() {
        let kind: String
        switch step {
        case .convolution(let c): kind = "conv\(c.kernelSize)x\(c.kernelSize)"
        case .depthwise: kind = "depthwise"
        case .transposed: kind = "transposed"
        default: kind = "pointwise"
        }
        byKind[kind, default: .zero] += times[i] / 2
        total += times[i] / 2
        print("[\(kernel)] step \(i) \(kind) \(m.plan.values[step.output].channels)ch: \(times[i] / 2)")
      }
      for (k, d) in byKind.sorted(by: { $0.key < $1.key }) { print("[\(kernel)] \(k): \(d)") }
      print("[\(kernel)] total \(total) for \(Int(m.macsPerInputPixel * Double(w * h) / 1e6)) M MAC")
    }
  }
}
