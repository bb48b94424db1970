extension Image {
  /// The image turned clockwise by `quarterTurns` × 90° (any integer; taken modulo 4).
  ///
  /// - Complexity: O(width × height).
  public func rotated(quarterTurns: Int) -> Image {
    let turns = ((quarterTurns % 4) + 4) % 4
    if turns == 0 { return self }
    if turns == 2 { return flipped(horizontally: true).flipped(horizontally: false) }
    // 90° clockwise: destination (x', y') = (h - 1 - y, x); 270°: (y, w - 1 - x). The copy goes in
    // square tiles so that both the rows read and the rows written stay in cache.
    let (w, h) = (width, height)
    let tile = 64
    var out = [UInt8](repeating: 0, count: bytes.count)
    bytes.withUnsafeBytes { srcRaw in
      out.withUnsafeMutableBytes { dstRaw in
        let src = srcRaw.bindMemory(to: UInt32.self)
        let dst = dstRaw.bindMemory(to: UInt32.self)
        // Destination is h wide and w tall; workers take bands of `tile` destination rows.
        let bands = (w + tile - 1) / tile
        Parallel.forEachRowRange(bands, minimumRows: 1) { bandRange in
          for band in bandRange {
            let dy0 = band * tile, dy1 = min(w, dy0 + tile)
            var dx0 = 0
            while dx0 < h {
              let dx1 = min(h, dx0 + tile)
              for dy in dy0..<dy1 {
                let row = dy * h
                if turns == 1 {
                  // source column dy, read bottom-up
                  for dx in dx0..<dx1 { dst[row + dx] = src[(h - 1 - dx) * w + dy] }
                } else {
                  for dx in dx0..<dx1 { dst[row + dx] = src[dx * w + (w - 1 - dy)] }
                }
              }
              dx0 = dx1
            }
          }
        }
      }
    }
    return Image(width: h, height: w, bytes: out)
  }

  /// The image mirrored left-right (`horizontally: true`) or top-bottom.
  ///
  /// - Complexity: O(width × height).
  public func flipped(horizontally: Bool) -> Image {
    let (w, h) = (width, height)
    var out = [UInt8](repeating: 0, count: bytes.count)
    bytes.withUnsafeBytes { srcRaw in
      out.withUnsafeMutableBytes { dstRaw in
        let src = srcRaw.bindMemory(to: UInt32.self)
        let dst = dstRaw.bindMemory(to: UInt32.self)
        Parallel.forEachRowRange(h) { rows in
          for y in rows {
            if horizontally {
              for x in 0..<w { dst[y * w + x] = src[y * w + (w - 1 - x)] }
            } else {
              for x in 0..<w { dst[y * w + x] = src[(h - 1 - y) * w + x] }
            }
          }
        }
      }
    }
    return Image(width: w, height: h, bytes: out)
  }

  /// The upright image for pixels stored with EXIF orientation `orientation` (1...8).
  /// Values outside 1...8 are treated as 1, as viewers do.
  ///
  /// - Complexity: O(width × height).
  public func uprighted(exifOrientation orientation: Int) -> Image {
    switch orientation {
    case 2: flipped(horizontally: true)
    case 3: rotated(quarterTurns: 2)
    case 4: flipped(horizontally: false)
    case 5: rotated(quarterTurns: 1).flipped(horizontally: true)  // transpose
    case 6: rotated(quarterTurns: 1)
    case 7: rotated(quarterTurns: 3).flipped(horizontally: true)  // transverse
    case 8: rotated(quarterTurns: 3)
    default: self
    }
  }
}
