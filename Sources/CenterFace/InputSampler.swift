import PhotoCore

/// Makes the network's input for any rectangle of the image resampled to
/// `scaledWidth × scaledHeight`, without making the whole resampled image.
///
/// Each resampled pixel is the mean of the source area it covers (partly covered source pixels
/// weighted by the covered fraction), so a factor of 1/2 averages exact 2 × 2 blocks; at full
/// size the pixels are copied. Channels are R, G, B as 0–255 floats and a zero; alpha is ignored
/// (the caller has flattened or ignored transparency). Pixels past the resampled image's right
/// and bottom edges are zeros (the padding to a multiple of 32).
struct InputSampler {
  let image: PatchedImage
  let scaledWidth: Int
  let scaledHeight: Int
  private let columns: AreaWeights
  private let rows: AreaWeights

  init(_ image: Image, scaledWidth: Int, scaledHeight: Int) {
    self.init(PatchedImage(image), scaledWidth: scaledWidth, scaledHeight: scaledHeight)
  }

  init(_ image: PatchedImage, scaledWidth: Int, scaledHeight: Int) {
    precondition(scaledWidth >= 1 && scaledWidth <= image.width)
    precondition(scaledHeight >= 1 && scaledHeight <= image.height)
    self.image = image
    self.scaledWidth = scaledWidth
    self.scaledHeight = scaledHeight
    columns = AreaWeights(from: image.width, to: scaledWidth)
    rows = AreaWeights(from: image.height, to: scaledHeight)
  }

  /// The `width × height` rectangle at (x, y) of the padded resampled image, made row by row as
  /// it is asked for.
  func rows(x: Int, y: Int, width: Int, height: Int) -> InputRows {
    InputRows(width: width, height: height) { out, row, columns in
      fillRow(out, y: y + row, columns: (x + columns.lowerBound)..<(x + columns.upperBound))
    }
  }

  /// Writes `columns` of row `y` of the padded resampled image at `out` (the first column's
  /// pixel), 4 floats per pixel, on the calling thread.
  ///
  /// - Complexity: O(source pixels under the row's columns).
  func fillRow(_ out: UnsafeMutablePointer<Float>, y: Int, columns: Range<Int>) {
    let (x, width) = (columns.lowerBound, columns.count)
    out.initialize(repeating: 0, count: width * 4)
    guard y < scaledHeight else { return }
    let x1 = min(x + width, scaledWidth)
    guard x < x1 else { return }
    if self.columns.isIdentity && rows.isIdentity {
      image.withRow(y, columns: x..<x1) { row in
        for sx in x..<x1 {
          let p = row + (sx - x) * 4
          let o = (sx - x) * 4
          out[o] = Float(p[0])
          out[o + 1] = Float(p[1])
          out[o + 2] = Float(p[2])
        }
      }
      return
    }
    // The source columns the row's pixels average.
    let read = self.columns.range(x).lowerBound..<self.columns.range(x1 - 1).upperBound
    for j in rows.range(y) {
      let wy = rows.weight(y, j)
      image.withRow(j, columns: read) { row in
        for sx in x..<x1 {
          var r: Float = 0
          var g: Float = 0
          var b: Float = 0
          for i in self.columns.range(sx) {
            let wx = self.columns.weight(sx, i)
            let p = row + (i - read.lowerBound) * 4
            r += Float(p[0]) * wx
            g += Float(p[1]) * wx
            b += Float(p[2]) * wx
          }
          let o = (sx - x) * 4
          out[o] += r * wy
          out[o + 1] += g * wy
          out[o + 2] += b * wy
        }
      }
    }
  }
}

/// For each of `to` output positions, the source positions it averages and their weights (the
/// fraction of each source pixel covered, over the area covered), along one axis.
struct AreaWeights {
  let isIdentity: Bool
  private var first: [Int] = []
  private var start: [Int] = []
  private var weights: [Float] = []

  init(from: Int, to: Int) {
    precondition(to >= 1 && to <= from)
    isIdentity = from == to
    guard !isIdentity else { return }
    // Output pixel o covers source [o × from / to, (o + 1) × from / to); in units of 1/to of a
    // source pixel that is [o × from, (o + 1) × from), exact in integers.
    for o in 0..<to {
      let a = o * from
      let b = (o + 1) * from
      let i0 = a / to
      let i1 = (b + to - 1) / to
      first.append(i0)
      start.append(weights.count)
      for i in i0..<i1 {
        let covered = min(b, (i + 1) * to) - max(a, i * to)
        weights.append(Float(Double(covered) / Double(from)))
      }
    }
    start.append(weights.count)
  }

  /// The source positions output position `o` reads.
  func range(_ o: Int) -> Range<Int> { first[o]..<(first[o] + start[o + 1] - start[o]) }

  /// The weight of source position `i` in output position `o`.
  func weight(_ o: Int, _ i: Int) -> Float { weights[start[o] + i - first[o]] }
}

/// Carries a pointer into work split across threads that write disjoint parts of it.
struct UnsafeSendable<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
