import Dispatch

/// Finds faces the way OpenCV's `CascadeClassifier::detectMultiScale` does.
///
/// For the same grey image, cascade and options it returns the boxes OpenCV 4.x returns:
/// 1. Scales: `factor` runs 1, f, f², … (in `Double`, f = `scaleFactor`); a scale is kept, as a
///    `Float`, while the window `round(w·factor) × round(h·factor)` fits both the image and
///    `maxSize`, and when it is at least `minSize`.
/// 2. At each scale the grey image is shrunk to `round(W / scale) × round(H / scale)` with
///    OpenCV's bit-exact bilinear resize, and the cascade's own-size window slides over it in steps
///    of 2 pixels (1 from scale 2 up), skipping one more step after a window fails stage 0.
/// 3. A window that passes every stage is a raw box `(round(x·scale), round(y·scale))` of the
///    scaled window size, in pixels of the original image, clipped to the image.
/// 4. The raw boxes are grouped as `groupRectangles(boxes, minNeighbors, 0.2)` does.
public enum HaarDetector {
  /// Detects faces in `image` (converted to grey with OpenCV's BGR2GRAY weights), using all cores.
  ///
  /// - Parameters:
  ///   - image: the photo, upright; alpha is ignored.
  ///   - cascade: a frontal face cascade, for example OpenCV's haarcascade_frontalface_default.
  ///   - options: OpenCV's detectMultiScale settings.
  /// - Returns: face boxes in pixels of `image`, in OpenCV's order.
  /// - Complexity: O(width × height × scales).
  public static func detect(
    in image: Image, cascade: HaarCascade, options: DetectionOptions
  ) -> [FaceBox] {
    detect(in: GreyImage(image), cascade: cascade, options: options)
  }

  /// Detects faces in a grey image; boxes are in pixels of `grey`.
  ///
  /// - Complexity: O(width × height × scales).
  public static func detect(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions
  ) -> [FaceBox] {
    let raw = rawDetections(in: grey, cascade: cascade, options: options)
    return RectangleGrouping.group(raw, minNeighbors: options.minNeighbors, eps: 0.2)
  }

  /// The scales OpenCV searches for an image of `width` × `height` pixels.
  static func scales(
    width: Int, height: Int, cascade: HaarCascade, options: DetectionOptions
  ) -> [Float] {
    precondition(options.scaleFactor > 1, "scaleFactor must be greater than 1")
    let maxW = options.maxSize ?? width
    let maxH = options.maxSize ?? height
    let minSide = options.minSize ?? 0
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

  /// Every window that passes all stages, at every scale, before grouping; in pixels of `grey`,
  /// ordered by scale, then row, then column.
  ///
  /// - Complexity: O(width × height × scales).
  static func rawDetections(
    in grey: GreyImage, cascade: HaarCascade, options: DetectionOptions
  ) -> [FaceBox] {
    precondition(options.minNeighbors >= 0, "minNeighbors must not be negative")
    let scales = scales(width: grey.width, height: grey.height, cascade: cascade, options: options)
    guard let first = scales.first else { return [] }
    // OpenCV splits rows into stripes: as many as 32-pixel columns in the first scale's search
    // area, each a whole number of steps. The stripes can end before the last row (see
    // `searchedRows`).
    let stripes = (workingSize(of: grey, cascade: cascade, scale: first).columns + 31) / 32
    var found = [[FaceBox]](repeating: [], count: scales.count)
    if Parallel.workerCount > 1 && scales.count >= 4 * Parallel.workerCount {
      // Many scales: each core takes the next scale, largest first, and works through it alone.
      // No core waits for another between scales; the largest scale is at most a sixth or so of
      // the work (1 / Σ f^-2k), so the cores finish together.
      found.withUnsafeMutableBufferPointer { out in
        let results = UncheckedSendable(out)
        DispatchQueue.concurrentPerform(iterations: scales.count) { i in
          results.value[i] = detections(
            in: grey, cascade: cascade, scale: scales[i], stripes: stripes, parallel: false)
        }
      }
    } else {
      for (i, scale) in scales.enumerated() {
        found[i] = detections(
          in: grey, cascade: cascade, scale: scale, stripes: stripes, parallel: true)
      }
    }
    return found.flatMap { $0 }
  }

  /// The size of `grey` shrunk for `scale`, and the number of window origins across and down
  /// (x in `0..<columns`, y in `0..<rows`), as OpenCV's `ScaleData` and `getWorkingSize` give them.
  static func workingSize(
    of grey: GreyImage, cascade: HaarCascade, scale: Float
  ) -> (width: Int, height: Int, columns: Int, rows: Int) {
    let width = Int((Float(grey.width) / scale).rounded(.toNearestOrEven))
    let height = Int((Float(grey.height) / scale).rounded(.toNearestOrEven))
    return (
      width, height, max(width + 1 - cascade.windowWidth, 0),
      max(height + 1 - cascade.windowHeight, 0)
    )
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

  /// The windows that pass at one scale, in pixels of `grey`.
  ///
  /// Splits the work over all cores when `parallel` is true, else runs on the calling thread.
  static func detections(
    in grey: GreyImage, cascade: HaarCascade, scale: Float, stripes: Int, parallel: Bool
  ) -> [FaceBox] {
    let (scaledWidth, scaledHeight, columns, allRows) = workingSize(
      of: grey, cascade: cascade, scale: scale)
    let (ww, wh) = (cascade.windowWidth, cascade.windowHeight)
    let step = scale >= 2 ? 1 : 2
    let rows = searchedRows(allRows, step: step, stripes: stripes)
    guard columns > 0, rows > 0 else { return [] }
    let boxWidth = Int((Float(ww) * scale).rounded(.toNearestOrEven))
    let boxHeight = Int((Float(wh) * scale).rounded(.toNearestOrEven))

    let scaled = grey.resized(width: scaledWidth, height: scaledHeight, parallel: parallel)
    let integral = IntegralImage(scaled, tilted: cascade.hasTiltedFeatures, parallel: parallel)
    let evaluator = CascadeEvaluator(
      cascade, stride: integral.stride, tiltedOffset: integral.tiltedOffset)
    let stride = integral.stride
    let tables = UncheckedSendable((UnsafePointer(integral.values), UnsafePointer(integral.squares)))

    let (imageWidth, imageHeight) = (grey.width, grey.height)
    let lines = (rows + step - 1) / step
    var found = [[FaceBox]](repeating: [], count: lines)
    found.withUnsafeMutableBufferPointer { out in
      let results = UncheckedSendable(out)
      Parallel.forEachRowRange(lines, minimumRows: 4, parallel: parallel) { range in
        let (values, squares) = tables.value
        for line in range {
          let y = line * step
          var hits: [FaceBox] = []
          var x = 0
          while x < columns {
            let offset = y * stride + x
            let result = evaluator.evaluate(values + offset, squares + offset)
            if result > 0 {
              // Rounding can push the box past the image's edge; OpenCV 4.14 clips it.
              let bx = Int((Float(x) * scale).rounded(.toNearestOrEven))
              let by = Int((Float(y) * scale).rounded(.toNearestOrEven))
              hits.append(
                FaceBox(
                  x: bx, y: by, width: min(boxWidth, imageWidth - bx),
                  height: min(boxHeight, imageHeight - by)))
            }
            x += result == 0 ? 2 * step : step
          }
          results.value[line] = hits
        }
      }
    }
    withExtendedLifetime(integral) {}
    return found.flatMap { $0 }
  }
}
