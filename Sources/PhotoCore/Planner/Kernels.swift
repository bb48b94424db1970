/// A step whose every output pixel depends only on the input pixel at the same place: `body`
/// changes `count` pixels of one row in place, starting at pixel (x, y), RGBA as in `Image`.
///
///     PointwiseKernel(size: input) { pixels, x, y, count in
///       for i in 0..<count * 4 where i % 4 != 3 { pixels[i] = 255 - pixels[i] }
///     }
///
/// `body` is called from several threads at once, on different rows.
public struct PointwiseKernel: StepKernel {
  public let inputSize: ImageSize
  let body: @Sendable (_ pixels: UnsafeMutablePointer<UInt8>, _ x: Int, _ y: Int, _ count: Int) -> Void

  public init(
    size: ImageSize,
    _ body:
      @escaping @Sendable (_ pixels: UnsafeMutablePointer<UInt8>, _ x: Int, _ y: Int, _ count: Int) -> Void
  ) {
    (inputSize, self.body) = (size, body)
  }

  public var outputSize: ImageSize { inputSize }
  public var capability: StepCapability { .pointwise }
  public func inputRect(for output: PixelRect) -> PixelRect { output }

  public func render(_ input: PixelBuffer, into output: PixelBuffer) {
    let r = output.rect
    let body = body
    Parallel.forEachRowRange(r.height) { rows in
      for y in (r.y + rows.lowerBound)..<(r.y + rows.upperBound) { body(output.row(y), r.x, y, r.width) }
    }
  }
}

/// One operation of a local step: a region pixelated, blurred or filled, a stroke drawn.
protocol LocalOp: Sendable {
  /// The pixels it can change (clipped to the image), or empty.
  var footprint: PixelRect { get }
  /// The furthest (in x or in y) an output pixel's input lies from it.
  var reach: Int { get }
  /// The input it needs to make the pixels of `output` (which it contains), inside the image.
  func dependency(of output: PixelRect) -> PixelRect
  /// Makes the pixels of `output` in `tile`, which holds `dependency(of: output)` as the image
  /// entering the operation. Pixels of `tile` outside `output` may be left anyhow.
  func apply(_ tile: PixelBuffer, output: PixelRect)
}

/// A local step: operations run one after the other on the same pixels (faceblur's faces, a
/// brush's strokes). A rectangle of output needs, working back from the last operation, what
/// each needs of the one before.
struct LocalKernel: StepKernel {
  let inputSize: ImageSize
  let ops: [any LocalOp]

  init(size: ImageSize, ops: [any LocalOp]) { (inputSize, self.ops) = (size, ops) }

  var outputSize: ImageSize { inputSize }

  /// Local; the reach is the operations' together (one's input is the output of the one before).
  var capability: StepCapability {
    .local(reach: ops.reduce(0) { $0 + $1.reach }, footprint: ops.map(\.footprint).filter { !$0.isEmpty })
  }

  /// The rectangle each operation must make right, last first: `[output, what the last needs,
  /// ..., what the first needs]`.
  func rects(for output: PixelRect) -> [PixelRect] {
    let all = PixelRect(inputSize)
    var rects = [output]
    for op in ops.reversed() {
      rects.append(op.dependency(of: rects.last!).intersection(all).union(rects.last!))
    }
    return rects
  }

  func inputRect(for output: PixelRect) -> PixelRect { rects(for: output).last! }

  func render(_ input: PixelBuffer, into output: PixelBuffer) {
    let rects = rects(for: output.rect)
    for (k, op) in ops.enumerated() { op.apply(input, output: rects[ops.count - 1 - k]) }
  }
}

/// A step that renders only the whole image at once: a filter that implements `render(_:_:on:)`
/// alone. Its output has its input's size.
struct WholeImageKernel: StepKernel {
  let inputSize: ImageSize
  let body: @Sendable (inout Image) throws(FilterError) -> Void

  var outputSize: ImageSize { inputSize }
  var capability: StepCapability { .whole }
  func inputRect(for output: PixelRect) -> PixelRect { PixelRect(inputSize) }

  func render(_ input: PixelBuffer, into output: PixelBuffer) throws(FilterError) {
    var image = input.image(PixelRect(inputSize))
    try body(&image)
    precondition(
      image.width == inputSize.width && image.height == inputSize.height,
      "a filter that changes the image's size declares it in prepare")
    image.withPixels { output.copy(output.rect, from: $0) }
  }
}
