import Testing

@testable import PhotoCore

@Suite struct OrientationTests {
  /// A 3×2 image whose pixels are numbered 0...5 in their red channel.
  static let numbered = Image(
    width: 3, height: 2, bytes: (0..<6).flatMap { [UInt8($0), 0, 0, 255] })

  static func reds(_ image: Image) -> [UInt8] { stride(from: 0, to: image.bytes.count, by: 4).map { image.bytes[$0] } }

  @Test func quarterTurnClockwise() {
    let r = Self.numbered.rotated(quarterTurns: 1)
    #expect((r.width, r.height) == (2, 3))
    // 0 1 2      3 0
    // 3 4 5  ->  4 1
    //            5 2
    #expect(Self.reds(r) == [3, 0, 4, 1, 5, 2])
  }

  @Test func turnsCompose() {
    let img = Self.numbered
    #expect(img.rotated(quarterTurns: 1).rotated(quarterTurns: 3) == img)
    #expect(img.rotated(quarterTurns: 2) == img.rotated(quarterTurns: 1).rotated(quarterTurns: 1))
    #expect(img.rotated(quarterTurns: -1) == img.rotated(quarterTurns: 3))
  }

  @Test func flips() {
    #expect(Self.reds(Self.numbered.flipped(horizontally: true)) == [2, 1, 0, 5, 4, 3])
    #expect(Self.reds(Self.numbered.flipped(horizontally: false)) == [3, 4, 5, 0, 1, 2])
  }

  /// Stores the upright image as EXIF orientation N would, then checks `uprighted` undoes it.
  @Test(arguments: 1...8) func exifOrientationRoundTrip(orientation: Int) {
    let upright = Self.numbered
    let stored: Image =
      switch orientation {
      case 2: upright.flipped(horizontally: true)
      case 3: upright.rotated(quarterTurns: 2)
      case 4: upright.flipped(horizontally: false)
      case 5: upright.flipped(horizontally: true).rotated(quarterTurns: 3)
      case 6: upright.rotated(quarterTurns: 3)
      case 7: upright.flipped(horizontally: true).rotated(quarterTurns: 1)
      case 8: upright.rotated(quarterTurns: 1)
      default: upright
      }
    #expect(stored.uprighted(exifOrientation: orientation) == upright)
  }

  /// Larger than one 64-pixel tile in both directions, against the obvious per-pixel rotation.
  @Test(arguments: [1, 3]) func tiledQuarterTurnsMatchReference(turns: Int) {
    let (w, h) = (131, 70)
    let image = Image(width: w, height: h, bytes: (0..<(w * h * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) })
    let r = image.rotated(quarterTurns: turns)
    #expect((r.width, r.height) == (h, w))
    for y in 0..<r.height {
      for x in 0..<r.width {
        let source = turns == 1 ? image[y, h - 1 - x] : image[w - 1 - y, x]
        if r[x, y] != source {
          Issue.record("pixel (\(x), \(y)) differs")
          return
        }
      }
    }
  }
}
