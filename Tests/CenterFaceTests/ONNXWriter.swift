import Foundation

/// Writes small ONNX models for the tests: protobuf's wire format by hand, and a graph builder
/// that also computes the graph's outputs the slow, obvious way (in Double, NCHW), so the
/// engine's kernels and fusions are checked against an independent reference.
struct Proto {
  var bytes: [UInt8] = []

  mutating func rawVarint(_ v: UInt64) {
    var v = v
    while v >= 0x80 {
      bytes.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  mutating func key(_ field: Int, _ wire: Int) { rawVarint(UInt64(field << 3 | wire)) }

  mutating func varint(_ field: Int, _ v: Int) {
    key(field, 0)
    rawVarint(UInt64(bitPattern: Int64(v)))
  }

  mutating func bytes(_ field: Int, _ b: [UInt8]) {
    key(field, 2)
    rawVarint(UInt64(b.count))
    bytes += b
  }

  mutating func string(_ field: Int, _ s: String) { bytes(field, Array(s.utf8)) }
  mutating func message(_ field: Int, _ m: Proto) { bytes(field, m.bytes) }

  mutating func float(_ field: Int, _ f: Float) {
    key(field, 5)
    let b = f.bitPattern
    for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: b >> (8 * UInt32(i)))) }
  }
}

/// A tensor in the reference computation: channels × height × width, in Double.
struct RefTensor {
  var c: Int
  var h: Int
  var w: Int
  var v: [Double]

  init(c: Int, h: Int, w: Int) {
    (self.c, self.h, self.w) = (c, h, w)
    v = [Double](repeating: 0, count: c * h * w)
  }

  subscript(c: Int, y: Int, x: Int) -> Double {
    get { v[(c * h + y) * w + x] }
    set { v[(c * h + y) * w + x] = newValue }
  }
}

/// Attributes as the builder writes them.
enum Attr {
  case int(String, Int)
  case ints(String, [Int])
  case float(String, Float)
  case string(String, String)
}

/// Builds a graph node by node, writing ONNX and computing each node's reference output.
struct GraphBuilder {
  var nodes: [Proto] = []
  var initializers: [Proto] = []
  var values: [String: RefTensor] = [:]
  var rng: UInt64
  var counter = 0
  /// Store initializers as float_data instead of raw_data (the file mixes both).
  var floatData = false

  init(seed: UInt64, input: RefTensor) {
    rng = seed
    values["input"] = input
  }

  mutating func random() -> Double {
    rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Double(rng >> 11) / Double(1 << 53) * 2 - 1
  }

  mutating func name(_ prefix: String) -> String {
    counter += 1
    return "\(prefix)\(counter)"
  }

  mutating func weights(_ dims: [Int], scale: Double) -> (String, [Float]) {
    let n = name("w")
    let count = dims.reduce(1, *)
    let values = (0..<count).map { _ in Float(random() * scale) }
    var t = Proto()
    for d in dims { t.varint(1, d) }
    t.varint(2, 1)
    t.string(8, n)
    if floatData {
      var packed = Proto()
      for f in values {
        let b = f.bitPattern
        for i in 0..<4 { packed.bytes.append(UInt8(truncatingIfNeeded: b >> (8 * UInt32(i)))) }
      }
      t.bytes(4, packed.bytes)
    } else {
      var raw: [UInt8] = []
      for f in values {
        let b = f.bitPattern
        for i in 0..<4 { raw.append(UInt8(truncatingIfNeeded: b >> (8 * UInt32(i)))) }
      }
      t.bytes(9, raw)
    }
    floatData.toggle()
    initializers.append(t)
    return (n, values)
  }

  mutating func node(_ op: String, _ inputs: [String], _ attrs: [Attr], output: String? = nil) -> String {
    let out = output ?? name(op.lowercased())
    var n = Proto()
    for i in inputs { n.string(1, i) }
    n.string(2, out)
    n.string(3, "\(op)_\(counter)")
    n.string(4, op)
    for a in attrs {
      var p = Proto()
      switch a {
      case .int(let k, let v):
        p.string(1, k)
        p.varint(20, 2)
        p.varint(3, v)
      case .ints(let k, let v):
        p.string(1, k)
        p.varint(20, 7)
        for x in v { p.varint(8, x) }
      case .float(let k, let v):
        p.string(1, k)
        p.varint(20, 1)
        p.float(2, v)
      case .string(let k, let v):
        p.string(1, k)
        p.varint(20, 3)
        p.string(4, v)
      }
      n.message(5, p)
    }
    nodes.append(n)
    return out
  }

