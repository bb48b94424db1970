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
}
