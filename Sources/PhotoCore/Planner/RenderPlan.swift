/// A chain of kernels planned over bands of its output: for each band, the rectangle every
/// kernel needs of its input, back to the rectangle of the source (`vips_region_prepare`'s
/// demand, worked out ahead). The planner's executor (`Planner`) then decides how the source
/// is decoded (one pass sliding down the image, or passes over parts of it) and runs the bands.
public struct RenderPlan: Sendable {
  /// The kernels, in order; none needs the whole image (the planner splits the chain there).
  public let kernels: [any StepKernel]
  /// The size of the source image (as the first kernel takes it) and of the output.
  public let inputSize: ImageSize, outputSize: ImageSize
  /// Rows of output per band (the last band may have fewer).
  public let bandHeight: Int
  /// For each band, `rects[k]` is what kernel k needs of its input (so `rects[0]` is the
  /// source's rectangle) and `rects[kernels.count]` is the band itself.
  public let bands: [[PixelRect]]

  /// Plans `kernels` (each taking the previous one's output; none `.whole`) on a source of
  /// `inputSize`, in bands of `bandHeight` output rows.
  public init(kernels: [any StepKernel], inputSize: ImageSize, bandHeight: Int) {
    precondition(bandHeight > 0, "bands have rows")
    var size = inputSize
    for kernel in kernels {
      precondition(kernel.inputSize == size, "each kernel takes the one before's output")
      precondition(kernel.capability != .whole, "the planner splits the chain at a whole-image step")
      size = kernel.outputSize
    }
    (self.kernels, self.inputSize, outputSize, self.bandHeight) = (kernels, inputSize, size, bandHeight)
    let count = (size.height + bandHeight - 1) / bandHeight
    bands = (0..<count).map { k in
      let band = PixelRect(
        x: 0, y: k * bandHeight, width: size.width,
        height: Swift.min(bandHeight, size.height - k * bandHeight))
      return Self.demand(of: band, through: kernels)
    }
  }

  /// What each of `kernels` needs of its input to make `output` of the last one's output:
  /// `demand[k]` is kernel k's input rectangle (so `demand[0]` is the source's) and
  /// `demand[kernels.count]` is `output`.
  public static func demand(of output: PixelRect, through kernels: [any StepKernel]) -> [PixelRect] {
    var rects = [output]
    for kernel in kernels.reversed() { rects.append(kernel.inputRect(for: rects.last!)) }
    return Array(rects.reversed())
  }

  /// The source rectangle band `k` needs.
  public func sourceRect(_ k: Int) -> PixelRect { bands[k][0] }

  /// True when the bands' source rectangles move down the source (their first and last rows
  /// never go back up) and each is at most `maxRows` rows high, so that one pass from the top
  /// serves them all through a window of a few bands' rows. A quarter turn's bands each need
  /// every row of the source (a group of its columns): they never slide.
  public func slidesDown(maxRows: Int) -> Bool {
    var (top, bottom) = (Int.min, Int.min)
    for band in bands where !band[0].isEmpty {
      if band[0].height > maxRows { return false }
      if band[0].y < top || band[0].maxY < bottom { return false }
      (top, bottom) = (band[0].y, band[0].maxY)
    }
    return true
  }

  /// The largest tile a band holds at any stage, in bytes.
  public var largestTileBytes: Int {
    bands.map { $0.map { $0.area * 4 }.max() ?? 0 }.max() ?? 0
  }
}
