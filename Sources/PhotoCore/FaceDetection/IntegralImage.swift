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

  private let rowSums: UnsafeMutablePointer<Int32>
  private let rowSquares: UnsafeMutablePointer<Int32>
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
    rowSquares = .allocate(capacity: stride + 8)
    rowSquares.initialize(repeating: 0, count: stride + 8)
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
    rowSquares.deallocate()
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
    let (w, st) = (width, stride)
    let (ps, pq) = (rowSums, rowSquares)
    ps[0] = 0
    pq[0] = 0
    var s: Int32 = 0
    var q: Int32 = 0
    var x = 0
    while x < w {
      let v = Int32(pixels[x])
      s &+= v
      q &+= v &* v
      x &+= 1
      ps[x] = s
      pq[x] = q
    }
    let above = (count - 1) * st
    let row = count * st
    Self.accumulate(values + row, values + above, ps, st, layout)
    Self.accumulate(squares + row, squares + above, pq, st, layout)
    if tilted { appendTilted(values + tiltedOffset + row) }
    count += 1
    imageRows += 1
  }

  /// `row[column(X)] = above[column(X)] + prefix[X]` for X in 0..<stride (`prefix` readable 8
  /// entries further).
  @inline(__always)
  private static func accumulate(
    _ row: UnsafeMutablePointer<Int32>, _ above: UnsafeMutablePointer<Int32>,
    _ prefix: UnsafeMutablePointer<Int32>, _ stride: Int, _ layout: CascadeEvaluator.Layout
  ) {
    switch layout {
    case .plain:
      var x = 0
      while x + 4 <= stride {
        let sum =
          UnsafeRawPointer(above + x).loadUnaligned(as: SIMD4<Int32>.self)
          &+ UnsafeRawPointer(prefix + x).loadUnaligned(as: SIMD4<Int32>.self)
        UnsafeMutableRawPointer(row + x).storeBytes(of: sum, as: SIMD4<Int32>.self)
        x &+= 4
      }
      while x < stride {
        row[x] = above[x] &+ prefix[x]
        x &+= 1
      }
    case .evenOdd(let half):
      // Even columns 2j go to j, odd ones 2j + 1 to half + j.
      let odd = stride - half
      let (rowOdd, aboveOdd) = (row + half, above + half)
      var j = 0
      while j + 4 <= odd {
        let pair = UnsafeRawPointer(prefix + 2 &* j).loadUnaligned(as: SIMD8<Int32>.self)
        let evens = UnsafeRawPointer(above + j).loadUnaligned(as: SIMD4<Int32>.self) &+ pair.evenHalf
        let odds = UnsafeRawPointer(aboveOdd + j).loadUnaligned(as: SIMD4<Int32>.self) &+ pair.oddHalf
        UnsafeMutableRawPointer(row + j).storeBytes(of: evens, as: SIMD4<Int32>.self)
        UnsafeMutableRawPointer(rowOdd + j).storeBytes(of: odds, as: SIMD4<Int32>.self)
        j &+= 4
      }
      while j < odd {
        row[j] = above[j] &+ prefix[2 &* j]
        rowOdd[j] = aboveOdd[j] &+ prefix[2 &* j &+ 1]
        j &+= 1
      }
      if half > odd { row[half - 1] = above[half - 1] &+ prefix[2 &* (half - 1)] }
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
