// Issue 39, item 2: can Swift code reach the processor's integer dot-product instructions, and
// what would they give CenterFace's 1×1 convolutions on an AVX2 processor?
//
// The same 6-pixel × 16-channel block as CenterFace's AVX2 kernel (`block2`), three ways:
//   fp32:          broadcast one input float, fused multiply-add into 8-float sums (the engine);
//   int16 (SIMD):  input channels in pairs of Int16, each pair's products summed into Int32
//                  lanes, written with the standard library's SIMD types (what LLVM can match);
//   int16 (vpmaddwd): the same through `Builtin.int_x86_avx2_pmadd_wd` (needs -parse-stdlib).
// And the throughput of `vpmaddwd` alone (8 independent chains).
//
//   swiftc -parse-stdlib -O -Xcc -mavx2 -Xcc -mfma Tests/Benchmarks/int16_dot.swift -o /tmp/int16_dot
//   /tmp/int16_dot
//
// Prints multiply-adds per second for each, one thread; look for `vpmaddwd` in
// `objdump -d /tmp/int16_dot` to see which functions use it.
import Swift
import Glibc

typealias I16 = SIMD16<Int16>
typealias I32 = SIMD8<Int32>
typealias F8 = SIMD8<Float>

/// The pairs' products summed, written lane by lane with SIMD types (LLVM does not make
/// `vpmaddwd` of it: the even and odd halves are built 4 lanes at a time).
@inline(__always)
func pairsSIMD(_ a: I16, _ b: I16) -> I32 {
  let ae = I32(truncatingIfNeeded: a.evenHalf)
  let ao = I32(truncatingIfNeeded: a.oddHalf)
  let be = I32(truncatingIfNeeded: b.evenHalf)
  let bo = I32(truncatingIfNeeded: b.oddHalf)
  return ae &* be &+ ao &* bo
}

/// The same through the instruction.
@inline(__always)
func pairsInstruction(_ a: I16, _ b: I16) -> I32 {
  let r = Builtin.int_x86_avx2_pmadd_wd(
    unsafeBitCast(a, to: Builtin.Vec16xInt16.self), unsafeBitCast(b, to: Builtin.Vec16xInt16.self))
  return unsafeBitCast(r, to: I32.self)
}

/// 6 pixels × 2 vectors of sums over `pairs` pairs of input channels; `pixels[i]` holds pixel
/// i's channels, two Int16 in each Int32.
@inline(__always)
func blockInt16(
  _ pixels: UnsafePointer<UnsafePointer<Int32>>, _ pairs: Int, _ weights: UnsafePointer<I16>,
  _ out: UnsafeMutablePointer<I32>, _ dot: (I16, I16) -> I32
) {
  var c = (I32(), I32(), I32(), I32(), I32(), I32(), I32(), I32(), I32(), I32(), I32(), I32())
  let (p0, p1, p2, p3, p4, p5) = (pixels[0], pixels[1], pixels[2], pixels[3], pixels[4], pixels[5])
  var w = weights
  for k in 0..<pairs {
    let (w0, w1) = (w[0], w[1])
    w += 2
    var s = unsafeBitCast(I32(repeating: p0[k]), to: I16.self)
    c.0 &+= dot(s, w0)
    c.1 &+= dot(s, w1)
    s = unsafeBitCast(I32(repeating: p1[k]), to: I16.self)
    c.2 &+= dot(s, w0)
    c.3 &+= dot(s, w1)
    s = unsafeBitCast(I32(repeating: p2[k]), to: I16.self)
    c.4 &+= dot(s, w0)
    c.5 &+= dot(s, w1)
    s = unsafeBitCast(I32(repeating: p3[k]), to: I16.self)
    c.6 &+= dot(s, w0)
    c.7 &+= dot(s, w1)
    s = unsafeBitCast(I32(repeating: p4[k]), to: I16.self)
    c.8 &+= dot(s, w0)
    c.9 &+= dot(s, w1)
    s = unsafeBitCast(I32(repeating: p5[k]), to: I16.self)
    c.10 &+= dot(s, w0)
    c.11 &+= dot(s, w1)
  }
  out[0] &+= c.0 &+ c.1 &+ c.2 &+ c.3 &+ c.4 &+ c.5
  out[1] &+= c.6 &+ c.7 &+ c.8 &+ c.9 &+ c.10 &+ c.11
}

@inline(never)
func blockInt16SIMD(
  _ pixels: UnsafePointer<UnsafePointer<Int32>>, _ pairs: Int, _ weights: UnsafePointer<I16>,
  _ out: UnsafeMutablePointer<I32>
) {
  blockInt16(pixels, pairs, weights, out, pairsSIMD)
}

@inline(never)
func blockInt16Instruction(
  _ pixels: UnsafePointer<UnsafePointer<Int32>>, _ pairs: Int, _ weights: UnsafePointer<I16>,
  _ out: UnsafeMutablePointer<I32>
) {
  blockInt16(pixels, pairs, weights, out, pairsInstruction)
}

