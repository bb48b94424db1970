import Dispatch

/// Finds faces the way OpenCV's `CascadeClassifier::detectMultiScale` does.
///
/// For the same grey image, cascade and options it returns the boxes OpenCV 4.x returns:
/// 1. Scales: `factor` runs 1, f, f², … (in `Double`, f = `scaleFactor`); a scale is kept, as a
///    `Float`, while the window `round(w·factor) × round(h·factor)` fits both the image and
///    `maxFace`, and when it is at least `minFace`.
/// 2. At each scale the grey image is shrunk to `round(W / scale) × round(H / scale)` with
///    OpenCV's bit-exact bilinear resize, and the cascade's own-size window slides over it in steps
///    of 2 pixels (1 from scale 2 up), skipping one more step after a window fails stage 0.
/// 3. A window that passes every stage is a raw box `(round(x·scale), round(y·scale))` of the
///    scaled window size, in pixels of the original image, clipped to the image.
/// 4. The raw boxes are grouped as `groupRectangles(boxes, minNeighbors, 0.2)` does.
///
/// The work is split into bands of window rows of each scale (see ``ScaleSearch``), which all
/// cores take largest first; each band makes only the table rows it needs, so the memory beyond
/// the grey image is a few megabytes per core. The boxes do not depend on the number of cores
/// or on the order in which bands finish: they come out in the order OpenCV returns them when
/// it runs on one thread (raw boxes by scale, then row, then column; groups in the order of
/// their first raw box).
public enum HaarDetector {
  /// Detects faces in `image` (converted to grey with OpenCV's BGR2GRAY weights), using all cores.
  ///
  ///     let faces = try HaarDetector.detect(in: image, cascade: cascade, options: DetectionOptions())
  ///
  /// - Parameters:
  ///   - image: the photo, upright; alpha is ignored.
  ///   - cascade: a frontal face cascade, for example OpenCV's haarcascade_frontalface_default.
  ///   - options: OpenCV's detectMultiScale settings.
  /// - Returns: face boxes in pixels of `image`, in OpenCV's order (see above).
  /// - Throws: ``DetectionError/tooManyCandidates(limit:)`` when the cascade accepts more raw
  ///   windows than ``candidateLimit(width:height:)``.
  /// - Complexity: O(width × height × scales).
  public static func detect(
    in image: Image, cascade: HaarCascade, options: DetectionOptions
  ) throws(DetectionError) -> [FaceBox] {
    // The grey image and the raw windows up to the limit are drawn from the process's budget.
    let windows = candidateLimit(width: image.width, height: image.height)
    let memory = try MemoryBudget.process.reserveForDetection(
      image.width * image.height + windows * MemoryLayout<FaceBox>.stride, for: "face detection (Haar)")
    defer { memory.release() }
    return try detect(in: GreyImage(image), cascade: cascade, options: options)
  }

  /// Detects faces in a grey image; boxes are in pixels of `grey`.
  ///
  /// - Throws: ``DetectionError/tooManyCandidates(limit:)`` as ``detect(in:cascade:options:)``.
  /// - Complexity: O(width × height × scales).
  public static func detect(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions
  ) throws(DetectionError) -> [FaceBox] {
    try detect(in: grey, cascade: cascade, options: options, parallel: true)
  }

  /// ``detect(in:cascade:options:)`` on all cores when `parallel` is true, else on this thread
  /// alone (the same boxes in the same order).
  static func detect(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions, parallel: Bool
  ) throws(DetectionError) -> [FaceBox] {
    let raw = try rawDetections(
      in: grey, cascade: cascade, options: options,
      limit: candidateLimit(width: grey.width, height: grey.height), parallel: parallel)
    return RectangleGrouping.group(raw, minNeighbors: options.minNeighbors, eps: 0.2)
  }

  // MARK: Bounded work

  /// Pixels of the image per raw window a detection may accept (see ``candidateLimit(width:height:)``).
  public static let pixelsPerCandidate = 8
  /// The fewest raw windows any image may give.
  public static let minimumCandidateLimit = 100_000

  /// The most raw windows (before grouping) a detection in a `width` × `height` image may give:
  /// one per ``pixelsPerCandidate`` pixels, and at least ``minimumCandidateLimit``.
  ///
  /// Real cascades stay far below it on real photos: the most measured on the fixtures is
  /// OpenCV's smile cascade on xmp_test.jpg, about one raw window per 44 pixels, and the frontal
  /// face cascade gives about one per 9 000 pixels on the 24 MP crowd photo. A cascade whose
  /// stages pass nearly every window gives two or more per pixel; grouping that many would take
  /// minutes, so the detection stops instead.
  public static func candidateLimit(width: Int, height: Int) -> Int {
    max(minimumCandidateLimit, width * height / pixelsPerCandidate)
  }

  // MARK: OpenCV's scales, sizes and stripes

  /// The scales OpenCV searches for an image of `width` × `height` pixels.
  static func scales(
    width: Int, height: Int, cascade: HaarCascade, options: DetectionOptions
  ) -> [Float] {
    precondition(options.scaleFactor > 1, "scaleFactor must be greater than 1")
    let maxW = options.maxFace ?? width
    let maxH = options.maxFace ?? height
    let minSide = options.minFace ?? 0
    var result: [Float] = []
    var factor = 1.0
    while true {
      let w = Int((Double(cascade.windowWidth) * factor).rounded(.toNearestOrEven))
      let h = Int((Double(cascade.windowHeight) * factor).rounded(.toNearestOrEven))
      if w > maxW || h > maxH || w > width || h > height { break }
      if w >= minSide && h >= minSide { result.append(Float(factor)) }
      factor *= options.scaleFactor
    }
    return result
  }

