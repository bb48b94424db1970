import Synchronization

/// One scale of the pyramid, searched as OpenCV searches it, a band of window rows at a time.
///
/// A band never holds the whole shrunk image or its tables: its rows are shrunk from the grey
/// image one at a time (``GreyImage/ResizedRows``) into ``IntegralRows`` that keep only the
/// window's height plus ``chunkRows`` rows, so its memory is about
/// `(window height + chunkRows) × width × 8` bytes (12 with tilted features) whatever the image's
/// height.
struct ScaleSearch {
  /// The scale, as OpenCV keeps it (`Float`).
  let scale: Float
  /// The shrunk image's size in pixels.
  let width: Int, height: Int
  /// Window origins across (x in `0..<columns`) and window rows searched (y in `0..<rows`).
  let columns: Int, rows: Int
  /// 2 below scale 2, else 1: windows step this many pixels across and down.
  let step: Int
  /// The raw box's size in pixels of the grey image.
  let boxWidth: Int, boxHeight: Int

  /// Window rows whose table rows are made before they are searched, at a time.
  static let chunkRows = 128

  /// The search at `scale` of a `greyWidth` × `greyHeight` image, or nil when no window fits.
  /// `stripes` is OpenCV's stripe count (see ``HaarDetector/searchedRows(_:step:stripes:)``).
  init?(greyWidth: Int, greyHeight: Int, cascade: HaarCascade, scale: Float, stripes: Int) {
    let (w, h, columns, allRows) = HaarDetector.workingSize(
      width: greyWidth, height: greyHeight, cascade: cascade, scale: scale)
    step = scale >= 2 ? 1 : 2
    rows = HaarDetector.searchedRows(allRows, step: step, stripes: stripes)
    guard columns > 0, rows > 0 else { return nil }
    (self.scale, width, height, self.columns) = (scale, w, h, columns)
    boxWidth = Int((Float(cascade.windowWidth) * scale).rounded(.toNearestOrEven))
    boxHeight = Int((Float(cascade.windowHeight) * scale).rounded(.toNearestOrEven))
  }

  /// The window rows split into bands of about `entries` table entries each (at least 8 window
  /// heights of rows, so that the rows two bands both make stay a small part), each starting on
  /// a searched row.
  func bands(entries: Int, windowHeight: Int) -> [Range<Int>] {
    let perBand = max(8 * windowHeight, entries / (width + 1))
    let count = max(1, (rows + perBand / 2) / perBand)
    var result: [Range<Int>] = []
    var start = 0
    for i in 1...count {
      // Band ends on a multiple of the step, so every band starts on a searched row.
      let end = i == count ? rows : min(rows, (rows * i / count + step - 1) / step * step)
      if end > start { result.append(start..<end) }
      start = end
    }
    return result
  }

  /// The table entries a band makes: a measure of its work, for scheduling.
  func cost(of band: Range<Int>, windowHeight: Int) -> Int {
    (band.count + windowHeight) * (width + 1) + band.count * columns / (step * step)
  }

