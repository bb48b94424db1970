import Foundation
import Testing

@testable import CenterFace

/// The ONNX reader refuses what it does not run, with the fact, and never traps on a damaged
/// file.
@Suite struct ModelFileTests {
  @Test func theRealModelHasTheExpectedInventory() throws {
    let onnx = try ONNXModel(bytes: modelBytes.get())
    #expect(onnx.irVersion == 4)
    #expect(onnx.opsets.map(\.version) == [9])
    var counts: [String: Int] = [:]
    for n in onnx.graph.nodes { counts[n.opType, default: 0] += 1 }
    #expect(
      counts == [
        "Conv": 60, "Relu": 42, "Add": 13, "ConvTranspose": 3, "BatchNormalization": 3, "Sigmoid": 1,
      ])
    // 1.82 M parameters: 1,820,143 floats and 59 int64 counters (num_batches_tracked, unused).
    #expect(onnx.graph.initializers.reduce(0) { $0 + $1.elementCount } == 1_820_202)
    let floats = onnx.graph.initializers.filter { $0.dataType == 1 }.reduce(0) { $0 + $1.elementCount }
    #expect(floats == 1_820_143)
    let m = try model()
    // 17 inverted residual blocks, the rest single steps; 1.85 G multiply-adds at 640×480.
    let blocks = m.plan.steps.filter { if case .block = $0 { true } else { false } }.count
    #expect(blocks == 17)
    #expect(abs(m.macsPerInputPixel * 640 * 480 / 1e9 - 1.85) < 0.01)
    // The input is made as the first block reads it (RunMemoryTests): 5.5 floats a pixel held
    // at most, not 8.
    #expect(m.plan.streamsInput && m.plan.floatsPerInputPixel == 5.5)
  }

  @Test func notONNX() throws {
    #expect(throws: CenterFaceError.notONNX("the file is empty")) { try CenterFaceModel(onnx: []) }
    let jpeg = try fixture("faces/hopper.jpg")
    #expect {
      try CenterFaceModel(onnx: jpeg)
    } throws: { e in
      guard case .notONNX = e as? CenterFaceError else { return false }
      return true
    }
    // A valid protobuf that is no model: a message with only field 2.
    var p = Proto()
    p.string(2, "hello")
    #expect(throws: CenterFaceError.notONNX("no ir_version")) { try CenterFaceModel(onnx: p.bytes) }
  }

  @Test func truncatedFiles() throws {
    let bytes = try modelBytes.get()
    for cut in [20, 100, 5_000, bytes.count / 2, bytes.count - 1] {
      #expect(throws: CenterFaceError.truncated) { try CenterFaceModel(onnx: Array(bytes[0..<cut])) }
    }
  }

  @Test func malformedProtobuf() {
    // Field 1, wire type 3 (a group).
    #expect(throws: CenterFaceError.notONNX("not a protobuf ModelProto (wire type 3 in field 1)")) {
      try CenterFaceModel(onnx: [0x0B, 0x00])
    }
    // An 11-byte varint.
    let overlong: [UInt8] = [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01]
    #expect(throws: CenterFaceError.notONNX("not a protobuf ModelProto (varint longer than 64 bits)")) {
      try CenterFaceModel(onnx: overlong)
    }
  }

  /// A graph edited one way at a time from the synthetic one.
  func edited(_ change: (inout GraphBuilder, inout [String]) -> Void) -> [UInt8] {
    var (g, outputs) = syntheticNetwork(width: 64, height: 64)
    change(&g, &outputs)
    return g.model(outputs: outputs)
  }

  @Test func refusesOtherGraphs() throws {
    let maxPool = edited { g, outputs in
      let x = g.node("MaxPool", [outputs[3]], [.ints("kernel_shape", [2, 2])])
      g.values[x] = g.values[outputs[3]]
      outputs[3] = x
    }
    #expect(throws: CenterFaceError.unsupportedOperator("MaxPool")) { try CenterFaceModel(onnx: maxPool) }

    let threeOutputs = edited { _, outputs in outputs.removeLast() }
    #expect(
      throws: CenterFaceError.unexpectedGraph(
        "3 graph outputs (expected 4: heatmap, scale, offset, landmarks)")
    ) {
      try CenterFaceModel(onnx: threeOutputs)
    }

    let swapped = edited { _, outputs in outputs.swapAt(1, 2) }  // still 2 and 2 channels: fine
    _ = try CenterFaceModel(onnx: swapped)
    let noSigmoid = edited { _, outputs in outputs.swapAt(0, 1) }
    #expect(throws: CenterFaceError.self) { try CenterFaceModel(onnx: noSigmoid) }

    let dilated = edited { g, outputs in
      let x = g.node(
        "Conv", [outputs[3], g.weights([10, 10, 3, 3], scale: 0.1).0],
        [.ints("kernel_shape", [3, 3]), .ints("pads", [2, 2, 2, 2]), .ints("dilations", [2, 2])])
      g.values[x] = g.values[outputs[3]]
      outputs[3] = x
    }
    #expect {
      try CenterFaceModel(onnx: dilated)
    } throws: { e in
      guard case .unexpectedGraph(let why) = e as? CenterFaceError else { return false }
      return why.contains("pads [2, 2, 2, 2]")
    }

    var (g, outputs) = syntheticNetwork(width: 64, height: 64)
    #expect(throws: CenterFaceError.unexpectedGraph("input input has 4 channels (expected 3)")) {
      try CenterFaceModel(onnx: g.model(outputs: outputs, inputChannels: 4))
    }
    #expect(throws: CenterFaceError.unexpectedGraph("ONNX operator set 99 (this reader knows 7 to 17)")) {
      try CenterFaceModel(onnx: g.model(outputs: outputs, opset: 99))
    }
    let grouped = g.node("Conv", [outputs[3], g.weights([10, 5, 1, 1], scale: 0.1).0], [.int("group", 2)])
    g.values[grouped] = g.values[outputs[3]]
    outputs[3] = grouped
    #expect(throws: CenterFaceError.self) { try CenterFaceModel(onnx: g.model(outputs: outputs)) }
  }

  @Test func boundsEverySize() throws {
    // A tensor claiming 2^24 × 2^24 elements.
    var t = Proto()
    t.varint(1, 1 << 24)
    t.varint(1, 1 << 24)
    t.varint(2, 1)
    t.string(8, "huge")
    var g = Proto()
    g.message(5, t)
    var m = Proto()
    m.varint(1, 4)
    m.message(7, g)
    #expect(throws: CenterFaceError.tooLarge("tensor huge has more than 16777216 elements")) {
      try CenterFaceModel(onnx: m.bytes)
    }
    // A length that runs past the end.
    #expect(throws: CenterFaceError.truncated) {
      try CenterFaceModel(onnx: [0x08, 0x04, 0x3A, 0xFF, 0xFF, 0x03])
    }
    // Negative dimensions.
    var n = Proto()
    n.varint(1, -1)
    n.varint(2, 1)
    var g2 = Proto()
    g2.message(5, n)
    var m2 = Proto()
    m2.varint(1, 4)
    m2.message(7, g2)
    #expect(throws: CenterFaceError.tooLarge("tensor  has dimension -1")) {
      try CenterFaceModel(onnx: m2.bytes)
    }
  }

  /// A step that reads the heatmap keeps the heads apart: fusing them drops the sigmoid that
  /// computes the heatmap, and the step then read a tensor that no step had computed (a trap).
  @Test func aStepReadingTheHeatmapKeepsTheHeadsApart() throws {
    var (g, outputs) = syntheticNetwork(width: 64, height: 64)
    _ = g.relu(outputs[0])
    let m = try CenterFaceModel(onnx: g.model(outputs: outputs))
    try #require(m.plan.heads == nil)
    let input = g.values["input"]!
    let maps = m.outputMaps(
      for: SyntheticGraphTests.image(of: input), scaledWidth: input.w, scaledHeight: input.h)
    let heatmap = g.values[outputs[0]]!.v
    #expect(zip(maps.channels[0], heatmap).allSatisfy { abs(Double($0) - $1) < 1e-4 })
  }

  /// One initializer read by many convolutions is packed for each: a file far inside every
  /// `ONNXLimits` (a 2.4 MB tensor, read 40 times) is refused before its plan holds 94 MB.
  @Test func boundsTheWeightsOfThePlan() {
    var g = GraphBuilder(seed: 3, input: RefTensor(c: 3, h: 32, w: 32))
    var x = g.node("Conv", ["input", g.weights([256, 3, 1, 1], scale: 0.1).0], [])
    let shared = g.weights([256, 256, 3, 3], scale: 0.01).0
    for _ in 0..<40 {
      x = g.node("Conv", [x, shared], [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])])
    }
    g.values[x] = RefTensor(c: 256, h: 8, w: 8)
    let file = g.model(outputs: [x, x, x, x])
    #expect(file.count < 3_000_000)
    expectTooLarge(file, "past 16777216 floats")
  }

  /// A run keeps every tensor until its last reader, and one that nothing reads to the end: 200
  /// ReLUs of the input that nothing reads (a few kilobytes of file) would hold 800 floats a
  /// pixel, 26 GB for a tile of 8 million pixels; so would one convolution to 4096 channels at
  /// full size, 131 GB. Both are refused.
  @Test func boundsTheMemoryOfARun() {
    var (g, outputs) = syntheticNetwork(width: 64, height: 64)
    for _ in 0..<200 { _ = g.node("Relu", ["input"], []) }
    let unread = g.model(outputs: outputs)
    (g, outputs) = syntheticNetwork(width: 64, height: 64)
    _ = g.node("Conv", ["input", g.weights([4096, 3, 1, 1], scale: 0.1).0], [])
    let wide = g.model(outputs: outputs)
    for file in [unread, wide] {
      expectTooLarge(file, "floats per input pixel held at once")
    }
  }

  /// 60 convolutions in a chain, sharing one initializer of 2,304 floats, are 138,000
  /// multiply-adds an input pixel, 23 times CenterFace's: refused.
  @Test func boundsTheWorkOfARun() {
    var (g, outputs) = syntheticNetwork(width: 64, height: 64)
    let shared = g.weights([16, 16, 3, 3], scale: 0.1).0
    var x = g.node("Conv", ["input", g.weights([16, 3, 1, 1], scale: 0.1).0], [])
    for _ in 0..<60 {
      x = g.node("Conv", [x, shared], [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1])])
    }
    expectTooLarge(g.model(outputs: outputs), "multiply-adds per input pixel")
  }

  /// Thousands of damaged copies of the real file (bytes changed in the graph's structure, cut
  /// at random lengths): each is refused with an error or, rarely, still a valid CenterFace;
  /// none traps.
  @Test func damagedFilesNeverTrap() throws {
    let bytes = try modelBytes.get()
    var rng: UInt64 = 12345
    func next(_ n: Int) -> Int {
      rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((rng >> 33) % UInt64(n))
    }
    let structure = structuralOffsets(bytes)
    var refused = 0
    var accepted = 0
    for round in 0..<300 {
      var damaged = bytes
      for _ in 0..<(1 + next(4)) {
        let at = structure[next(structure.count)]
        damaged[at] = round % 3 == 0 ? UInt8(next(256)) : damaged[at] ^ UInt8(1 << next(8))
      }
      if round % 5 == 0 { damaged.removeLast(next(damaged.count)) }
      do {
        _ = try CenterFaceModel(onnx: damaged)
        accepted += 1
      } catch {
        refused += 1
        #expect(!error.description.isEmpty)
      }
    }
    #expect(refused > 100)
    print("damaged model files: \(refused) refused, \(accepted) still valid")
  }

  /// Offsets of bytes outside the large weight arrays (keys, lengths, names, attributes).
  func structuralOffsets(_ bytes: [UInt8]) -> [Int] {
    var offsets: [Int] = []
    func walk(_ range: Range<Int>, depth: Int) {
      var r = ProtobufReader(bytes, range: range)
      var last = range.lowerBound
      while let (_, value) = try? r.next() {
        offsets += Array(last..<min(r.position, last + 12))
        if case .bytes(let inner) = value {
          if inner.count < 4096, depth < 4 {
            walk(inner, depth: depth + 1)
          } else if depth < 2 {
            walk(inner, depth: depth + 1)
          }
        }
        last = r.position
      }
    }
    walk(0..<bytes.count, depth: 0)
    return offsets
  }
}

/// Expects `file` to be refused as `.tooLarge`, with `fragment` in the reason.
private func expectTooLarge(
  _ file: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(sourceLocation: sourceLocation) {
    try CenterFaceModel(onnx: file)
  } throws: { e in
    guard case .tooLarge(let why) = e as? CenterFaceError else { return false }
    return why.contains(fragment)
  }
}