  /// The size of `grey` shrunk for `scale`, and the number of window origins across and down
  /// (x in `0..<columns`, y in `0..<rows`), as OpenCV's `ScaleData` and `getWorkingSize` give them.
  static func workingSize(
    of grey: GreyImage, cascade: HaarCascade, scale: Float
  ) -> (width: Int, height: Int, columns: Int, rows: Int) {
    workingSize(width: grey.width, height: grey.height, cascade: cascade, scale: scale)
  }

  /// ``workingSize(of:cascade:scale:)`` for an image of `width` × `height` pixels.
  static func workingSize(
    width: Int, height: Int, cascade: HaarCascade, scale: Float
  ) -> (width: Int, height: Int, columns: Int, rows: Int) {
    let w = Int((Float(width) / scale).rounded(.toNearestOrEven))
    let h = Int((Float(height) / scale).rounded(.toNearestOrEven))
    return (w, h, max(w + 1 - cascade.windowWidth, 0), max(h + 1 - cascade.windowHeight, 0))
  }

  /// How many of `rows` window rows OpenCV searches at one scale.
  ///
  /// OpenCV gives each of `stripes` stripes `max(⌈(rows / step) / stripes⌉, 1) × step` rows, with
  /// `rows / step` truncated, so when `rows` is odd and the step is 2 the last row can fall after
  /// the last stripe and go unsearched.
  static func searchedRows(_ rows: Int, step: Int, stripes: Int) -> Int {
    guard stripes > 0 else { return 0 }
    let stripeRows = max((rows / step + stripes - 1) / stripes, 1) * step
    return min(rows, stripes * stripeRows)
  }

  // MARK: The search

  /// Table entries per band of work: a few megabytes of tables, and enough bands for the cores
  /// to share the work evenly.
  static let bandEntries = 4_000_000

  /// Every window that passes all stages, at every scale, before grouping; in pixels of `grey`,
  /// ordered by scale, then row, then column. No limit on their number.
  ///
  /// - Complexity: O(width × height × scales).
  static func rawDetections(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions
  ) -> [FaceBox] {
    // With no limit there is nothing to throw.
    (try? rawDetections(in: grey, cascade: cascade, options: options, limit: .max, parallel: true)) ?? []
  }

  /// ``rawDetections(in:cascade:options:)`` that stops once more than `limit` windows pass, on
  /// all cores when `parallel` is true, else on this thread alone, in bands of about
  /// `bandEntries` table entries, with the `kernel` build of the stump kernels (the boxes depend
  /// on neither).
  ///
  /// - Throws: ``DetectionError/tooManyCandidates(limit:)`` when more than `limit` windows pass.
  static func rawDetections(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions, limit: Int, parallel: Bool,
    bandEntries: Int = HaarDetector.bandEntries, kernel: HaarKernel = .best
  ) throws(DetectionError) -> [FaceBox] {
    precondition(options.minNeighbors >= 0, "minNeighbors must not be negative")
    let scales = scales(width: grey.width, height: grey.height, cascade: cascade, options: options)
    guard let first = scales.first else { return [] }
    // OpenCV splits rows into stripes: as many as 32-pixel columns in the first scale's search
    // area, each a whole number of steps. The stripes can end before the last row (see
    // `searchedRows`).
    let stripes = (workingSize(of: grey, cascade: cascade, scale: first).columns + 31) / 32
    let searches = scales.compactMap {
      ScaleSearch(
        greyWidth: grey.width, greyHeight: grey.height, cascade: cascade, scale: $0, stripes: stripes)
    }
    var units: [(search: Int, band: Range<Int>, cost: Int)] = []
    for (s, search) in searches.enumerated() {
      for band in search.bands(entries: bandEntries, windowHeight: cascade.windowHeight) {
        units.append((s, band, search.cost(of: band, windowHeight: cascade.windowHeight)))
      }
    }
    // Largest first, so that the cores finish together.
    let order = units.indices.sorted { (units[$0].cost, $1) > (units[$1].cost, $0) }
    let budget = CandidateBudget(limit: limit)
    var found = [[FaceBox]](repeating: [], count: units.count)
    let (width, height) = (grey.width, grey.height)
    grey.pixels.withUnsafeBufferPointer { pixels in
      found.withUnsafeMutableBufferPointer { out in
        let shared = UncheckedSendable((pixels.baseAddress!, out))
        let run = { (u: Int) in
          let (px, results) = shared.value
          let unit = units[u]
          results[u] = searches[unit.search].search(
            unit.band, in: px, greyWidth: width, greyHeight: height, cascade: cascade, budget: budget,
            kernel: kernel)
        }
        if parallel && Parallel.workerCount > 1 {
          Parallel.forEach(units.count) { k in run(order[k]) }
        } else {
          for u in order { run(u) }
        }
      }
    }
    if budget.isSpent { throw .tooManyCandidates(limit: limit) }
    return found.flatMap { $0 }
  }
}
