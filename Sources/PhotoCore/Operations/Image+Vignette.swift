extension Image {
  /// Darkens the image smoothly with the distance from its centre.
  ///
  /// With the centre c = ((width - 1) / 2, (height - 1) / 2) in pixel indices and
  /// R = `radius` × half the image's diagonal (√(width² + height²) / 2 pixels), a pixel at
  /// distance d from c has its red, green and blue multiplied by
  ///
  ///     f(d) = 1 - intensity × smoothstep(d / R),   smoothstep(u) = 3u² - 2u³ for u in 0...1, 1 beyond
  ///
  /// and rounded to nearest; alpha is untouched. f(0) = 1 (the centre is unchanged), f never
  /// increases outward, the effect is mirror-symmetric about both centre lines, and beyond R the
  /// image is scaled by 1 - intensity. `intensity` 0 leaves every byte as it was.
  ///
  /// f is read from a table of 65 537 entries indexed by (d / R)², in 16-bit fixed point (at most
  /// 65535 / 65536), so the result is within one level of the exact formula (within 0.02 of a level before rounding).
  ///
  /// - Parameters:
  ///   - intensity: 0...1; 1 makes pixels at distance R and beyond black.
  ///   - radius: > 0, relative to half the diagonal (1 reaches the corners).
  /// - Complexity: O(width × height), row-parallel; about width × height / 2 table reads (the
  ///   factors are mirror-symmetric left to right); one row of factors per band, no allocation
  ///   per pixel.
  public mutating func applyVignette(intensity: Double, radius: Double) {
    precondition((0...1).contains(intensity) && radius > 0, "vignette needs intensity in 0...1, radius > 0")
    if intensity == 0 { return }
    let kernel = VignetteKernel(intensity: intensity, radius: radius, width: width, height: height)
    withPixels { kernel.render($0, into: $0) }
  }
}

/// `applyVignette`'s table and column distances for one intensity, radius and image size: a
/// step that renders any rectangle of the image on its own (each pixel by where it is).
struct VignetteKernel: StepKernel {
  static let steps = 1 << 16
  /// factors[k] = f at (d / R)² = k / steps, times 65536, at most 65535 (so that 16-bit lanes
  /// hold it; v · 65535 / 65536 still rounds to v for every byte v).
  let factors: [UInt16]
  /// (2x - (w - 1))² for the left half of the columns: distances in doubled coordinates are exact
  /// integers, q = (2x - (w - 1))² + (2y - (h - 1))² = 4d².
  let columns: [Int]
  /// index = floor(q · scale / 2³²) = floor((d / R)² · steps).
  let scale: Int64
  let width: Int, height: Int

  init(intensity: Double, radius: Double, width w: Int, height h: Int) {
    let steps = Self.steps
    var factors = [UInt16](repeating: 0, count: steps + 1)
    for k in 0...steps {
      let u = (Double(k) / Double(steps)).squareRoot()
      factors[k] = UInt16(min(65535, ((1 - intensity * u * u * (3 - 2 * u)) * 65536).rounded()))
    }
    self.factors = factors
    columns = (0..<((w + 1) / 2)).map { x in (2 * x - (w - 1)) * (2 * x - (w - 1)) }
    let fourR2 = 4 * radius * radius * 0.25 * Double(w * w + h * h)
    scale = Int64((Double(steps) * 4_294_967_296 / fourR2).rounded(.down))
    (width, height) = (w, h)
  }

  var inputSize: ImageSize { ImageSize(width, height) }
  var outputSize: ImageSize { inputSize }
  var capability: StepCapability { .pointwise }
  func inputRect(for output: PixelRect) -> PixelRect { output }

  /// Darkens the output's pixels. Columns x and w - 1 - x share their factors: each row fills one
  /// row of per-byte factors (alpha's is 65535) from the table, then scales the row with it in a
  /// loop that vectorises.
  func render(_ input: PixelBuffer, into output: PixelBuffer) {
    let r = output.rect
    precondition(PixelRect(inputSize).contains(r), "the kernel was made for another size")
    Parallel.forEachRowRange(r.height) { rows in
      apply(output, columns: r.columns, rows: (r.y + rows.lowerBound)..<(r.y + rows.upperBound))
    }
  }

  private func apply(_ output: PixelBuffer, columns span: Range<Int>, rows: Range<Int>) {
    let (w, h, steps, scale) = (width, height, Self.steps, scale)
    let halfW = columns.count
    let count = span.count
    let rowFactors = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
    defer { rowFactors.deallocate() }
    let perByte = UnsafeMutableRawPointer(rowFactors).bindMemory(to: UInt16.self, capacity: 4 * count)
    factors.withUnsafeBufferPointer { factors in
      columns.withUnsafeBufferPointer { columns in
        let (f, cols) = (factors.baseAddress!, columns.baseAddress!)
        for y in rows {
          let dy2 = (2 * y - (h - 1)) * (2 * y - (h - 1))
          @inline(__always) func lanes(_ x: Int) -> UInt64 {
            let q = Int64(cols[x] &+ dy2)
            let k = Int(min((q &* scale) >> 32, Int64(steps)))
            let c = UInt64(f[k])
            // R, G, B, A lanes of 16 bits each, in memory order on a little-endian machine.
            return (c | c << 16 | c << 32 | 0xFFFF << 48).littleEndian
          }
          if span == 0..<w {
            for x in 0..<halfW {
              let v = lanes(x)
              rowFactors[x] = v
              rowFactors[w - 1 - x] = v
            }
          } else {
            for x in span { rowFactors[x - span.lowerBound] = lanes(x < halfW ? x : w - 1 - x) }
          }
          vignetteScale(output.pixel(x: span.lowerBound, y: y), factors: perByte, count: 4 * count)
        }
      }
    }
  }
}

/// Scales `count` bytes in place: v becomes v · factor / 65536 rounded to nearest (half up).
///
/// The 24-bit product is split into its high and low 16 bits (`pmulhuw` and `pmullw` once
/// vectorised); rounding adds one when the low half is at least 32768.
@inline(never) private func vignetteScale(
  _ bytes: UnsafeMutablePointer<UInt8>, factors: UnsafePointer<UInt16>, count: Int
) {
  for i in 0..<count {
    let (high, low) = UInt16(bytes[i]).multipliedFullWidth(by: factors[i])
    bytes[i] = UInt8(truncatingIfNeeded: high &+ low &>> 15)
  }
}
