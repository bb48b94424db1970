extension Image {
  /// The image resampled to `width` × `height` pixels.
  ///
  /// Shrinking averages areas: each output pixel is the mean of the input area it covers, with
  /// partly covered input pixels weighted by the covered fraction, so an integer factor k averages
  /// exact k × k blocks. Enlarging interpolates bilinearly. Never nearest-neighbour. Colours are
  /// averaged weighted by alpha (premultiplied), so transparent pixels do not bleed their colour;
  /// one rounding at the end. Work is split by rows over all cores.
  ///
  /// - Parameters:
  ///   - width: Output width in pixels, at least 1.
  ///   - height: Output height in pixels, at least 1.
  /// - Complexity: O(output pixels × (horizontal + vertical) footprint), about O(width × height)
  ///   of the input when shrinking.
  public func resampled(width newWidth: Int, height newHeight: Int) -> Image {
    precondition(newWidth > 0 && newHeight > 0, "resampled size must be positive")
    if newWidth == width && newHeight == height { return self }
    let columns = ResampleWeights(from: width, to: newWidth)
    let rows = ResampleWeights(from: height, to: newHeight)
    let (inWidth, inHeight) = (width, height)

    // Pass 1: each input row to newWidth premultiplied float pixels.
    var middle = [SIMD4<Float>](repeating: .zero, count: newWidth * inHeight)
    bytes.withUnsafeBytes { srcRaw in
      middle.withUnsafeMutableBufferPointer { mid in
        columns.withUnsafeTables { cFirst, cStart, cWeights in
          let shared = UncheckedSendable(
            (srcRaw.bindMemory(to: UInt32.self), mid, cFirst, cStart, cWeights))
          Parallel.forEachRowRange(inHeight) { range in
            let (src, mid, first, start, weights) = shared.value
            for y in range {
              let row = y * inWidth
              for x in 0..<newWidth {
                var sum = SIMD4<Float>.zero
                var i = row + first[x]
                for k in start[x]..<start[x + 1] {
                  sum += premultiplied(src[i]) * weights[k]
                  i += 1
                }
                mid[y * newWidth + x] = sum
              }
            }
          }
        }
      }
    }

    // Pass 2: columns, then un-premultiply and round once.
    var out = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
    middle.withUnsafeBufferPointer { mid in
      out.withUnsafeMutableBufferPointer { dst in
        rows.withUnsafeTables { rFirst, rStart, rWeights in
          let shared = UncheckedSendable((mid, dst, rFirst, rStart, rWeights))
          Parallel.forEachRowRange(newHeight) { range in
            let (mid, dst, first, start, weights) = shared.value
            for y in range {
              let top = first[y] * newWidth
              for x in 0..<newWidth {
                var sum = SIMD4<Float>.zero
                var i = top + x
                for k in start[y]..<start[y + 1] {
                  sum += mid[i] * weights[k]
                  i += newWidth
                }
                let o = (y * newWidth + x) * 4
                let alpha = sum[3] / 255  // 0...255
                if alpha > 0 {
                  dst[o] = roundedByte(sum[0] / alpha)
                  dst[o + 1] = roundedByte(sum[1] / alpha)
                  dst[o + 2] = roundedByte(sum[2] / alpha)
                }
                dst[o + 3] = roundedByte(alpha)
              }
            }
          }
        }
      }
    }
    return Image(width: newWidth, height: newHeight, bytes: out)
  }

  /// The image scaled so that its longer side is `longestSide` pixels, keeping the aspect ratio
  /// (the shorter side is rounded to the nearest pixel, at least 1).
  ///
  /// - Complexity: as `resampled(width:height:)`.
  public func resampled(longestSide: Int) -> Image {
    precondition(longestSide > 0, "longest side must be positive")
    let size = Image.size(width: width, height: height, fittingLongestSide: longestSide)
    return resampled(width: size.width, height: size.height)
  }

  /// The size (pixels) of a `width` × `height` image scaled so its longer side is `longestSide`.
  public static func size(width: Int, height: Int, fittingLongestSide longestSide: Int) -> (
    width: Int, height: Int
  ) {
    if width >= height {
      return (longestSide, max(1, (height * longestSide * 2 + width) / (width * 2)))
    }
    return (max(1, (width * longestSide * 2 + height) / (height * 2)), longestSide)
  }
}

/// One RGBA pixel (as a little-endian UInt32) as premultiplied floats (r·a, g·a, b·a, 255·a).
@inline(__always) private func premultiplied(_ pixel: UInt32) -> SIMD4<Float> {
  let channels = SIMD4<UInt32>(pixel, pixel >> 8, pixel >> 16, pixel >> 24) & 0xFF
  let value = SIMD4<Float>(channels)
  return value * SIMD4<Float>(value[3], value[3], value[3], 255)
}

@inline(__always) private func roundedByte(_ value: Float) -> UInt8 {
  UInt8(min(255, max(0, value + 0.5)))
}

/// For each output index, the first input index and the weights of consecutive input indices.
/// Weights of one output sum to 1.
private struct ResampleWeights: Sendable {
  var first: [Int] = []
  var start: [Int] = []  // into `all`; start[i + 1] ends output i
  var all: [Float] = []

  init(from inCount: Int, to outCount: Int) {
    let scale = Double(inCount) / Double(outCount)
    for o in 0..<outCount {
      start.append(all.count)
      if scale >= 1 {
        // Area: output o covers input [o × scale, (o + 1) × scale).
        let lo = Double(o) * scale
        let hi = Double(o + 1) * scale
        let i0 = Int(lo.rounded(.down))
        let i1 = min(inCount, Int(hi.rounded(.up)))
        first.append(i0)
        var weights: [Double] = []
        for i in i0..<i1 {
          weights.append(min(hi, Double(i + 1)) - max(lo, Double(i)))
        }
        let total = weights.reduce(0, +)
        all += weights.map { Float($0 / total) }
      } else {
        // Bilinear between the two nearest input centres.
        let centre = (Double(o) + 0.5) * scale - 0.5
        let i0 = max(0, min(inCount - 1, Int(centre.rounded(.down))))
        let i1 = min(inCount - 1, i0 + 1)
        let t = Float(max(0, min(1, centre - Double(i0))))
        first.append(i0)
        all += i1 == i0 ? [1] : [1 - t, t]
      }
    }
    start.append(all.count)
  }

  /// Calls `body` with the tables as buffers, for hot loops.
  func withUnsafeTables<R>(
    _ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> R
  ) -> R {
    first.withUnsafeBufferPointer { f in
      start.withUnsafeBufferPointer { s in all.withUnsafeBufferPointer { w in body(f, s, w) } }
    }
  }
}
