import Foundation
import Testing

@testable import PhotoCore

/// Each build of the Haar stump kernels (baseline, AVX2, AVX-512: every one this processor runs)
/// gives exactly the scalar evaluator's verdicts and OpenCV's boxes.
@Suite struct HaarKernelBuildTests {
  static let kernels = HaarKernel.allCases.filter(\.isAvailable)

  @Test func theBestBuildIsOneThatRuns() {
    #expect(HaarKernel.best.isAvailable)
    #expect(Self.kernels.contains(.baseline))
  }

  /// Noise with flat patches, smoothed a little so that some windows pass stage 0, and a face of
  /// about 26 pixels pasted in, for windows that pass every stage: 90x70.
  static func noiseWithAFace() throws -> GreyImage {
    let image = noiseGrey(width: 90, height: 70, seed: 77, flatEvery: 2)
    var smooth = image.resized(width: 45, height: 35).resized(width: 90, height: 70)
    for i in stride(from: 0, to: smooth.pixels.count, by: 7) { smooth.pixels[i] = image.pixels[i] }
    let face = GreyImage(try decodedFixture("faces/hopper.jpg")).resized(width: 60, height: 60)
    for y in 0..<60 {
      for x in 0..<60 { smooth.pixels[(y + 8) * 90 + x + 28] = face.pixels[y * 60 + x] }
    }
    return smooth
  }

  /// Every window of real photos at several sizes, and of ``noiseWithAFace()``, in both column
  /// layouts: the kernels' stage-0 codes and variance factors, and the windows their later stages
  /// pass, are the scalar evaluator's.
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func everyWindowMatchesTheScalarEvaluator(kernel: HaarKernel) throws {
    let cascade = try defaultCascade.get()
    var codesSeen: [String: Set<Int8>] = [:]
    var passedAll: [String: Int] = [:]
    var inputs = [("noise with a face", try Self.noiseWithAFace())]
    for (path, widths) in [("faces/hopper.jpg", [70, 101, 160]), ("faces/astronaut.png", [93, 150])] {
      let photo = GreyImage(try decodedFixture(path))
      for w in widths {
        inputs.append((path, photo.resized(width: w, height: max(24, photo.height * w / photo.width))))
      }
    }
    for (path, grey) in inputs {
      let (w, h) = (grey.width, grey.height)
      let whole = IntegralImage(grey, tilted: false)
      let scalar = CascadeEvaluator(cascade, stride: whole.stride, tiltedOffset: 0)
      for step in [1, 2] {
        let layout: CascadeEvaluator.Layout = step == 1 ? .plain : .evenOdd(half: (w + 2) / 2)
        let table = IntegralRows(width: w, capacity: h + 1, layout: layout, tilted: false, sourceRows: h)
        grey.pixels.withUnsafeBufferPointer { px in
          for y in 0..<h { table.append(px.baseAddress! + y * w) }
        }
        let evaluator = CascadeEvaluator(
          cascade, stride: table.stride, tiltedOffset: 0, layout: layout, kernel: kernel)
        #expect(evaluator.laneReady)
        let count = (w + 1 - cascade.windowWidth + step - 1) / step
        let pad = CascadeEvaluator.lanePadding
        var codes = [Int8](repeating: 9, count: count + pad)
        var factors = [Float](repeating: 0, count: count + pad)
        var hits = [Int32](repeating: -1, count: count)
        for y in 0...(h - cascade.windowHeight) {
          let p = UnsafePointer(table.values + y * table.stride)
          let q = UnsafePointer(table.squares + y * table.stride)
          evaluator.firstStage(p, q, count: count, codes: &codes, factors: &factors)
          var expectedHits: [Int32] = []
          for i in 0..<count {
            let offset = y * whole.stride + i * step
            let wp = UnsafePointer(whole.values + offset)
            let wq = UnsafePointer(whole.squares + offset)
            let factor = scalar.varianceFactor(wp, wq)
            let verdict = scalar.evaluate(wp, wq)
            let expected: Int8 = factor == nil ? -1 : (verdict == 0 ? 0 : 1)
            #expect(codes[i] == expected, "\(path) \(w)x\(h) [\(kernel)] window (\(i * step), \(y))")
            codesSeen[path, default: []].insert(codes[i])
            if let factor, codes[i] == 1 {
              #expect(factors[i] == factor)
              #expect(scalar.stumpStages(wp, factor: factor, from: 1) == verdict)
            }
            if codes[i] == 1 && verdict == 1 { expectedHits.append(Int32(i)) }
          }
          let flags = codes.indices.map { $0 < count && codes[$0] == 1 ? Int8(1) : 0 }
          let found = evaluator.laterStages(
            p, factors: &factors, flags: flags, count: count, hits: &hits)
          #expect(Array(hits.prefix(found)) == expectedHits, "\(path) \(w)x\(h) [\(kernel)] row \(y)")
          passedAll[path, default: 0] += expectedHits.count
        }
      }
    }
    for path in Set(inputs.map(\.0)) {
      #expect(codesSeen[path] == [-1, 0, 1], "\(path)")
      #expect(passedAll[path, default: 0] > 0, "\(path)")
    }
  }

