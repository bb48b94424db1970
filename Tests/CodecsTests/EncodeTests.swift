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
