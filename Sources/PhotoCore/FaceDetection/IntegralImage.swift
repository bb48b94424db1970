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
///
/// The detector itself never builds whole tables: it streams ``IntegralRows`` over horizontal
/// bands. This whole-image form is the reference the tests check.
final class IntegralImage {
  let width: Int, height: Int
  /// `width + 1`.
  let stride: Int
  /// Where the tilted table starts in `values`, or 0 when there is none.
  let tiltedOffset: Int
  private let rows: IntegralRows
  var values: UnsafeMutablePointer<Int32> { rows.values }
  var squares: UnsafeMutablePointer<Int32> { rows.squares }

  /// Builds the tables of `image`, with the tilted table when `tilted` is true.
  ///
  /// - Complexity: O(width × height).
  init(_ image: GreyImage, tilted: Bool) {
    (width, height) = (image.width, image.height)
    stride = width + 1
    rows = IntegralRows(
      width: width, capacity: height + 1, layout: .plain, tilted: tilted, sourceRows: height)
    tiltedOffset = rows.tiltedOffset
    image.pixels.withUnsafeBufferPointer { px in
      for y in 0..<image.height { rows.append(px.baseAddress! + y * image.width) }
    }
  }
}

/// A window of consecutive rows of the summed-area tables of a band of an image, fed one image
/// row at a time: the detector's tables for one stripe of one scale.
///
/// The first row is the zero row above the band's first image row, so a rectangle sum inside the
/// band equals the whole image's (every entry differs from the whole-image one by the same sums
/// of the rows above the band, which cancel in the four-corner difference, modulo 2³²). Entry
/// (X, R) of the band — the sums over the band's first R image rows — is held at
/// `values[(R − firstRow) * stride + layout.column(X)]`, the tilted one `tiltedOffset` entries
/// further, the squares at the same place in `squares`. ``discard(_:)`` drops rows from the top so
/// that a stripe needs only its window height plus a few rows of memory.
final class IntegralRows {
  /// The image's width in pixels; rows have `width + 1` entries.
  let width: Int
  let stride: Int
  /// How many table rows fit.
  let capacity: Int
  let layout: CascadeEvaluator.Layout
  /// Where the tilted table starts in `values`, or 0 when there is none.
  let tiltedOffset: Int
  let values: UnsafeMutablePointer<Int32>
  let squares: UnsafeMutablePointer<Int32>
  /// How many rows are held.
  private(set) var count = 0
  /// The band row index R of the first held row.
  private(set) var firstRow = 0
  /// Entries after the last row that vector loads may read (zeros).
  static let padding = 32

  /// The last image row's running sums P(X), X in 0...width, when `tilted`.
  private let rowSums: UnsafeMutablePointer<Int32>
  // The tilted table's running sums (see `appendTilted`).
  private let tilted: Bool
  private let sourceRows: Int
  private var imageRows = 0
  private var diagonalA: [Int32] = []
  private var diagonalB: [Int32] = []
  private var rowsTotal: Int32 = 0

  /// Tables for rows `width` pixels wide, holding up to `capacity` rows; the tilted table when
  /// `tilted` is true, for a band of at most `sourceRows` image rows. Starts with the zero row.
  init(width: Int, capacity: Int, layout: CascadeEvaluator.Layout, tilted: Bool, sourceRows: Int) {
    precondition(width > 0 && capacity >= 2, "need at least one image row")
    self.width = width
    stride = width + 1
    self.capacity = capacity
    self.layout = layout
    self.tilted = tilted
    self.sourceRows = sourceRows
    let table = capacity * stride
    tiltedOffset = tilted ? table : 0
    let valueCount = (tilted ? 2 * table : table) + Self.padding
    values = .allocate(capacity: valueCount)
    values.initialize(repeating: 0, count: valueCount)
    squares = .allocate(capacity: table + Self.padding)
    squares.initialize(repeating: 0, count: table + Self.padding)
    rowSums = .allocate(capacity: stride + 8)
    rowSums.initialize(repeating: 0, count: stride + 8)
    if tilted {
      diagonalA = [Int32](repeating: 0, count: width + sourceRows + 2)
      diagonalB = [Int32](repeating: 0, count: width + sourceRows + 2)
    }
    count = 1  // the zero row, already zero
  }

