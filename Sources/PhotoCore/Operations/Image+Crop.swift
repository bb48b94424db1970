extension Image {
  /// The pixels x in `x ..< x + width`, y in `y ..< y + height` (pixels of this image), which
  /// must lie inside the image.
  ///
  /// - Complexity: O(width × height) of the result.
  public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> Image {
    precondition(cw >= 1 && ch >= 1, "a crop is at least 1x1")
    let window = PixelRect(x: x, y: y, width: cw, height: ch)
    precondition(PixelRect(ImageSize(width, height)).contains(window), "the crop must lie inside the image")
    if (x, y, cw, ch) == (0, 0, width, height) { return self }
    return transformed(.crop(window, of: ImageSize(width, height)))
  }

  /// The image moved by `transform` (whose input size is this image's).
  ///
  /// - Complexity: O(width × height) of the result.
  public func transformed(_ transform: PixelTransform) -> Image {
    precondition(transform.inputSize == ImageSize(width, height), "the transform is for another size")
    return withReadOnlyPixels { input in
      Image(size: transform.outputSize) { transform.copy(input, into: $0) }
    }
  }

  /// Makes the image transparent outside the circle inscribed in it, with a one-pixel
  /// anti-aliased edge: in continuous coordinates (pixel (x, y) covers [x, x+1) × [y, y+1)) the
  /// circle has centre (width / 2, height / 2) and radius min(width, height) / 2, and a pixel
  /// whose centre lies at distance d keeps alpha × clamp(radius + 0.5 - d, 0, 1), rounded.
  /// Pixels whose centre is within radius - 0.5 keep their bytes.
  ///
  /// - Complexity: O(width × height), row-parallel.
  public mutating func maskToInscribedCircle() {
    let kernel = CircleMaskKernel(size: ImageSize(width, height))
    withPixels { kernel.render($0, into: $0) }
  }
}

/// `Image.maskToInscribedCircle` as a step: each pixel on its own, by where it is.
struct CircleMaskKernel: StepKernel {
  let inputSize: ImageSize
  init(size: ImageSize) { inputSize = size }
  var outputSize: ImageSize { inputSize }
  var capability: StepCapability { .pointwise }
  func inputRect(for output: PixelRect) -> PixelRect { output }

  /// A circle in an image of at least 2x2 makes its corners transparent.
  func opacity(given input: Opacity) -> Opacity {
    inputSize.width >= 2 && inputSize.height >= 2 ? .transparent : input
  }

  func render(_ input: PixelBuffer, into output: PixelBuffer) {
    let out = output.rect
    let (w, h) = (inputSize.width, inputSize.height)
    let cx = Double(w) / 2
    let cy = Double(h) / 2
    let r = Double(Swift.min(w, h)) / 2
    Parallel.forEachRowRange(out.height) { rows in
      for y in (out.y + rows.lowerBound)..<(out.y + rows.upperBound) {
        let dy = Double(y) + 0.5 - cy
        // Pixels whose centre lies within r - 0.5 keep coverage 1: skip that run (less one
        // pixel at each end, so rounding cannot skip a pixel that needed the formula).
        let inner = r - 0.5
        var skip = 0..<0
        if inner * inner > dy * dy {
          let s = (inner * inner - dy * dy).squareRoot()
          let lo = Int((cx - s - 0.5).rounded(.up)) + 1
          let hi = Int((cx + s - 0.5).rounded(.down)) - 1
          if lo <= hi { skip = Swift.max(lo, 0)..<Swift.min(hi + 1, w) }
        }
        var x = out.x
        while x < out.maxX {
          if skip.contains(x) {
            x = skip.upperBound
            continue
          }
          let dx = Double(x) + 0.5 - cx
          let coverage = circleCoverage(distance: (dx * dx + dy * dy).squareRoot(), radius: r)
          if coverage < 1 {
            let alpha = output.pixel(x: x, y: y) + 3
            alpha.pointee = UInt8(Double(alpha.pointee) * coverage + 0.5)
          }
          x += 1
        }
      }
    }
  }
}

extension Image {
  /// The image composited over an opaque-or-not `background` (straight alpha "over"): the result
  /// alpha is a + b·(1 - a), so an opaque background gives an opaque image. An opaque image is
  /// returned unchanged.
  ///
  /// - Complexity: O(width × height), row-parallel.
  public func flattened(over background: RGBA) -> Image {
    var out = self
    out.withPixels { $0.flatten(over: background) }
    return out
  }
}

extension PixelBuffer {
  /// Composites every pixel that is not opaque over `background` in place, as
  /// `Image.flattened(over:)` does; opaque pixels keep their bytes.
  ///
  /// - Complexity: O(pixels), row-parallel.
  public func flatten(over background: RGBA) {
    let r = rect
    Parallel.forEachRowRange(r.height, minimumRows: Swift.max(1, 4096 / Swift.max(1, r.width))) { rows in
      for y in (r.y + rows.lowerBound)..<(r.y + rows.upperBound) {
        let base = row(y)
        for i in Swift.stride(from: 0, to: r.width * 4, by: 4) where base[i + 3] != 255 {
          let composite = compositeOver(
            RGBA(base[i], base[i + 1], base[i + 2], base[i + 3]), background, coverage: 1)
          (base[i], base[i + 1], base[i + 2], base[i + 3]) = (
            composite.r, composite.g, composite.b, composite.a
          )
        }
      }
    }
  }
}

/// How much of a pixel whose centre is at `distance` from a circle's centre lies inside a circle
/// of `radius`, approximated by a one-pixel linear ramp: clamp(radius + 0.5 - distance, 0, 1).
@inline(__always) func circleCoverage(distance: Double, radius: Double) -> Double {
  min(max(radius + 0.5 - distance, 0), 1)
}

/// `top` (straight alpha, its alpha scaled by `coverage` in 0...1) composited over `bottom` with
/// the Porter-Duff "over" rule, in straight alpha, each channel rounded to nearest.
@inline(__always) func compositeOver(_ top: RGBA, _ bottom: RGBA, coverage: Float) -> RGBA {
  let ta = Float(top.a) / 255 * coverage
  let ba = Float(bottom.a) / 255
  let oa = ta + ba * (1 - ta)
  if oa <= 0 { return RGBA(0, 0, 0, 0) }
  let t = SIMD3<Float>(Float(top.r), Float(top.g), Float(top.b))
  let b = SIMD3<Float>(Float(bottom.r), Float(bottom.g), Float(bottom.b))
  let c = (t * ta + b * (ba * (1 - ta))) / oa + 0.5
  let c8 = pointwiseMin(pointwiseMax(c, SIMD3(repeating: 0)), SIMD3(repeating: 255))
  return RGBA(UInt8(c8.x), UInt8(c8.y), UInt8(c8.z), UInt8(min(oa * 255 + 0.5, 255)))
}
