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
    bytes.withUnsafeBufferPointer { src in
      middle.withUnsafeMutableBufferPointer { mid in
        let (s, m) = (UncheckedSendableBox(src), UncheckedSendableBox(mid))
        Parallel.forEachRowRange(inHeight) { range in
          for y in range {
            let row = y * inWidth * 4
            for x in 0..<newWidth {
              var sum = SIMD4<Float>.zero
              let first = columns.first[x]
              for (k, weight) in columns.weights(of: x).enumerated() {
                let i = row + (first + k) * 4
                let a = Float(s.value[i + 3])
                let pixel = SIMD4<Float>(
                  Float(s.value[i]) * a, Float(s.value[i + 1]) * a, Float(s.value[i + 2]) * a, a * 255)
                sum += pixel * weight
              }
              m.value[y * newWidth + x] = sum
            }
          }
        }
      }
    }

    // Pass 2: columns, then un-premultiply and round once.
    var out = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
    middle.withUnsafeBufferPointer { mid in
      out.withUnsafeMutableBufferPointer { dst in
        let (m, d) = (UncheckedSendableBox(mid), UncheckedSendableBox(dst))
        Parallel.forEachRowRange(newHeight) { range in
          for y in range {
            let first = rows.first[y]
            let weights = rows.weights(of: y)
            for x in 0..<newWidth {
              var sum = SIMD4<Float>.zero
              for (k, weight) in weights.enumerated() {
                sum += m.value[(first + k) * newWidth + x] * weight
              }
              let o = (y * newWidth + x) * 4
              let alpha = sum[3] / 255  // 0...255
              if alpha > 0 {
                d.value[o] = roundedByte(sum[0] / alpha)
                d.value[o + 1] = roundedByte(sum[1] / alpha)
                d.value[o + 2] = roundedByte(sum[2] / alpha)
              }
              d.value[o + 3] = roundedByte(alpha)
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

  @inline(__always) func weights(of o: Int) -> ArraySlice<Float> { all[start[o]..<start[o + 1]] }
}

/// Buffer pointers shared by row-parallel workers that touch disjoint rows.
private struct UncheckedSendableBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
