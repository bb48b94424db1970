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

  /// Inclusive prefix sums of eight values held in 16-bit lanes (at most 2¹⁶ − 1 each), split by
  /// position: lane k of `even` sums values 0...2k, lane k of `odd` values 0...2k + 1; `carry`
  /// (the total before them, in every lane) is added to both.
  ///
  /// Pairs are summed first, then the four pair sums are prefix-summed.
  @inline(__always)
  static func prefixSums(_ v: SIMD8<UInt16>, carry: SIMD4<UInt32>) -> (
    even: SIMD4<UInt32>, odd: SIMD4<UInt32>
  ) {
    let lanes = unsafeBitCast(v, to: SIMD4<UInt32>.self)
    #if _endian(little)
      let (first, second) = (lanes & 0xFFFF, lanes &>> 16)
    #else
      let (first, second) = (lanes &>> 16, lanes & 0xFFFF)
    #endif
    var p = first &+ second
    // Lane 1 += lane 0 and lane 3 += lane 2 (a 32-bit shift of each 64-bit half), then lanes 2
    // and 3 += lane 1. (Lane shifts written as `SIMD4(0, p[0], p[1], p[2])` get scalarised.)
    let halves = unsafeBitCast(p, to: SIMD2<UInt64>.self)
    #if _endian(little)
      p &+= unsafeBitCast(halves &<< 32, to: SIMD4<UInt32>.self)
    #else
      p &+= unsafeBitCast(halves &>> 32, to: SIMD4<UInt32>.self)
    #endif
    p &+= SIMD4(repeating: p[1]) & SIMD4(0, 0, .max, .max)
    p &+= carry
    return (p &- second, p)
  }

  /// Table row `row` = `above` + the running sums of `pixels` (and `squares` likewise with the
  /// squared levels), in `layout`'s column order, eight pixels at a time: entry X = x + 1 takes
  /// pixels 0...x. `prefix`, when given, receives the plain running sums P(X) for X in 0...width.
  @inline(__always)
  private static func appendRow(
    _ pixels: UnsafePointer<UInt8>, _ width: Int, _ row: UnsafeMutablePointer<Int32>,
    _ above: UnsafeMutablePointer<Int32>, _ squareRow: UnsafeMutablePointer<Int32>,
    _ squareAbove: UnsafeMutablePointer<Int32>, _ layout: CascadeEvaluator.Layout,
    prefix: UnsafeMutablePointer<Int32>?
  ) {
    @inline(__always) func load(_ p: UnsafeMutablePointer<Int32>) -> SIMD4<UInt32> {
      UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt32>.self)
    }
    @inline(__always) func store(_ v: SIMD4<UInt32>, _ p: UnsafeMutablePointer<Int32>) {
      UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<UInt32>.self)
    }
    row[0] = above[0]
    squareRow[0] = squareAbove[0]
    prefix?[0] = 0
    var sums = SIMD4<UInt32>(repeating: 0)
    var squares = SIMD4<UInt32>(repeating: 0)
    var x = 0
    while x &+ 8 <= width {
      let v = SIMD8<UInt16>(
        truncatingIfNeeded: UnsafeRawPointer(pixels + x).loadUnaligned(as: SIMD8<UInt8>.self))
      // Lane k of `.even` is entry X = x + 2k + 1, of `.odd` X = x + 2k + 2.
      let s = prefixSums(v, carry: sums)
      let q = prefixSums(v &* v, carry: squares)
      sums = SIMD4(repeating: s.odd[3])
      squares = SIMD4(repeating: q.odd[3])
      switch layout {
      case .plain:
        let (s0, s1) = (
          SIMD4(s.even[0], s.odd[0], s.even[1], s.odd[1]), SIMD4(s.even[2], s.odd[2], s.even[3], s.odd[3])
        )
        let (q0, q1) = (
          SIMD4(q.even[0], q.odd[0], q.even[1], q.odd[1]), SIMD4(q.even[2], q.odd[2], q.even[3], q.odd[3])
        )
        let (at, next) = (x &+ 1, x &+ 5)
        store(load(above + at) &+ s0, row + at)
        store(load(above + next) &+ s1, row + next)
        store(load(squareAbove + at) &+ q0, squareRow + at)
        store(load(squareAbove + next) &+ q1, squareRow + next)
        if let prefix {
          store(s0, prefix + at)
          store(s1, prefix + next)
        }
      case .evenOdd(let half):
        // Even entries X = 2j go to j, odd ones 2j + 1 to half + j.
        let (even, odd) = ((x &>> 1) &+ 1, half &+ (x &>> 1))
        store(load(above + even) &+ s.odd, row + even)
        store(load(above + odd) &+ s.even, row + odd)
        store(load(squareAbove + even) &+ q.odd, squareRow + even)
        store(load(squareAbove + odd) &+ q.even, squareRow + odd)
        if let prefix {
          let (at, next) = (x &+ 1, x &+ 5)
          store(SIMD4(s.even[0], s.odd[0], s.even[1], s.odd[1]), prefix + at)
          store(SIMD4(s.even[2], s.odd[2], s.even[3], s.odd[3]), prefix + next)
        }
      }
      x &+= 8
    }
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