  deinit {
    values.deallocate()
    squares.deallocate()
    rowSums.deallocate()
  }

  /// The band row index one past the last held row.
  var endRow: Int { firstRow + count }

  /// Adds the table row below the last one, from the next image row of the band (`width` grey
  /// levels).
  ///
  /// - Complexity: O(width).
  func append(_ pixels: UnsafePointer<UInt8>) {
    precondition(count < capacity, "IntegralRows is full")
    precondition(!tilted || imageRows < sourceRows, "more rows than the band has")
    let st = stride
    let above = (count - 1) * st
    let row = count * st
    // The tilted table is made from the row's prefix sums, kept in `rowSums`.
    Self.appendRow(
      pixels, width, values + row, values + above, squares + row, squares + above, layout,
      prefix: tilted ? rowSums : nil)
    if tilted { appendTilted(values + tiltedOffset + row) }
    count += 1
    imageRows += 1
  }

  /// Inclusive prefix sums of four 32-bit lanes, wrapping (little-endian lane order).
  @inline(__always)
  static func prefixSums(_ p: SIMD4<UInt32>) -> SIMD4<UInt32> {
    // Lane 1 += lane 0 and lane 3 += lane 2 (a 32-bit shift of each 64-bit half), then lanes 2
    // and 3 += lane 1. (Lane shifts written as `SIMD4(0, p[0], p[1], p[2])` get scalarised.)
    var p = p
    p &+= unsafeBitCast(unsafeBitCast(p, to: SIMD2<UInt64>.self) &<< 32, to: SIMD4<UInt32>.self)
    p &+= SIMD4(repeating: p[1]) & SIMD4(0, 0, .max, .max)
    return p
  }

  /// Inclusive prefix sums of eight 16-bit lanes whose total stays below 2¹⁶ (little-endian
  /// lane order).
  @inline(__always)
  static func prefixSums(_ p: SIMD8<UInt16>) -> SIMD8<UInt16> {
    // In 32-bit lanes, no partial sum carrying into the next 16-bit lane: each odd lane += the
    // even one below it; then lanes 2 and 3 (of each four) += lane 1; then lanes 4...7 += lane 3.
    var a = unsafeBitCast(p, to: SIMD4<UInt32>.self)
    a &+= a &<< 16
    let pairs = a &>> 16
    let both = pairs | (pairs &<< 16)
    a &+= unsafeBitCast(unsafeBitCast(both, to: SIMD2<UInt64>.self) &<< 32, to: SIMD4<UInt32>.self)
    let total = SIMD4(repeating: a[1] &>> 16)
    a &+= (total | (total &<< 16)) & SIMD4(0, 0, .max, .max)
    return unsafeBitCast(a, to: SIMD8<UInt16>.self)
  }

