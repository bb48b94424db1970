import Foundation
import PhotoCore
import Testing

@testable import Codecs

@Suite struct EncodeTests {
  static let pngFixtures =
    fixtureNames(in: "png", suffix: ".png").map { "png/\($0)" } + [
      "faces/astronaut.png", "photos/camera.png", "photos/chelsea.png",
    ]

  @Test(arguments: pngFixtures)
  func pngRoundTripIsExact(path: String) throws {
    let decoded = try ImageCodec.decode(try fixture(path))
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    let png = try ImageCodec.encode(decoded.image, as: .png, options: options)
    let again = try ImageCodec.decode(png)
    #expect(again.image == decoded.image)
    // Colour type 6 (RGBA) only when some pixel is not opaque, else 2 (RGB).
    #expect(png[25] == (decoded.image.isOpaque ? 2 : 6))
    #expect(png[24] == 8)
  }

  @Test func transparentPixelsKeepTheirColourAndAlpha() throws {
    var image = Image(width: 3, height: 2, fill: RGBA(10, 20, 30, 255))
    image[1, 0] = RGBA(200, 100, 50, 0)
    image[2, 1] = RGBA(1, 2, 3, 128)
    let png = try ImageCodec.encode(image, as: .png)
    #expect(try ImageCodec.decode(png).image == image)
  }

  @Test(arguments: ChromaSubsampling.allCases)
  func jpegEncodesAtTheSubsamplingAsked(subsampling: ChromaSubsampling) throws {
    let image = try ImageCodec.decode(try fixture("photos/chelsea.png")).image
    var options = EncodeOptions()
    options.subsampling = subsampling
    let jpeg = try ImageCodec.encode(image, as: .jpeg, options: options)
    let decoded = try ImageCodec.decode(jpeg)
    #expect(decoded.subsampling == subsampling)
    expectSimilar(decoded.image, image, meanError: 3, name: "chelsea-\(subsampling.rawValue)")
  }

  @Test func higherQualityIsCloserAndLarger() throws {
    let image = try ImageCodec.decode(try fixture("photos/coffee.png")).image
    var low = EncodeOptions()
    var high = EncodeOptions()
    low.quality = 30
    high.quality = 95
    let small = try ImageCodec.encode(image, as: .jpeg, options: low)
    let large = try ImageCodec.encode(image, as: .jpeg, options: high)
    #expect(small.count < large.count)
    let errorLow = meanDifference(try ImageCodec.decode(small).image, image)
    let errorHigh = meanDifference(try ImageCodec.decode(large).image, image)
    #expect(errorHigh < errorLow)
    #expect(errorHigh < 3)  // measured 2.35 at 4:2:0
  }

  @Test func badQualityIsRefused() {
    var options = EncodeOptions()
    options.quality = 0
    #expect(throws: CodecError.self) {
      try ImageCodec.encode(Image(width: 1, height: 1), as: .jpeg, options: options)
    }
  }

  @Test func oneByOneImagesRoundTrip() throws {
    let image = Image(width: 1, height: 1, fill: RGBA(12, 200, 99, 255))
    #expect(try ImageCodec.decode(try ImageCodec.encode(image, as: .png)).image == image)
    let jpeg = try ImageCodec.decode(try ImageCodec.encode(image, as: .jpeg)).image
    #expect(jpeg.width == 1 && jpeg.height == 1)
    #expect(meanDifference(jpeg, image) < 4)
  }

  @Test func readInfoReadsPNGHeaders() throws {
    #expect(
      try ImageCodec.readInfo(try fixture("photos/coffee.png")).sizeAndOrientation
        == ImageInfo(format: .png, width: 600, height: 400, orientation: 1))
  }
}

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

@Suite struct ConcurrencyTests {
  @Test func concurrentDecodesAndEncodesMatchSerialOnes() async throws {
    let paths = [
      "jpeg/testorig.jpg", "jpeg/video-001.cmyk.jpeg", "png/ibasn6a16.png", "faces/hopper_orientation_7.jpg",
      "jpeg/testimgari.jpg", "photos/chelsea.png",
    ]
    let inputs = try paths.map { try fixture($0) }
    let serial = try inputs.map { try ImageCodec.encode(ImageCodec.decode($0).image, as: .jpeg) }
    let parallel = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
      for _ in 0..<3 {
        for (k, input) in inputs.enumerated() {
          group.addTask { (k, try ImageCodec.encode(ImageCodec.decode(input).image, as: .jpeg)) }
        }
      }
      var results: [(Int, [UInt8])] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(parallel.count == inputs.count * 3)
    for (k, bytes) in parallel { #expect(bytes == serial[k], "\(paths[k])") }
  }

  @Test func pngIgnoresTheDCTScale() throws {
    var options = DecodeOptions()
    options.minimumLongestSide = 10
    let decoded = try ImageCodec.decode(try fixture("photos/coffee.png"), options: options)
    #expect(decoded.image.width == 600 && decoded.image.height == 400)
  }
}
