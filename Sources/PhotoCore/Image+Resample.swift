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
    return resampled(by: Resampler(from: ImageSize(width, height), to: (newWidth, newHeight)))
  }

  /// The whole output of `resampler`, on all cores.
  private func resampled(by resampler: Resampler) -> Image {
    let (newWidth, newHeight) = (resampler.outWidth, resampler.outHeight)
    let out = [UInt8](unsafeUninitializedCapacity: newWidth * newHeight * 4) { buffer, count in
      bytes.withUnsafeBytes { source in
        resampler.resample(
          source.bindMemory(to: UInt32.self).baseAddress!,
          region: PixelRect(x: 0, y: 0, width: newWidth, height: newHeight),
          into: UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt32.self),
          parallel: true)
      }
      count = newWidth * newHeight * 4
    }
    return Image(width: newWidth, height: newHeight, bytes: out)
  }

  /// The image resampled to the size of `previous`, making again only the output pixels that
  /// `changed` reaches: the same bytes as ``resampled(width:height:)``.
  ///
  /// `previous` must be an earlier state of this image (same size) resampled to that size, and
  /// every pixel where the two states differ must lie in `changed`: a local step's footprint
  /// (faceblur's circles, a brush stroke) between two previews of a photo.
  ///
  ///     let before = original.resampled(longestSide: 1024)
  ///     let after = blurred.resampled(updating: before, changed: footprint)
  ///
  /// - Complexity: O(output pixels) to copy, plus the resampling of the pixels `changed` reaches.
  public func resampled(updating previous: Image, changed: [PixelRect]) -> Image {
    let (newWidth, newHeight) = (previous.width, previous.height)
    if newWidth == width && newHeight == height { return self }
    let resampler = Resampler(from: ImageSize(width, height), to: (newWidth, newHeight))
    let regions = changed.compactMap { resampler.outputReached(by: $0) }
    // When the changes reach most of the output, all of it costs about as much.
    let reached = regions.reduce(0) { $0 + $1.area }
    if reached * 2 > newWidth * newHeight { return resampled(by: resampler) }
    var out = previous.bytes
    bytes.withUnsafeBytes { source in
      out.withUnsafeMutableBytes { destination in
        for region in regions {
          resampler.resample(
            source.bindMemory(to: UInt32.self).baseAddress!, region: region,
            into: destination.bindMemory(to: UInt32.self).baseAddress!, parallel: false)
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

/// The two passes of a resample, for any rectangle of the output: each output pixel is made
/// by the same operations whatever the rectangle, so a rectangle made alone has the bytes the
/// whole image gives there.
private struct Resampler {
  let columns: ResampleWeights, rows: ResampleWeights
  let inWidth: Int, outWidth: Int, outHeight: Int

  init(from input: ImageSize, to output: (width: Int, height: Int)) {
    columns = ResampleWeights(from: input.width, to: output.width)
    rows = ResampleWeights(from: input.height, to: output.height)
    (inWidth, outWidth, outHeight) = (input.width, output.width, output.height)
  }

  /// The output pixels whose value reads some input pixel of `rect`, or nil when none does.
  func outputReached(by rect: PixelRect) -> PixelRect? {
    guard let x = columns.outputs(reading: rect.columns), let y = rows.outputs(reading: rect.rows) else {
      return nil
    }
    return PixelRect(columns: x, rows: y)
  }

  /// Makes the pixels of `region` of the output, whose rows are `outWidth` pixels, from the
  /// input at `source`: pass 1 shrinks the input rows the region reads across, to premultiplied
  /// floats; pass 2 down, then un-premultiplies and rounds once.
  func resample(
    _ source: UnsafePointer<UInt32>, region: PixelRect, into destination: UnsafeMutablePointer<UInt32>,
    parallel: Bool
  ) {
    guard !region.isEmpty else { return }
    let inRows = rows.inputs(readBy: region.rows)
    let midWidth = region.width
    let middle = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: midWidth * inRows.count)
    defer { middle.deallocate() }
    columns.withUnsafeTables { first, start, weights in
      let shared = UncheckedSendable((source, middle, first, start, weights))
      Parallel.forEachRowRange(inRows.count, minimumRows: 16, parallel: parallel) { range in
        let (src, mid, first, start, weights) = shared.value
        for r in range {
          let row = src + (inRows.lowerBound + r) * inWidth
          let out = mid + r * midWidth
          for x in region.columns {
            var sum = SIMD4<Float>.zero
            var i = row + first[x]
            for k in start[x]..<start[x + 1] {
              sum += premultiplied(i.pointee) * weights[k]
              i += 1
            }
            out[x - region.x] = sum
          }
        }
      }
    }
    rows.withUnsafeTables { first, start, weights in
      let shared = UncheckedSendable((UnsafePointer(middle), destination, first, start, weights))
      Parallel.forEachRowRange(region.height, minimumRows: 16, parallel: parallel) { range in
        let (mid, dst, first, start, weights) = shared.value
        for y in range.lowerBound + region.y..<range.upperBound + region.y {
          let top = mid + (first[y] - inRows.lowerBound) * midWidth
          let out = dst + y * outWidth + region.x
          for x in 0..<midWidth {
            var sum = SIMD4<Float>.zero
            var i = top + x
            for k in start[y]..<start[y + 1] {
              sum += i.pointee * weights[k]
              i += midWidth
            }
            out[x] = straight(sum)
          }
        }
      }
    }
  }
}

/// A premultiplied sum (r·a, g·a, b·a, 255·a) as one straight-alpha RGBA pixel (a
/// little-endian UInt32): each colour divided by alpha, each channel rounded once, lane by lane
/// the scalar operations.
@inline(__always) private func straight(_ sum: SIMD4<Float>) -> UInt32 {
  let alpha = sum[3] / 255  // 0...255
  if alpha > 0 {
    let v = sum / SIMD4<Float>(alpha, alpha, alpha, 255)
    return UInt32(roundedByte(v[0])) | UInt32(roundedByte(v[1])) << 8 | UInt32(roundedByte(v[2])) << 16
      | UInt32(roundedByte(v[3])) << 24
  }
  return UInt32(roundedByte(alpha)) << 24
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

  /// The outputs whose inputs include some of `inputs`, or nil when none does (outputs read
  /// increasing runs of inputs).
  func outputs(reading inputs: Range<Int>) -> Range<Int>? {
    guard !inputs.isEmpty else { return nil }
    var lower: Int? = nil
    var upper = 0
    for o in 0..<first.count {
      let read = first[o]..<(first[o] + start[o + 1] - start[o])
      if read.overlaps(inputs) {
        if lower == nil { lower = o }
        upper = o + 1
      }
    }
    return lower.map { $0..<upper }
  }

  /// The inputs that `outputs` read.
  func inputs(readBy outputs: Range<Int>) -> Range<Int> {
    var (lower, upper) = (Int.max, 0)
    for o in outputs {
      lower = min(lower, first[o])
      upper = max(upper, first[o] + start[o + 1] - start[o])
    }
    return lower..<upper
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