  /// The running sums and squared sums of sixteen pixels, by entry: lane k of `sumsOdd` is entry
  /// X = x + 2k + 1 (pixels x...x + 2k), of `sumsEven` X = x + 2k + 2, and the same for squares;
  /// `sums` and `squares` (the totals before these pixels, in every lane) are added to all and
  /// advanced. Little-endian lane order.
  @inline(__always)
  static func sixteen(
    _ pixels: UnsafePointer<UInt8>, sums: inout SIMD8<UInt32>, squares: inout SIMD8<UInt32>
  ) -> (
    sumsOdd: SIMD8<UInt32>, sumsEven: SIMD8<UInt32>, squaresOdd: SIMD8<UInt32>,
    squaresEven: SIMD8<UInt32>
  ) {
    // Pixel 2k in the low byte of lane k, pixel 2k + 1 in the high one.
    let v = UnsafeRawPointer(pixels).loadUnaligned(as: SIMD8<UInt16>.self)
    let (first, second) = (v & 0xFF, v &>> 8)
    // Grey sums stay in 16 bits (at most 16 × 255) until the carry is added.
    let pairs = prefixSums(first &+ second)
    let sumsEven = SIMD8<UInt32>(truncatingIfNeeded: pairs) &+ sums
    let sumsOdd = SIMD8<UInt32>(truncatingIfNeeded: pairs &- second) &+ sums
    // Squares fit 16 bits one by one, not in pairs.
    let (q1, q2) = (
      SIMD8<UInt32>(truncatingIfNeeded: first &* first), SIMD8<UInt32>(truncatingIfNeeded: second &* second)
    )
    let q = q1 &+ q2
    let low = prefixSums(q.lowHalf) &+ squares.lowHalf
    let high = prefixSums(q.highHalf) &+ SIMD4(repeating: low[3])
    let squaresEven = SIMD8(lowHalf: low, highHalf: high)
    sums = SIMD8(repeating: sumsEven[7])
    squares = SIMD8(repeating: high[3])
    return (sumsOdd, sumsEven, squaresEven &- q2, squaresEven)
  }

  /// Table row `row` = `above` + the running sums of `pixels` (and `squareRow` likewise with the
  /// squared levels), in `layout`'s column order, sixteen pixels at a time: entry X = x + 1 takes
  /// pixels 0...x. `prefix`, when given, receives the plain running sums P(X) for X in 0...width.
  @inline(__always)
  private static func appendRow(
    _ pixels: UnsafePointer<UInt8>, _ width: Int, _ row: UnsafeMutablePointer<Int32>,
    _ above: UnsafeMutablePointer<Int32>, _ squareRow: UnsafeMutablePointer<Int32>,
    _ squareAbove: UnsafeMutablePointer<Int32>, _ layout: CascadeEvaluator.Layout,
    prefix: UnsafeMutablePointer<Int32>?
  ) {
    @inline(__always) func store(_ v: SIMD8<UInt32>, _ p: UnsafeMutablePointer<Int32>) {
      UnsafeMutableRawPointer(p).storeBytes(of: v.lowHalf, as: SIMD4<UInt32>.self)
      UnsafeMutableRawPointer(p + 4).storeBytes(of: v.highHalf, as: SIMD4<UInt32>.self)
    }
    /// `row[i] = above[i] + v[i]` for i in 0..<8.
    @inline(__always) func add(
      _ v: SIMD8<UInt32>, _ above: UnsafeMutablePointer<Int32>, _ row: UnsafeMutablePointer<Int32>
    ) {
      let a0 = UnsafeRawPointer(above).loadUnaligned(as: SIMD4<UInt32>.self)
      let a1 = UnsafeRawPointer(above + 4).loadUnaligned(as: SIMD4<UInt32>.self)
      store(SIMD8(lowHalf: a0 &+ v.lowHalf, highHalf: a1 &+ v.highHalf), row)
    }
    /// Entries x + 1...x + 8 and x + 9...x + 16 in order, from the odd and even ones.
    @inline(__always) func interleaved(
      _ odd: SIMD8<UInt32>, _ even: SIMD8<UInt32>
    ) -> (SIMD8<UInt32>, SIMD8<UInt32>) {
      (
        SIMD8(odd[0], even[0], odd[1], even[1], odd[2], even[2], odd[3], even[3]),
        SIMD8(odd[4], even[4], odd[5], even[5], odd[6], even[6], odd[7], even[7])
      )
    }
    row[0] = above[0]
    squareRow[0] = squareAbove[0]
    prefix?[0] = 0
    var sums = SIMD8<UInt32>(repeating: 0)
    var squares = SIMD8<UInt32>(repeating: 0)
    var x = 0
    #if _endian(little)
      switch layout {
      case .plain:
        while x &+ 16 <= width {
          let t = sixteen(pixels + x, sums: &sums, squares: &squares)
          let (s0, s1) = interleaved(t.sumsOdd, t.sumsEven)
          let (q0, q1) = interleaved(t.squaresOdd, t.squaresEven)
          let (at, next) = (x &+ 1, x &+ 9)
          add(s0, above + at, row + at)
          add(s1, above + next, row + next)
          add(q0, squareAbove + at, squareRow + at)
          add(q1, squareAbove + next, squareRow + next)
          if let prefix {
            store(s0, prefix + at)
            store(s1, prefix + next)
          }
          x &+= 16
        }
      case .evenOdd(let half):
        // Even entries X = 2j go to j, odd ones 2j + 1 to half + j.
        while x &+ 16 <= width {
          let t = sixteen(pixels + x, sums: &sums, squares: &squares)
          let (even, odd) = ((x &>> 1) &+ 1, half &+ (x &>> 1))
          add(t.sumsEven, above + even, row + even)
          add(t.sumsOdd, above + odd, row + odd)
          add(t.squaresEven, squareAbove + even, squareRow + even)
          add(t.squaresOdd, squareAbove + odd, squareRow + odd)
          if let prefix {
            let (s0, s1) = interleaved(t.sumsOdd, t.sumsEven)
            store(s0, prefix + (x &+ 1))
            store(s1, prefix + (x &+ 9))
          }
          x &+= 16
        }
      }
    #endif
    var s = Int32(bitPattern: sums[0])
    var q = Int32(bitPattern: squares[0])
    while x < width {
      let v = Int32(pixels[x])
      s &+= v
      q &+= v &* v
      x &+= 1
      let c = layout.column(x)
      row[c] = above[c] &+ s
      squareRow[c] = squareAbove[c] &+ q
      prefix?[x] = s
    }
  }

