/// A geometric transform that moves pixels without changing them: a quarter turn or a mirror (the
/// eight symmetries of a rectangle, EXIF's orientations) followed by a crop window.
///
/// It maps each output pixel (X, Y) to the input pixel it copies: x = a·X + b·Y + tx and
/// y = c·X + d·Y + ty, with (a b; c d) one of the eight signed permutation matrices. Transforms
/// compose (`then`), so a chain of rotations, flips and crops is one transform.
public struct PixelTransform: Sendable, Hashable {
  public let inputSize: ImageSize
  public let outputSize: ImageSize
  /// Output pixel (x, y) copies input pixel (a x + b y + tx, c x + d y + ty).
  public let a: Int, b: Int, c: Int, d: Int
  public let tx: Int, ty: Int

  init(inputSize: ImageSize, outputSize: ImageSize, a: Int, b: Int, c: Int, d: Int, tx: Int, ty: Int) {
    (self.inputSize, self.outputSize) = (inputSize, outputSize)
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }

  /// The identity on an image of `size`.
  public static func identity(_ size: ImageSize) -> PixelTransform {
    PixelTransform(inputSize: size, outputSize: size, a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
  }

  /// A turn clockwise by `quarterTurns` × 90° (taken modulo 4), as `Image.rotated(quarterTurns:)`.
  public static func rotation(quarterTurns: Int, of size: ImageSize) -> PixelTransform {
    let (w, h) = (size.width, size.height)
    switch ((quarterTurns % 4) + 4) % 4 {
    case 1:  // output (X, Y) = (h - 1 - y, x)
      return PixelTransform(
        inputSize: size, outputSize: ImageSize(h, w), a: 0, b: 1, c: -1, d: 0, tx: 0, ty: h - 1)
    case 2:
      return PixelTransform(inputSize: size, outputSize: size, a: -1, b: 0, c: 0, d: -1, tx: w - 1, ty: h - 1)
    case 3:  // output (X, Y) = (y, w - 1 - x)
      return PixelTransform(
        inputSize: size, outputSize: ImageSize(h, w), a: 0, b: -1, c: 1, d: 0, tx: w - 1, ty: 0)
    default:
      return .identity(size)
    }
  }

  /// A mirror: left-right when `horizontally`, else top-bottom.
  public static func flip(horizontally: Bool, of size: ImageSize) -> PixelTransform {
    let (w, h) = (size.width, size.height)
    return horizontally
      ? PixelTransform(inputSize: size, outputSize: size, a: -1, b: 0, c: 0, d: 1, tx: w - 1, ty: 0)
      : PixelTransform(inputSize: size, outputSize: size, a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h - 1)
  }

  /// The window `window` (inside the image) of an image of `size`.
  public static func crop(_ window: PixelRect, of size: ImageSize) -> PixelTransform {
    precondition(PixelRect(size).contains(window) && !window.isEmpty, "a crop window lies inside the image")
    return PixelTransform(
      inputSize: size, outputSize: window.size, a: 1, b: 0, c: 0, d: 1, tx: window.x, ty: window.y)
  }

  /// What shows an image stored with EXIF orientation `orientation` (1...8) upright, as
  /// `Image.uprighted(exifOrientation:)`. Values outside 1...8 are 1.
  public static func upright(exifOrientation orientation: Int, of size: ImageSize) -> PixelTransform {
    switch orientation {
    case 2: return .flip(horizontally: true, of: size)
    case 3: return .rotation(quarterTurns: 2, of: size)
    case 4: return .flip(horizontally: false, of: size)
    case 5:
      let turned = PixelTransform.rotation(quarterTurns: 1, of: size)
      return turned.then(.flip(horizontally: true, of: turned.outputSize))
    case 6: return .rotation(quarterTurns: 1, of: size)
    case 7:
      let turned = PixelTransform.rotation(quarterTurns: 3, of: size)
      return turned.then(.flip(horizontally: true, of: turned.outputSize))
    case 8: return .rotation(quarterTurns: 3, of: size)
    default: return .identity(size)
    }
  }

  /// This transform followed by `next` (whose input is this one's output).
  public func then(_ next: PixelTransform) -> PixelTransform {
    precondition(next.inputSize == outputSize, "transforms compose output to input")
    // p_in = M1 (M2 q + t2) + t1
    return PixelTransform(
      inputSize: inputSize, outputSize: next.outputSize,
      a: a * next.a + b * next.c, b: a * next.b + b * next.d,
      c: c * next.a + d * next.c, d: c * next.b + d * next.d,
      tx: a * next.tx + b * next.ty + tx, ty: c * next.tx + d * next.ty + ty)
  }

  /// The input pixel output pixel (x, y) copies.
  @inline(__always) public func source(x: Int, y: Int) -> (x: Int, y: Int) {
    (a * x + b * y + tx, c * x + d * y + ty)
  }

  /// True when it moves no pixel.
  public var isIdentity: Bool { self == .identity(inputSize) }

  /// True when rows stay rows (no quarter turn).
  public var keepsRows: Bool { b == 0 }

  /// The quarter turn or mirror it makes, without its crop: as an EXIF orientation (1...8) whose
  /// upright transform (`upright(exifOrientation:of:)`) is this transform with its window at the
  /// origin of a full-size output.
  public var orientation: Int {
    switch (a, b, c, d) {
    case (1, 0, 0, 1): 1
    case (-1, 0, 0, 1): 2
    case (-1, 0, 0, -1): 3
    case (1, 0, 0, -1): 4
    case (0, 1, 1, 0): 5
    case (0, 1, -1, 0): 6
    case (0, -1, -1, 0): 7
    default: 8  // (0, -1, 1, 0)
    }
  }

  /// Where its output lies in the output of its quarter turn or mirror made on the whole input
  /// (`upright(exifOrientation: orientation, of: inputSize)`): its crop window there.
  public var window: PixelRect {
    let whole = PixelTransform.upright(exifOrientation: orientation, of: inputSize)
    // Both map (X, Y) to M (X, Y) + their offset, so this one's origin is the whole one's
    // M⁻¹ (t - t') = Mᵀ (t - t').
    let (dx, dy) = (tx - whole.tx, ty - whole.ty)
    return PixelRect(
      x: a * dx + c * dy, y: b * dx + d * dy, width: outputSize.width, height: outputSize.height)
  }

  /// The input pixels the output pixels of `rect` copy: the rectangle they map to.
  public func inputRect(for rect: PixelRect) -> PixelRect {
    if rect.isEmpty { return .empty }
    let p = source(x: rect.x, y: rect.y)
    let q = source(x: rect.maxX - 1, y: rect.maxY - 1)
    return PixelRect(
      x: Swift.min(p.x, q.x), y: Swift.min(p.y, q.y), width: abs(q.x - p.x) + 1, height: abs(q.y - p.y) + 1)
  }

  /// Writes every pixel of `output` from `input`, which holds `inputRect(for: output.rect)`.
  ///
  /// - Complexity: O(pixels of `output`), row-parallel; turns copy in 64-pixel squares so that
  ///   the rows read and the rows written both stay in cache.
  public func copy(_ input: PixelBuffer, into output: PixelBuffer) {
    let out = output.rect
    guard !out.isEmpty else { return }
    precondition(input.rect.contains(inputRect(for: out)), "the input holds the pixels the output copies")
    let t = self
    if b == 0 {
      // Rows stay rows: each output row is one input row, read forwards or backwards.
      Parallel.forEachRowRange(out.height) { rows in
        for r in rows {
          let y = out.y + r
          let s = t.source(x: out.x, y: y)
          let from = input.pixel(x: s.x, y: s.y)
          let to = output.row(y)
          if t.a == 1 {
            to.update(from: from, count: out.width * 4)
          } else {
            let src = UnsafeRawPointer(from)
            let dst = UnsafeMutableRawPointer(to)
            for i in 0..<out.width {
              dst.storeBytes(
                of: src.loadUnaligned(fromByteOffset: -4 * i, as: UInt32.self), toByteOffset: 4 * i,
                as: UInt32.self)
            }
          }
        }
      }
      return
    }
    // A quarter turn: output rows are input columns. Bands of 64 output rows, in 64-pixel squares.
    let tile = 64
    let bands = (out.height + tile - 1) / tile
    Parallel.forEachRowRange(bands, minimumRows: 1) { bandRange in
      for band in bandRange {
        let y0 = out.y + band * tile
        let y1 = Swift.min(out.maxY, y0 + tile)
        var x0 = out.x
        while x0 < out.maxX {
          let x1 = Swift.min(out.maxX, x0 + tile)
          for y in y0..<y1 {
            let dst = UnsafeMutableRawPointer(output.pixel(x: x0, y: y))
            let s = t.source(x: x0, y: y)
            // Along an output row the input moves down (c = 1) or up (c = -1) one row a pixel.
            var src = UnsafeRawPointer(input.pixel(x: s.x, y: s.y))
            let step = t.c * input.stride
            for i in 0..<(x1 - x0) {
              dst.storeBytes(of: src.loadUnaligned(as: UInt32.self), toByteOffset: 4 * i, as: UInt32.self)
              src += step
            }
          }
          x0 = x1
        }
      }
    }
  }
}

/// A transform as a step: crop, rotate, flip, and the EXIF orientation of a photo.
public struct TransformKernel: StepKernel {
  public let transform: PixelTransform
  public init(_ transform: PixelTransform) { self.transform = transform }
  public var inputSize: ImageSize { transform.inputSize }
  public var outputSize: ImageSize { transform.outputSize }
  public var capability: StepCapability { .transform(transform) }
  public func inputRect(for output: PixelRect) -> PixelRect { transform.inputRect(for: output) }
  public func render(_ input: PixelBuffer, into output: PixelBuffer) { transform.copy(input, into: output) }
  public func opacity(given input: Opacity) -> Opacity { input }
}