  /// The later stages of two flagged windows 8 to 15 apart, the first of which fails stage 1 and
  /// the second does not: the AVX-512 build then goes on in the upper 8-lane half of its vector,
  /// also when that vector is the row's last and partial (`count` ends at the second window).
  /// Every build reports the windows that the scalar evaluator passes.
  /// Calls `body` for each row of windows of `grey` with the build's evaluator over an
  /// `IntegralRows` table, the row's table pointer, the number of windows, and each window's
  /// variance factor and how far the scalar evaluator gets it (1: every stage; -k: fails stage k;
  /// 0: no factor, or fails stage 0).
  static func forEachRow(
    of grey: GreyImage, kernel: HaarKernel,
    _ body: (CascadeEvaluator, Int, UnsafePointer<Int32>, Int, inout [Float], [Int]) -> Void
  ) throws {
    let cascade = try defaultCascade.get()
    let (w, h) = (grey.width, grey.height)
    let whole = IntegralImage(grey, tilted: false)
    let scalar = CascadeEvaluator(cascade, stride: whole.stride, tiltedOffset: 0)
    let table = IntegralRows(width: w, capacity: h + 1, layout: .plain, tilted: false, sourceRows: h)
    grey.pixels.withUnsafeBufferPointer { px in
      for y in 0..<h { table.append(px.baseAddress! + y * w) }
    }
    let evaluator = CascadeEvaluator(cascade, stride: table.stride, tiltedOffset: 0, kernel: kernel)
    let count = w + 1 - cascade.windowWidth
    for y in 0...(h - cascade.windowHeight) {
      var factors = [Float](repeating: 0, count: count + CascadeEvaluator.lanePadding)
      var verdicts = [Int](repeating: 0, count: count)
      for i in 0..<count {
        let (wp, wq) = (whole.values + y * whole.stride + i, whole.squares + y * whole.stride + i)
        guard let factor = scalar.varianceFactor(wp, wq) else { continue }
        (factors[i], verdicts[i]) = (factor, scalar.stumpStages(wp, factor: factor, from: 0))
      }
      body(evaluator, y, UnsafePointer(table.values + y * table.stride), count, &factors, verdicts)
    }
  }

