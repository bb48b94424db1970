import Testing

@testable import PhotoCore

@Suite struct ImageTests {
  /// `isOpaque` reads eight pixels at a time: every pixel position, odd sizes and the last pixel
  /// must still count, and colour bytes of 0 must not.
  @Test(arguments: [(1, 1), (3, 1), (7, 3), (64, 65), (4099, 3)])
  func opacityChecksEveryPixel(width: Int, height: Int) {
    var image = Image(width: width, height: height, fill: RGBA(0, 0, 0, 255))
    #expect(image.isOpaque)
    let count = width * height
    for pixel in Set([0, 1, count / 2, count - 2, count - 1].filter { (0..<count).contains($0) }) {
      var translucent = image
      translucent.bytes[pixel * 4 + 3] = 254
      #expect(!translucent.isOpaque, "pixel \(pixel) of \(width)x\(height)")
    }
    image.bytes[0] = 0x12
    #expect(image.isOpaque)
  }
}
