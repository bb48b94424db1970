import Testing

@testable import PhotoCore

#if canImport(Glibc)
  import Glibc
#endif

/// Times each kernel on a 24 MP (6000×4000) synthetic image. Runs only with PHOTOEDIT_BENCH=1,
/// in release mode:
///
///     PHOTOEDIT_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter KernelSpeedTests
@Suite(.enabled(if: getenv("PHOTOEDIT_BENCH") != nil)) struct KernelSpeedTests {
  static func processCPUMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
  }

  /// The median wall time and the median process CPU time (all threads) of `body` on a fresh
  /// copy of `base` (the copy is not timed). CPU time is steadier on a shared machine.
  static func milliseconds(_ runs: Int = 5, base: Image, _ body: (inout Image) -> Void) -> (
    wall: Double, cpu: Double
  ) {
    let clock = ContinuousClock()
    var walls: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<runs {
      var image = base
      image.bytes[0] = base.bytes[0] &+ 1  // force the copy before the clock starts
      let cpu = processCPUMilliseconds()
      let start = clock.now
      body(&image)
      let d = start.duration(to: clock.now)
      cpus.append(processCPUMilliseconds() - cpu)
      walls.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15)
    }
    return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
  }

  @Test func kernelsOn24Megapixels() {
    let (w, h) = (6000, 4000)
    var base = Image(width: w, height: h)
    base.bytes.withUnsafeMutableBufferPointer { p in
      for i in 0..<p.count {
        p[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) | (i & 3 == 3 ? 255 : 0)
      }
    }
    var results: [(String, (wall: Double, cpu: Double))] = []
    func time(_ name: String, _ body: (inout Image) -> Void) {
      results.append((name, Self.milliseconds(base: base, body)))
    }
    time("sepia") { $0.applySepia(intensity: 0.8) }
    time("vignette") { $0.applyVignette(intensity: 1, radius: 1) }
    time("pixelate circle r=1500 block 40") {
      $0.pixelate(.circle(centerX: 3000, centerY: 2000, radius: 1500), blockSize: 40)
    }
    time("pixelate whole image block 16") {
      $0.pixelate(.rectangle(x: 0, y: 0, width: w, height: h), blockSize: 16)
    }
    time("crop to 4000x3000") { $0 = $0.cropped(x: 1000, y: 500, width: 4000, height: 3000) }
    time("circle mask (4000x4000 crop)") { image in
      image = image.cropped(x: 1000, y: 0, width: 4000, height: 4000)
      image.maskToInscribedCircle()
    }
    time("brush 10 segments, 50 px") { image in
      image.drawStroke(
        (0..<11).map { (x: Double($0 * 550), y: Double(1000 + ($0 % 2) * 2000)) },
        pen: Pen(color: RGBA(0, 0, 255), size: 50, hardness: 0.8))
    }
    time("blur circle r=300, radius 30") {
      $0.blur(.circle(centerX: 3000, centerY: 2000, radius: 300), radius: 30)
    }
    time("rotate 90") { $0 = $0.rotated(quarterTurns: 1) }
    for (name, ms) in results {
      print(
        "kernel \(name): \(Int(ms.wall.rounded())) ms wall, \(Int(ms.cpu.rounded())) ms CPU"
          + " (medians of 5, \(w)x\(h), \(Parallel.workerCount) workers)")
    }
  }
}