  /// The later stages of two flagged windows 8 to 15 apart, the first of which fails stage 1 and
  /// the second does not: the AVX-512 build then goes on in the upper 8-lane half of its vector,
  /// also when that vector is the row's last and partial (`count` ends at the second window).
  /// Every build reports the windows that the scalar evaluator passes.
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func laterStagesGoOnInEitherHalf(kernel: HaarKernel) throws {
    var (pairs, deeper) = (0, 0)
    try Self.forEachRow(of: try Self.noiseWithAFace(), kernel: kernel) {
      evaluator, y, p, count, factors, verdicts in
      let pad = CascadeEvaluator.lanePadding
      for a in 0..<count where verdicts[a] == -1 {
        let partners = stride(from: a + 8, to: min(a + 16, count), by: 1)
        for b in partners where verdicts[b] == 1 || verdicts[b] < -1 {
          for end in [count, b + 1] {
            var flags = [Int8](repeating: 0, count: count + pad)
            (flags[a], flags[b]) = (1, 1)
            var hits = [Int32](repeating: -1, count: count)
            let found = evaluator.laterStages(p, factors: &factors, flags: flags, count: end, hits: &hits)
            #expect(
              Array(hits.prefix(found)) == (verdicts[b] == 1 ? [Int32(b)] : []),
              "[\(kernel)] row \(y), windows \(a) and \(b), count \(end)")
            pairs += 1
          }
          deeper += verdicts[b] == 1 || verdicts[b] < -3 ? 1 : 0
        }
      }
    }
    #expect(pairs > 100 && deeper > 10, "\(pairs) pairs, \(deeper) going past stage 3")
  }

  /// Windows found in blocks that narrow at different stages still come out in increasing order:
  /// on two copies of ``noiseWithAFace()`` side by side, a window that passes every stage with one
  /// 8 to 15 windows after it that passes stage 1 (so the AVX-512 build keeps their block 16 lanes
  /// wide past stage 1), and the same window in the second copy, alone in its block (8 lanes from
  /// stage 1 on).
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func windowsComeOutInOrder(kernel: HaarKernel) throws {
    let windowWidth = try defaultCascade.get().windowWidth
    let one = try Self.noiseWithAFace()
    var pixels: [UInt8] = []
    for y in 0..<one.height {
      let row = one.pixels[(y * one.width)..<((y + 1) * one.width)]
      pixels += row + row
    }
    let grey = GreyImage(width: 2 * one.width, height: one.height, pixels: pixels)
    var triples = 0
    try Self.forEachRow(of: grey, kernel: kernel) { evaluator, y, p, count, factors, verdicts in
      for a in 0..<(one.width + 1 - windowWidth) where verdicts[a] == 1 {
        let second = a + one.width
        for c in (a + 8)...(a + 15) where verdicts[c] <= -2 {
          var flags = [Int8](repeating: 0, count: count + CascadeEvaluator.lanePadding)
          for i in [a, c, second] { flags[i] = 1 }
          var hits = [Int32](repeating: -1, count: count)
          let found = evaluator.laterStages(p, factors: &factors, flags: flags, count: count, hits: &hits)
          let expected = [a, second].filter { verdicts[$0] == 1 }.map(Int32.init)
          #expect(
            Array(hits.prefix(found)) == expected, "[\(kernel)] row \(y), windows \(a), \(c), \(second)")
          triples += verdicts[second] == 1 ? 1 : 0
        }
      }
    }
    #expect(triples > 3, "\(triples) rows and windows tried")
  }

  /// Forced to each build, the detector finds exactly OpenCV's boxes on the fixture photos.
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func everyBuildFindsOpenCVsBoxes(kernel: HaarKernel) throws {
    let cascade = try defaultCascade.get()
    for path in ["faces/hopper.jpg", "faces/astronaut.png", "photos/coffee.png", "jpeg/xmp_test.jpg"] {
      let reference = try referencePhoto(String(path.split(separator: "/").last!))
      let grey = GreyImage(try decodedFixture(path))
      for run in reference.runs {
        let raw = try HaarDetector.rawDetections(
          in: grey, cascade: cascade, options: run.options, limit: .max, parallel: true, kernel: kernel)
        let ours = RectangleGrouping.group(raw, minNeighbors: run.options.minNeighbors, eps: 0.2)
        #expect(Set(ours) == Set(run.boxes), "\(path) \(run) [\(kernel)]")
      }
    }
  }
}
