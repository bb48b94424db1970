import Foundation
import PhotoCore
import Testing

@testable import Codecs

@Suite struct ScalingTests {
  @Test func dctScalingPicksTheSmallestFactorStillLargeEnough() {
    // 6000x4000: 1/8 gives 750, 1/4 gives 1500, 3/8 gives 2250.
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 700) == (750, 500))
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 751) == (1500, 1000))
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 1500) == (1500, 1000))
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 1501) == (2250, 1500))
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 6000) == (6000, 4000))
    #expect(JPEGCodec.scaledSize(width: 6000, height: 4000, minimumLongestSide: 9000) == (6000, 4000))
    // Sizes round up, as TJSCALED does: 227 / 8 = 28.4 -> 29.
    #expect(JPEGCodec.scaledSize(width: 227, height: 149, minimumLongestSide: 20) == (29, 19))
  }

  @Test func scaledDecodeGivesTheScaledSizeAndTheFullSize() throws {
    var options = DecodeOptions()
    options.minimumLongestSide = 500
    let decoded = try ImageCodec.decode(try fixture("jpeg/xmp_test.jpg"), options: options)
    // 2000x1072 at 1/2 is 1000x536; 1/4 (500x268) is also >= 500, and smaller.
    #expect(decoded.image.width == 500 && decoded.image.height == 268)
    #expect(decoded.fullWidth == 2000 && decoded.fullHeight == 1072)
    // The small decode looks like the full one shrunk.
    let full = try ImageCodec.decode(try fixture("jpeg/xmp_test.jpg")).image
    expectSimilar(decoded.image, full.resampled(width: 500, height: 268), meanError: 3, name: "xmp-quarter")
  }

  @Test func scaledDecodeOfATurnedPhotoIsUpright() throws {
    var options = DecodeOptions()
    options.minimumLongestSide = 60
    let decoded = try ImageCodec.decode(try fixture("faces/hopper_orientation_6.jpg"), options: options)
    #expect(decoded.image.width == 64 && decoded.image.height == 64)
    let reference = try ImageCodec.decode(try fixture("faces/hopper.jpg")).image.resampled(
      width: 64, height: 64)
    expectSimilar(decoded.image, reference, meanError: 6, name: "hopper6-half")
  }
}
