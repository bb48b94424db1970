/// Summed-area tables of a ``GreyImage``, laid out as OpenCV's `integral` lays them out.
///
/// Each table has `(width + 1) × (height + 1)` entries, row-major with a row stride of
/// `width + 1`, and a zero first row and column: entry (X, Y) sums the pixels above and to the
/// left of grid point (X, Y).
/// - `values[Y * stride + X]`: sum of grey levels; the tilted table, when asked for, follows at
///   `values[tiltedOffset + Y * stride + X]` and sums the pixels (x, y) with y < Y and
///   |x − X + 1| ≤ Y − y − 1 (a 45° triangle whose apex is pixel (X − 1, Y − 1)).
/// - `squares[Y * stride + X]`: sum of squared grey levels.
///
/// Entries wrap modulo 2³² (OpenCV stores them as `CV_32S` too): a whole-image sum overflows 32
/// bits at 16 MP, and a squared sum at about 66 000 pixels. The difference of four corners is
/// exact nonetheless, because it is computed modulo 2³² and the rectangles the detector measures
/// lie inside one window: grey sums stay below 2³¹ for windows up to 1000 × 1000 pixels, squared
/// sums below 2³² for windows up to 256 × 256 (24 × 24 for the face cascades). Past that size the
/// squared sum wraps exactly as OpenCV's does, so the two still agree.
final class IntegralImage {
  let width: Int, height: Int
  /// `width + 1`.
  let stride: Int
  /// Where the tilted table starts in `values`, or 0 when there is none.
  let tiltedOffset: Int
  let values: UnsafeMutablePointer<Int32>
  let squares: UnsafeMutablePointer<Int32>

  /// Builds the tables of `image`, with the tilted table when `tilted` is true, on all cores when
  /// `parallel` is true (two passes: row prefix sums, then column sums), else on this thread (one
  /// pass).
  ///
  /// - Complexity: O(width × height).
  init(_ image: GreyImage, tilted: Bool, parallel: Bool = false) {
    (width, height) = (image.width, image.height)
    stride = width + 1
    let count = stride * (height + 1)
    tiltedOffset = tilted ? count : 0
    values = .allocate(capacity: tilted ? 2 * count : count)
    squares = .allocate(capacity: count)
    let (w, h, st) = (width, height, stride)
    let (sum, sq) = (values, squares)
    image.pixels.withUnsafeBufferPointer { px in
      let p = px.baseAddress!
      sum.initialize(repeating: 0, count: st)
      sq.initialize(repeating: 0, count: st)
      if !parallel {
        for y in 0..<h {
          let src = p + y * w
          let above = sum + y * st
          let aboveSq = sq + y * st
          let row = above + st
          let rowSq = aboveSq + st
          row[0] = 0
          rowSq[0] = 0
          var s: Int32 = 0
          var q: Int32 = 0
          for x in 0..<w {
            let v = Int32(src[x])
            s &+= v
            q &+= v &* v
            row[x + 1] = above[x + 1] &+ s
            rowSq[x + 1] = aboveSq[x + 1] &+ q
          }
        }
        if tilted { Self.fillTilted(p, w, h, sum + count) }
        return
      }
      let shared = UncheckedSendable((p, sum, sq))
      // Pass 1, rows in parallel: each row's own prefix sums.
      Parallel.forEachRowRange(h, minimumRows: 64) { rows in
        let (p, sum, sq) = shared.value
        for y in rows {
          let src = p + y * w
          let row = sum + (y + 1) * st
          let rowSq = sq + (y + 1) * st
          row[0] = 0
          rowSq[0] = 0
          var s: Int32 = 0
          var q: Int32 = 0
          for x in 0..<w {
            let v = Int32(src[x])
            s &+= v
            q &+= v &* v
            row[x + 1] = s
            rowSq[x + 1] = q
          }
        }
      }
      // Pass 2, column strips in parallel: add each row to the one below it.
      Parallel.forEachRowRange(st, minimumRows: 64) { columns in
        let (_, sum, sq) = shared.value
        for y in 1..<h {
          let above = sum + y * st
          let row = above + st
          let aboveSq = sq + y * st
          let rowSq = aboveSq + st
          for x in columns {
            row[x] &+= above[x]
            rowSq[x] &+= aboveSq[x]
          }
        }
      }
      if tilted { Self.fillTilted(p, w, h, sum + count) }
    }
  }

  deinit {
    values.deallocate()
    squares.deallocate()
  }

  /// Fills the tilted table from the image's row prefix sums P(y, k) (the sum of row y's first k
  /// pixels, k clamped to 0...width):
  /// T(X, Y) = Σ_{y<Y} [P(y, X + Y − 1 − y) − P(y, X − Y + y)] = A(X + Y − 1) − B(X − Y),
  /// where A and B accumulate P along anti-diagonals and diagonals, one image row at a time.
  private static func fillTilted(
    _ p: UnsafePointer<UInt8>, _ w: Int, _ h: Int, _ out: UnsafeMutablePointer<Int32>
  ) {
    let st = w + 1
    // A is indexed by s = X + Y − 1 in 0...(w + h); B by d + h with d = X − Y in −h...w.
    var a = [Int32](repeating: 0, count: w + h + 2)
    var b = [Int32](repeating: 0, count: w + h + 2)
    var prefix = [Int32](repeating: 0, count: w + 1)
    var total: Int32 = 0  // the sum of all rows above the current one
    out.initialize(repeating: 0, count: st)  // Y = 0
    for yy in 1...h {
      let y = yy - 1  // the image row being added
      let src = p + y * w
      prefix[0] = 0
      for x in 0..<w { prefix[x + 1] = prefix[x] &+ Int32(src[x]) }
      let rowTotal = prefix[w]
      @inline(__always) func pref(_ k: Int) -> Int32 { k <= 0 ? 0 : (k >= w ? rowTotal : prefix[k]) }
      // A(s, yy) = A(s, yy − 1) + P(y, s − y) for s in (yy − 1)...(w + yy − 1). The entry
      // s = w + yy − 1 is new: before this row it held the clamped total of the rows above.
      a[w + yy - 1] = total
      for s in (yy - 1)...(w + yy - 1) { a[s] &+= pref(s - y) }
      // B(d, yy) = B(d, yy − 1) + P(y, d + y) for d in −yy...(w − yy); the entry d = −yy is new
      // and held 0.
      b[h - yy] = 0
      for d in -yy...(w - yy) { b[d + h] &+= pref(d + y) }
      total &+= rowTotal
      let row = out + yy * st
      for x in 0...w { row[x] = a[x + yy - 1] &- b[x - yy + h] }
    }
  }
}
