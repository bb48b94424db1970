extension Parallel {
  /// Calls `body` with row ranges covering `0..<rows`: split over all cores when `parallel` is
  /// true (see ``forEachRowRange(_:minimumRows:_:)``), else once, on the calling thread.
  static func forEachRowRange(
    _ rows: Int, minimumRows: Int, parallel: Bool, _ body: (Range<Int>) -> Void
  ) {
    if parallel {
      forEachRowRange(rows, minimumRows: minimumRows, body)
    } else if rows > 0 {
      body(0..<rows)
    }
  }
}