  /// The raw boxes of the windows in rows `band` that pass every stage, in pixels of the grey
  /// image, by row then column. Stops early, returning what it has, once `budget` is spent.
  /// `kernel` picks the build of the stump kernels (the same windows from each).
  ///
  /// - Parameter grey: the `greyWidth` × `greyHeight` grey levels.
  /// - Complexity: O((band rows + window height) × width) to make the tables, plus the cascade's
  ///   work on each window.
  func search(
    _ band: Range<Int>, in grey: UnsafePointer<UInt8>, greyWidth: Int, greyHeight: Int,
    cascade: HaarCascade, budget: CandidateBudget, kernel: HaarKernel = .best
  ) -> [FaceBox] {
    let wh = cascade.windowHeight
    let layout: CascadeEvaluator.Layout = step == 2 ? .evenOdd(half: (width + 2) / 2) : .plain
    let chunk = Self.chunkRows
    let table = IntegralRows(
      width: width, capacity: min(chunk, band.count) + wh, layout: layout,
      tilted: cascade.hasTiltedFeatures, sourceRows: band.count - 1 + wh)
    let evaluator = CascadeEvaluator(
      cascade, stride: table.stride, tiltedOffset: table.tiltedOffset, layout: layout, kernel: kernel)
    let stumpBased = evaluator.laneReady
    let positions = (columns + step - 1) / step
    let same = width == greyWidth && height == greyHeight
    var resizer =
      same
      ? nil
      : GreyImage.ResizedRows(
        grey, width: greyWidth, height: greyHeight, to: (width, height), kernel: kernel)
    let line = UnsafeMutablePointer<UInt8>.allocate(capacity: width)
    // The kernels read and write past the row's last window (see ``CascadeEvaluator``).
    let padding = CascadeEvaluator.lanePadding
    let codes = UnsafeMutablePointer<Int8>.allocate(capacity: positions + padding)
    let factors = UnsafeMutablePointer<Float>.allocate(capacity: positions + padding)
    factors.initialize(repeating: 0, count: positions + padding)
    let passed = UnsafeMutablePointer<Int32>.allocate(capacity: positions)
    defer {
      line.deallocate()
      codes.deallocate()
      factors.deallocate()
      passed.deallocate()
    }
    var hits: [FaceBox] = []
    var nextImageRow = band.lowerBound
    var y = band.lowerBound
    while y < band.upperBound {
      let chunkEnd = min(y + chunk, band.upperBound)
      let lastY = y + (chunkEnd - 1 - y) / step * step
      // Window row lastY reads table rows up to lastY + wh, i.e. image rows below lastY + wh.
      while nextImageRow < lastY + wh {
        if resizer != nil {
          resizer!.row(nextImageRow, into: line)
          table.append(line)
        } else {
          table.append(grey + nextImageRow * greyWidth)
        }
        nextImageRow += 1
      }
      for wy in Swift.stride(from: y, through: lastY, by: step) {
        if budget.isSpent { return hits }
        let base = (wy - band.lowerBound - table.firstRow) * table.stride
        let p = UnsafePointer(table.values + base)
        let q = UnsafePointer(table.squares + base)
        let before = hits.count
        func hit(_ i: Int) {
          // Rounding can push the box past the image's edge; OpenCV 4.14 clips it.
          let bx = Int((Float(i * step) * scale).rounded(.toNearestOrEven))
          let by = Int((Float(wy) * scale).rounded(.toNearestOrEven))
          hits.append(
            FaceBox(
              x: bx, y: by, width: min(boxWidth, greyWidth - bx), height: min(boxHeight, greyHeight - by)))
        }
        if stumpBased {
          evaluator.firstStage(p, q, count: positions, codes: codes, factors: factors)
          // Which windows OpenCV visits depends on stage 0 alone: it skips the window after one
          // that fails stage 0. Keep a flag for each visited window that passed it, without a
          // branch per window (whether one failed is not predictable): `skipped` is 1 when the
          // window before failed stage 0 and was visited.
          var skipped: Int8 = 0
          @inline(__always) func visit(_ i: Int) {
            let (code, visited) = (codes[i], 1 &- skipped)
            codes[i] = visited & (code == 1 ? 1 : 0)
            skipped = visited & (code == 0 ? 1 : 0)
          }
          var i = 0
          while i + 8 <= positions {
            if UnsafeRawPointer(codes + i).loadUnaligned(as: UInt64.self) == .max {
              // Eight flat windows: none passed, and the next one is visited.
              UnsafeMutableRawPointer(codes + i).storeBytes(of: 0, as: UInt64.self)
              skipped = 0
            } else {
              for k in i..<(i + 8) { visit(k) }
            }
            i += 8
          }
          while i < positions {
            visit(i)
            i += 1
          }
          for k in positions..<(positions + padding) { codes[k] = 0 }
          // The later stages, on lanes of windows starting at each that passed.
          let found = evaluator.laterStages(
            p, factors: factors, flags: codes, count: positions, hits: passed)
          for k in 0..<found { hit(Int(passed[k])) }
        } else {
          var i = 0
          while i < positions {
            let result = evaluator.evaluate(p + i, q + i)
            if result > 0 { hit(i) }
            // OpenCV skips the next window after one that fails stage 0.
            i += result == 0 ? 2 : 1
          }
        }
        if hits.count > before && !budget.spend(hits.count - before) { return hits }
      }
      y = lastY + step
      if y < band.upperBound { table.discard(y - band.lowerBound - table.firstRow) }
    }
    return hits
  }
}

/// The raw windows a detection may still accept, shared by the threads that search it.
final class CandidateBudget: Sendable {
  let limit: Int
  private let used = Atomic<Int>(0)

  init(limit: Int) { self.limit = limit }

  /// Records `count` more windows; false once more than `limit` have been recorded in all.
  func spend(_ count: Int) -> Bool {
    used.add(count, ordering: .relaxed).newValue <= limit
  }

  /// True once more than `limit` windows have been recorded. Whether that happens does not depend
  /// on the order in which threads record: only on the total.
  var isSpent: Bool { used.load(ordering: .relaxed) > limit }
}