@inline(never)
func blockFloat(
  _ pixels: UnsafePointer<UnsafePointer<Float>>, _ channels: Int, _ weights: UnsafePointer<F8>,
  _ out: UnsafeMutablePointer<F8>
) {
  var c = (F8(), F8(), F8(), F8(), F8(), F8(), F8(), F8(), F8(), F8(), F8(), F8())
  let (p0, p1, p2, p3, p4, p5) = (pixels[0], pixels[1], pixels[2], pixels[3], pixels[4], pixels[5])
  var w = weights
  for k in 0..<channels {
    let (w0, w1) = (w[0], w[1])
    w += 2
    var s = F8(repeating: p0[k])
    c.0.addProduct(s, w0)
    c.1.addProduct(s, w1)
    s = F8(repeating: p1[k])
    c.2.addProduct(s, w0)
    c.3.addProduct(s, w1)
    s = F8(repeating: p2[k])
    c.4.addProduct(s, w0)
    c.5.addProduct(s, w1)
    s = F8(repeating: p3[k])
    c.6.addProduct(s, w0)
    c.7.addProduct(s, w1)
    s = F8(repeating: p4[k])
    c.8.addProduct(s, w0)
    c.9.addProduct(s, w1)
    s = F8(repeating: p5[k])
    c.10.addProduct(s, w0)
    c.11.addProduct(s, w1)
  }
  out[0] += c.0 + c.1 + c.2 + c.3 + c.4 + c.5
  out[1] += c.6 + c.7 + c.8 + c.9 + c.10 + c.11
}

/// `vpmaddwd` alone: 8 independent chains, so its throughput rather than its latency.
@inline(never)
func instructionThroughput(_ n: Int, _ x: I16) -> I32 {
  var b = (x, x, x, x, x, x, x, x)
  for _ in 0..<n {
    b.0 = unsafeBitCast(pairsInstruction(x, b.0), to: I16.self)
    b.1 = unsafeBitCast(pairsInstruction(x, b.1), to: I16.self)
    b.2 = unsafeBitCast(pairsInstruction(x, b.2), to: I16.self)
    b.3 = unsafeBitCast(pairsInstruction(x, b.3), to: I16.self)
    b.4 = unsafeBitCast(pairsInstruction(x, b.4), to: I16.self)
    b.5 = unsafeBitCast(pairsInstruction(x, b.5), to: I16.self)
    b.6 = unsafeBitCast(pairsInstruction(x, b.6), to: I16.self)
    b.7 = unsafeBitCast(pairsInstruction(x, b.7), to: I16.self)
  }
  let s = [b.0, b.1, b.2, b.3, b.4, b.5, b.6, b.7].map { unsafeBitCast($0, to: I32.self) }
  return s.reduce(I32(), &+)
}

/// CPU seconds of this thread.
func cpuSeconds() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// The least CPU time of 5 runs of `body`.
func best(_ body: () -> Void) -> Double {
  var least = Double.infinity
  for _ in 0..<5 {
    let t = cpuSeconds()
    body()
    least = min(least, cpuSeconds() - t)
  }
  return least
}

let channels = 96  // a typical expanded width of CenterFace's blocks
let calls = 1_000_000
let macs = Double(calls) * Double(channels) * 6 * 16

let intPixels = (0..<6).map { p in
  let b = UnsafeMutablePointer<Int32>.allocate(capacity: channels / 2)
  for i in 0..<channels / 2 { b[i] = Int32((i * 7 + p) & 0x3ff) | (Int32((i * 3 + p) & 0x3ff) << 16) }
  return UnsafePointer(b)
}
let floatPixels = (0..<6).map { p in
  let b = UnsafeMutablePointer<Float>.allocate(capacity: channels)
  for i in 0..<channels { b[i] = Float((i * 7 + p) & 0x3ff) / 1024 }
  return UnsafePointer(b)
}
let intWeights = UnsafeMutablePointer<I16>.allocate(capacity: channels)
for i in 0..<channels { intWeights[i] = I16(repeating: Int16(i % 13) - 6) }
let floatWeights = UnsafeMutablePointer<F8>.allocate(capacity: 2 * channels)
for i in 0..<2 * channels { floatWeights[i] = F8(repeating: Float(i % 13 - 6) / 8) }
let intOut = UnsafeMutablePointer<I32>.allocate(capacity: 2)
intOut.initialize(repeating: I32(), count: 2)
let floatOut = UnsafeMutablePointer<F8>.allocate(capacity: 2)
floatOut.initialize(repeating: F8(), count: 2)

let f = best { floatPixels.withUnsafeBufferPointer { p in
  for _ in 0..<calls { blockFloat(p.baseAddress!, channels, floatWeights, floatOut) }
} }
let s = best { intPixels.withUnsafeBufferPointer { p in
  for _ in 0..<calls / 4 { blockInt16SIMD(p.baseAddress!, channels / 2, intWeights, intOut) }
} } * 4
let i = best { intPixels.withUnsafeBufferPointer { p in
  for _ in 0..<calls { blockInt16Instruction(p.baseAddress!, channels / 2, intWeights, intOut) }
} }
let n = 100_000_000
var sink = I32()
let t = best { sink &+= instructionThroughput(n, I16(repeating: 1)) }

func rate(_ seconds: Double) -> String {
  let g = (macs / seconds / 1e7).rounded() / 100
  return "\(g) G multiply-adds/s"
}
print("fp32 fused multiply-add:       \(rate(f))")
print("int16 pairs, SIMD types:       \(rate(s))  (\((f / s * 100).rounded() / 100)x fp32)")
print("int16 pairs, vpmaddwd builtin: \(rate(i))  (\((f / i * 100).rounded() / 100)x fp32)")
print("vpmaddwd alone: \((Double(n) * 8 / t / 1e7).rounded() / 100) G instructions/s")
print("(checksums \(intOut[0][0] &+ sink[0]) \(floatOut[0][0]))")
