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
    forEachBand { kernel.apply($0) }
  }
}

/// `applyVignette`'s table and column distances for one intensity, radius and image size, which
/// then renders any band of rows on its own (a JPEG still being decoded hands them on a band at
/// a time).
struct VignetteKernel: Sendable {
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

  /// Darkens the band's rows. Columns x and w - 1 - x share their factors: each row fills one
  /// row of per-byte factors (alpha's is 65535) from the table, then scales the row with it in a
  /// loop that vectorises.
  func apply(_ band: ImageRows) {
    precondition(band.width == width && band.height == height, "the kernel was made for another size")
    let (w, h, steps, scale) = (width, height, Self.steps, scale)
    let halfW = columns.count
    let rowFactors = UnsafeMutablePointer<UInt64>.allocate(capacity: w)
    defer { rowFactors.deallocate() }
    let perByte = UnsafeMutableRawPointer(rowFactors).bindMemory(to: UInt16.self, capacity: 4 * w)
    factors.withUnsafeBufferPointer { factors in
      columns.withUnsafeBufferPointer { columns in
        let (f, cols) = (factors.baseAddress!, columns.baseAddress!)
        for y in band.rows {
          let dy2 = (2 * y - (h - 1)) * (2 * y - (h - 1))
          for x in 0..<halfW {
            let q = Int64(cols[x] &+ dy2)
            let k = Int(min((q &* scale) >> 32, Int64(steps)))
            let c = UInt64(f[k])
            // R, G, B, A lanes of 16 bits each, in memory order on a little-endian machine.
            let lanes = (c | c << 16 | c << 32 | 0xFFFF << 48).littleEndian
            rowFactors[x] = lanes
            rowFactors[w - 1 - x] = lanes
          }
          vignetteScale(band.row(y), factors: perByte, count: 4 * w)
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
