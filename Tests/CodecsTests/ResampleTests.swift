import Foundation
import PhotoCore
import Testing

@testable import Codecs

@Suite struct ResampleTests {
  @Test(arguments: [(40, 30, 10, 10), (40, 30, 7, 13), (5, 5, 17, 3), (1, 1, 9, 4), (9, 4, 1, 1)])
  func uniformImagesStayExactlyUniform(w: Int, h: Int, newW: Int, newH: Int) {
    let colour = RGBA(17, 130, 251, 255)
    let out = Image(width: w, height: h, fill: colour).resampled(width: newW, height: newH)
    #expect(out.width == newW && out.height == newH)
    #expect(out == Image(width: newW, height: newH, fill: colour))
  }

  @Test func integerFactorsAverageExactBlocks() {
    // A 6x4 image with distinct values, halved: each output pixel is its 2x2 block's mean.
    var image = Image(width: 6, height: 4)
    for y in 0..<4 {
      for x in 0..<6 { image[x, y] = RGBA(UInt8(x * 40 + y), UInt8(y * 60), UInt8(x * 10 + y * 3), 255) }
    }
    let half = image.resampled(width: 3, height: 2)
    for y in 0..<2 {
      for x in 0..<3 {
        let block = [
          image[2 * x, 2 * y], image[2 * x + 1, 2 * y], image[2 * x, 2 * y + 1], image[2 * x + 1, 2 * y + 1],
        ]
        func mean(_ c: KeyPath<RGBA, UInt8>) -> UInt8 {
          UInt8((Double(block.map { Int($0[keyPath: c]) }.reduce(0, +)) / 4).rounded())
        }
        #expect(half[x, y] == RGBA(mean(\.r), mean(\.g), mean(\.b), 255))
      }
    }
  }

  @Test func notNearestNeighbour() {
    // A one-pixel checkerboard shrunk by 2 is mid-grey everywhere, not black or white.
    var image = Image(width: 8, height: 8)
    for y in 0..<8 { for x in 0..<8 where (x + y) % 2 == 0 { image[x, y] = RGBA(255, 255, 255, 255) } }
    let out = image.resampled(width: 4, height: 4)
    #expect(out.bytes.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 128 })
  }

  @Test func transparentPixelsDoNotBleedTheirColour() {
    var image = Image(width: 2, height: 1, fill: RGBA(255, 0, 0, 255))
    image[1, 0] = RGBA(0, 255, 0, 0)
    #expect(image.resampled(width: 1, height: 1)[0, 0] == RGBA(255, 0, 0, 128))
  }

  @Test func longestSideKeepsTheAspectRatio() {
    let wide = Image(width: 600, height: 400).resampled(longestSide: 150)
    #expect(wide.width == 150 && wide.height == 100)
    let tall = Image(width: 401, height: 1000).resampled(longestSide: 100)
    #expect(tall.width == 40 && tall.height == 100)
    let thin = Image(width: 1000, height: 1).resampled(longestSide: 10)
    #expect(thin.width == 10 && thin.height == 1)
  }

  /// Noise with alpha from 0 to 255, from a fixed seed.
  static func noise(width: Int, height: Int, seed: UInt64) -> Image {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: width * height * 4)
    for i in bytes.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      bytes[i] = UInt8(truncatingIfNeeded: state >> 56)
    }
    return Image(width: width, height: height, bytes: bytes)
  }

  /// A preview made again from an earlier one and the rectangles that changed has the bytes of
  /// a whole resample, shrinking by odd and by whole factors and enlarging, with changes on the
  /// edges and inside; and only those rectangles are made again.
  @Test(arguments: [(97, 61, 40, 25), (64, 48, 32, 24), (20, 15, 47, 33), (300, 7, 11, 3)])
  func updatingTheChangedRectanglesGivesTheWholeResamplesBytes(w: Int, h: Int, newW: Int, newH: Int) {
    let before = Self.noise(width: w, height: h, seed: 1)
    var after = before
    let changed = [
      PixelRect(x: 0, y: 0, width: 3, height: 2), PixelRect(x: w / 3, y: h / 2, width: w / 5 + 1, height: 2),
      PixelRect(x: w - 4, y: h - 1, width: 4, height: 1),
    ]
    let paint = Self.noise(width: w, height: h, seed: 2)
    for rect in changed {
      for y in rect.rows { for x in rect.columns { after[x, y] = paint[x, y] } }
    }
    let earlier = before.resampled(width: newW, height: newH)
    let whole = after.resampled(width: newW, height: newH)
    #expect(whole != earlier)
    #expect(after.resampled(updating: earlier, changed: changed) == whole)
    // Leaving out a rectangle leaves its pixels as they were: the rest is not made again.
    let partial = after.resampled(updating: earlier, changed: Array(changed.dropFirst()))
    #expect(partial != whole)
    #expect(partial[0, 0] == earlier[0, 0])
  }
}
