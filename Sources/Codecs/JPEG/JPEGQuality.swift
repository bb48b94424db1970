/// The quality a JPEG was saved at, estimated from its quantisation tables as ImageMagick does:
/// the IJG quality (1...100) whose scaling of the standard tables (ITU T.81 Annex K) comes
/// closest to the file's. Renders that must re-encode a JPEG use it when no `--quality` is
/// given, so a photo saved at 75 is not inflated to 90 and one saved at 98 is not degraded.
enum JPEGQuality {
  /// The standard luminance and chrominance tables, in zigzag order (as DQT stores them).
  static let luminance: [Int] = [
    16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40, 26, 24, 22, 22, 24, 49, 35, 37,
    29, 40, 58, 51, 61, 60, 57, 51, 56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56, 80, 109, 81, 87,
    95, 98, 103, 104, 103, 62, 77, 113, 121, 112, 100, 120, 92, 101, 103, 99,
  ]
  static let chrominance: [Int] = [
    17, 18, 18, 24, 21, 24, 47, 26, 26, 47, 99, 66, 56, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  ]

  /// The IJG table for `quality`: each standard entry scaled and clamped to 1...255.
  static func table(_ standard: [Int], quality: Int) -> [Int] {
    let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
    return standard.map { min(255, max(1, ($0 * scale + 50) / 100)) }
  }

  /// The closest quality for table 0 (and table 1 when there is one), or nil without table 0.
  /// Ties go to the higher quality.
  ///
  /// - Complexity: O(100 × 128).
  static func estimate(tables: [Int: [Int]]) -> Int? {
    guard let luma = tables[0], luma.count == 64 else { return nil }
    let chroma = tables[1].flatMap { $0.count == 64 ? $0 : nil }
    var best: (quality: Int, error: Int)?
    for quality in 1...100 {
      var error = zip(luma, table(luminance, quality: quality)).reduce(0) { $0 + abs($1.0 - $1.1) }
      if let chroma {
        error += zip(chroma, table(chrominance, quality: quality)).reduce(0) { $0 + abs($1.0 - $1.1) }
      }
      if best == nil || error <= best!.error { best = (quality, error) }
    }
    return best?.quality
  }

  /// The tables of one DQT segment's payload, by destination (0...3), in zigzag order; nil when
  /// the segment is malformed (the decoder says so itself).
  static func tables(inDQT bytes: ArraySlice<UInt8>) -> [Int: [Int]]? {
    var out: [Int: [Int]] = [:]
    var i = bytes.startIndex
    while i < bytes.endIndex {
      let precision = Int(bytes[i] >> 4), destination = Int(bytes[i] & 15)
      let size = precision == 0 ? 64 : 128
      guard precision <= 1, destination <= 3, bytes.endIndex - (i + 1) >= size else { return nil }
      out[destination] = (0..<64).map { k in
        precision == 0 ? Int(bytes[i + 1 + k]) : Int(bytes[i + 1 + 2 * k]) << 8 | Int(bytes[i + 2 + 2 * k])
      }
      i += 1 + size
    }
    return out
  }
}