  /// A convolution with bias: kernel k (1 or 3), stride, group 1 or depthwise.
  mutating func conv(_ x: String, _ n: Int, k: Int, stride: Int = 1, depthwise: Bool = false) -> String {
    let input = values[x]!
    let cg = depthwise ? 1 : input.c
    let (wn, w) = weights([n, cg, k, k], scale: 1 / Double(cg * k * k).squareRoot())
    let (bn, b) = weights([n], scale: 0.2)
    let pad = (k - 1) / 2
    var attrs: [Attr] = [
      .ints("kernel_shape", [k, k]), .ints("strides", [stride, stride]), .ints("pads", [pad, pad, pad, pad]),
      .ints("dilations", [1, 1]),
    ]
    if depthwise { attrs.append(.int("group", n)) }
    let out = node("Conv", [x, wn, bn], attrs)
    let oh = (input.h + 2 * pad - k) / stride + 1
    let ow = (input.w + 2 * pad - k) / stride + 1
    var y = RefTensor(c: n, h: oh, w: ow)
    for o in 0..<n {
      for oy in 0..<oh {
        for ox in 0..<ow {
          var s = Double(b[o])
          for c in 0..<cg {
            let ic = depthwise ? o : c
            for ky in 0..<k {
              for kx in 0..<k {
                let iy = oy * stride - pad + ky
                let ix = ox * stride - pad + kx
                guard iy >= 0, iy < input.h, ix >= 0, ix < input.w else { continue }
                s += Double(w[((o * cg + c) * k + ky) * k + kx]) * input[ic, iy, ix]
              }
            }
          }
          y[o, oy, ox] = s
        }
      }
    }
    values[out] = y
    return out
  }

  /// A 2×2, stride-2 transposed convolution without bias.
  mutating func transposed(_ x: String, _ n: Int) -> String {
    let input = values[x]!
    let (wn, w) = weights([input.c, n, 2, 2], scale: 1 / Double(input.c).squareRoot())
    let out = node("ConvTranspose", [x, wn], [.ints("kernel_shape", [2, 2]), .ints("strides", [2, 2])])
    var y = RefTensor(c: n, h: input.h * 2, w: input.w * 2)
    for o in 0..<n {
      for iy in 0..<input.h {
        for ix in 0..<input.w {
          for dy in 0..<2 {
            for dx in 0..<2 {
              var s = 0.0
              for c in 0..<input.c { s += Double(w[((c * n + o) * 2 + dy) * 2 + dx]) * input[c, iy, ix] }
              y[o, 2 * iy + dy, 2 * ix + dx] = s
            }
          }
        }
      }
    }
    values[out] = y
    return out
  }

  mutating func batchNorm(_ x: String) -> String {
    let input = values[x]!
    let c = input.c
    let (gn, g) = weights([c], scale: 1)
    let (bn, b) = weights([c], scale: 0.5)
    let (mn, m) = weights([c], scale: 0.5)
    let (vn, v0) = weights([c], scale: 1)
    // Variances must be positive: rewrite the last initializer with |v| + 0.5.
    let v = v0.map { abs($0) + 0.5 }
    initializers.removeLast()
    var t = Proto()
    t.varint(1, c)
    t.varint(2, 1)
    t.string(8, vn)
    var raw: [UInt8] = []
    for f in v {
      for i in 0..<4 { raw.append(UInt8(truncatingIfNeeded: f.bitPattern >> (8 * UInt32(i)))) }
    }
    t.bytes(9, raw)
    initializers.append(t)
    let eps: Float = 1e-3
    let out = node(
      "BatchNormalization", [x, gn, bn, mn, vn], [.float("epsilon", eps), .float("momentum", 0.9)])
    var y = input
    for ch in 0..<c {
      let s = Double(g[ch]) / (Double(v[ch]) + Double(eps)).squareRoot()
      for i in 0..<(input.h * input.w) {
        y.v[ch * input.h * input.w + i] =
          (input.v[ch * input.h * input.w + i] - Double(m[ch])) * s + Double(b[ch])
      }
    }
    values[out] = y
    return out
  }

  mutating func relu(_ x: String) -> String {
    let out = node("Relu", [x], [])
    var y = values[x]!
    y.v = y.v.map { max($0, 0) }
    values[out] = y
    return out
  }

  mutating func sigmoid(_ x: String, output: String? = nil) -> String {
    let out = node("Sigmoid", [x], [], output: output)
    var y = values[x]!
    y.v = y.v.map { 1 / (1 + Foundation.exp(-$0)) }
    values[out] = y
    return out
  }

  mutating func add(_ a: String, _ b: String) -> String {
    let out = node("Add", [a, b], [])
    var y = values[a]!
    let z = values[b]!
    for i in y.v.indices { y.v[i] += z.v[i] }
    values[out] = y
    return out
  }

  /// The model file, with `outputs` as the graph's outputs in order.
  func model(outputs: [String], inputChannels: Int = 3, opset: Int = 9) -> [UInt8] {
    var g = Proto()
    for n in nodes { g.message(1, n) }
    g.string(2, "test")
    for t in initializers { g.message(5, t) }
    g.message(11, Self.valueInfo("input", [1, inputChannels, 32, 32]))
    for o in outputs {
      let t = values[o]!
      g.message(12, Self.valueInfo(o, [1, t.c, 8, 8]))
    }
    var m = Proto()
    m.varint(1, 4)
    m.string(2, "photoedit-tests")
    var opsetProto = Proto()
    opsetProto.string(1, "")
    opsetProto.varint(2, opset)
    m.message(8, opsetProto)
    m.message(7, g)
    return m.bytes
  }

  static func valueInfo(_ name: String, _ dims: [Int]) -> Proto {
    var shape = Proto()
    for d in dims {
      var dim = Proto()
      dim.varint(1, d)
      shape.message(1, dim)
    }
    var tensor = Proto()
    tensor.varint(1, 1)
    tensor.message(2, shape)
    var type = Proto()
    type.message(1, tensor)
    var v = Proto()
    v.string(1, name)
    v.message(2, type)
    return v
  }
}
