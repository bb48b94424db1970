/// A band of rows of an image, by pointer: what band kernels work on, several threads at once on
/// disjoint bands, and what a JPEG being decoded hands on a band at a time (see `JPEGStream`).
public struct ImageRows: @unchecked Sendable {
  /// The first byte of the band's first row; rows follow `width * 4` bytes apart (RGBA, as in
  /// `Image`). The band may live in a buffer of its own, not inside a whole image.
  public let base: UnsafeMutablePointer<UInt8>
  /// The whole image's size in pixels.
  public let width: Int, height: Int
  /// The rows of this band, in the whole image's numbering.
  public let rows: Range<Int>

  public init(base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, rows: Range<Int>) {
    precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "rows outside the image")
    (self.base, self.width, self.height, self.rows) = (base, width, height, rows)
  }

  /// Rows `rows` (in the whole image's numbering) of this band.
  public func band(_ rows: Range<Int>) -> ImageRows {
    precondition(
      rows.isEmpty || self.rows.contains(rows.lowerBound) && rows.upperBound <= self.rows.upperBound)
    return ImageRows(
      base: rows.isEmpty ? base : row(rows.lowerBound), width: width, height: height, rows: rows)
  }

  /// The first byte of row `y` (in the whole image's numbering), which must be in the band.
  public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + (y - rows.lowerBound) * width * 4 }
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
