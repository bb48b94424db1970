/// A band of rows of an image, by pointer: what band kernels work on, several threads at once on
/// disjoint bands, and what a JPEG being decoded hands on a band at a time (see `RowFilter`).
public struct ImageRows: @unchecked Sendable {
  /// Pixel (0, 0) of the whole image: RGBA, `width * 4` bytes a row, as in `Image`.
  public let base: UnsafeMutablePointer<UInt8>
  /// The whole image's size in pixels.
  public let width: Int, height: Int
  /// The rows of this band.
  public let rows: Range<Int>

  public init(base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, rows: Range<Int>) {
    precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "rows outside the image")
    (self.base, self.width, self.height, self.rows) = (base, width, height, rows)
  }

  /// Rows `rows` (of the whole image) of this band.
  public func band(_ rows: Range<Int>) -> ImageRows {
    precondition(self.rows.contains(rows.lowerBound) && rows.upperBound <= self.rows.upperBound || rows.isEmpty)
    return ImageRows(base: base, width: width, height: height, rows: rows)
  }

  /// The first byte of row `y`.
  public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * width * 4 }
}

extension Image {
  /// Calls `body` with all the image's rows as one writable band.
  public mutating func withRows<R>(_ body: (ImageRows) -> R) -> R {
    let (w, h) = (width, height)
    return bytes.withUnsafeMutableBufferPointer { buffer in
      body(ImageRows(base: buffer.baseAddress!, width: w, height: h, rows: 0..<h))
    }
  }

  /// Runs a band kernel over the whole image, on all cores.
  public mutating func forEachBand(_ kernel: (ImageRows) -> Void) {
    let h = height
    withRows { all in Parallel.forEachRowRange(h) { kernel(all.band($0)) } }
  }
}