  /// The tilted row for the image row just summed into `rowSums`, from the row prefix sums
  /// P(y, k) of the band's image rows (the sum of row y's first k pixels, k clamped to
  /// 0...width): T(X, Y) = Σ_{y<Y} [P(y, X + Y − 1 − y) − P(y, X − Y + y)] = A(X + Y − 1) − B(X − Y),
  /// where A and B accumulate P along anti-diagonals and diagonals, one image row at a time.
  private func appendTilted(_ out: UnsafeMutablePointer<Int32>) {
    let w = width
    let h = sourceRows
    let prefix = rowSums
    let rowTotal = prefix[w]
    let yy = imageRows + 1  // the table row being made
    let y = yy - 1  // the image row being added
    @inline(__always) func pref(_ k: Int) -> Int32 { k <= 0 ? 0 : (k >= w ? rowTotal : prefix[k]) }
    let total = rowsTotal
    diagonalA.withUnsafeMutableBufferPointer { a in
      diagonalB.withUnsafeMutableBufferPointer { b in
        // A(s, yy) = A(s, yy − 1) + P(y, s − y) for s in (yy − 1)...(w + yy − 1). The entry
        // s = w + yy − 1 is new: before this row it held the clamped total of the rows above.
        a[w + yy - 1] = total
        for s in (yy - 1)...(w + yy - 1) { a[s] &+= pref(s - y) }
        // B(d, yy) = B(d, yy − 1) + P(y, d + y) for d in −yy...(w − yy); the entry d = −yy is
        // new and held 0.
        b[h - yy] = 0
        for d in -yy...(w - yy) { b[d + h] &+= pref(d + y) }
        for x in 0...w { out[layout.column(x)] = a[x + yy - 1] &- b[x - yy + h] }
      }
    }
    rowsTotal &+= rowTotal
  }

  /// Drops the first `n` held rows (moving the others to the top).
  func discard(_ n: Int) {
    precondition(n >= 0 && n < count, "must keep the last row")
    guard n > 0 else { return }
    let kept = (count - n) * stride
    let from = n * stride
    values.update(from: values + from, count: kept)
    squares.update(from: squares + from, count: kept)
    if tilted { (values + tiltedOffset).update(from: values + tiltedOffset + from, count: kept) }
    count -= n
    firstRow += n
  }
}
