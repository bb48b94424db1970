/// e^x in pure Swift (the standard library has no `exp` without Foundation or Glibc), to within
/// about 2 ulp of a Double, the same on every processor (no fused operations).
///
/// x = k ln 2 + r with |r| ≤ ln 2 / 2, e^r from its Taylor series to r^13 (the first term left
/// out is below 2e-16 of the result), then scaled by 2^k.
func exponential(_ x: Double) -> Double {
  if x.isNaN { return x }
  if x > 709.78 { return .infinity }
  if x < -745.2 { return 0 }
  let ln2Hi = 0.693_147_180_369_123_816_49  // the high bits of ln 2: k × ln2Hi is exact
  let ln2Lo = 1.908_214_929_270_587_700_02e-10
  let k = (x * 1.442_695_040_888_963_4).rounded()
  let r = (x - k * ln2Hi) - k * ln2Lo
  var term = 1.0
  var sum = 1.0
  for n in 1...13 {
    term *= r / Double(n)
    sum += term
  }
  // 2^k in two steps, so that k down to -1075 (subnormal results) never overflows the exponent.
  let ki = Int(k)
  let half = ki / 2
  return sum * Double(sign: .plus, exponent: half, significand: 1)
    * Double(sign: .plus, exponent: ki - half, significand: 1)
}

/// The logistic function 1 / (1 + e^-x), rounded once to Float.
func sigmoid(_ x: Float) -> Float {
  Float(1 / (1 + exponential(-Double(x))))
}
