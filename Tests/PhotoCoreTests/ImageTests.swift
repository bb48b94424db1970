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

  /// The pages of a large image are mapped by a helper while the filler writes them: no byte the
  /// filler wrote is changed, whatever the helper and the filler reach first (the filler writes
  /// from the bottom up here, meeting the helper coming down), and small images take no helper.
  @Test(arguments: [(3001, 1000), (17, 5)])
  func filledImagesKeepEveryByteWritten(width: Int, height: Int) {
    let image = Image.filling(ImageSize(width, height)) { buffer in
      for y in (0..<height).reversed() {
        let row = buffer.row(y)
        for x in 0..<(width * 4) { row[x] = UInt8(truncatingIfNeeded: x &* 31 &+ y &* 7 &+ 1) }
      }
    }
    #expect((image.width, image.height) == (width, height))
    var wrong = 0
    for y in 0..<height {
      for x in 0..<(width * 4)
      where image.bytes[y * width * 4 + x] != UInt8(truncatingIfNeeded: x &* 31 &+ y &* 7 &+ 1) {
        wrong += 1
      }
    }
    #expect(wrong == 0)
  }
}
