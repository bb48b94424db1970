extension Image {
  /// The image turned clockwise by `quarterTurns` × 90° (any integer; taken modulo 4).
  ///
  /// - Complexity: O(width × height).
  public func rotated(quarterTurns: Int) -> Image {
    let t = PixelTransform.rotation(quarterTurns: quarterTurns, of: ImageSize(width, height))
    return t.isIdentity ? self : transformed(t)
  }

  /// The image mirrored left-right (`horizontally: true`) or top-bottom.
  ///
  /// - Complexity: O(width × height).
  public func flipped(horizontally: Bool) -> Image {
    transformed(.flip(horizontally: horizontally, of: ImageSize(width, height)))
  }

  /// The upright image for pixels stored with EXIF orientation `orientation` (1...8).
  /// Values outside 1...8 are treated as 1, as viewers do.
  ///
  /// - Complexity: O(width × height).
  public func uprighted(exifOrientation orientation: Int) -> Image {
    let t = PixelTransform.upright(exifOrientation: orientation, of: ImageSize(width, height))
    return t.isIdentity ? self : transformed(t)
  }
}
