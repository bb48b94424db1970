import Foundation
import PhotoCore
import Testing

@testable import Codecs

@Suite struct CodecOrientationTests {
  @Test(arguments: 2...8)
  func everyOrientationDecodesUpright(orientation: Int) throws {
    let upright = try ImageCodec.decode(try fixture("faces/hopper.jpg")).image
    let bytes = try fixture("faces/hopper_orientation_\(orientation).jpg")
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.orientation == orientation)
    // Separate encodes of the same photo, so close but not exact (measured 4.65...4.85).
    expectSimilar(decoded.image, upright, meanError: 6, name: "hopper_orientation_\(orientation)")
    let info = try ImageCodec.readInfo(bytes)
    #expect(
      info.sizeAndOrientation == ImageInfo(format: .jpeg, width: 128, height: 128, orientation: orientation))
  }

  @Test func readInfoSwapsTheSidesForQuarterTurns() throws {
    // A 227x149 JPEG given EXIF orientation 6 reads as 149x227, upright.
    let plain = try ImageCodec.decode(try fixture("jpeg/testorig.jpg")).image
    var options = EncodeOptions()
    options.metadata.exif = tiffWithOrientation(6)
    let jpeg = try ImageCodec.encode(plain, as: .jpeg, options: options)
    // The encoder always writes orientation 1, so patch the value back to 6 in the bytes.
    let patched = patchOrientation(jpeg, to: 6)
    #expect(
      try ImageCodec.readInfo(patched).sizeAndOrientation
        == ImageInfo(format: .jpeg, width: 149, height: 227, orientation: 6))
    let decoded = try ImageCodec.decode(patched)
    #expect(decoded.image.width == 149 && decoded.image.height == 227)
    #expect(decoded.fullWidth == 149 && decoded.fullHeight == 227)
    #expect(decoded.metadata.exif.flatMap(EXIF.orientation) == 1)
  }
}

extension CodecOrientationTests {
  @Test func pngEXIfOrientationIsAppliedToo() throws {
    // A 3x2 PNG with an eXIf chunk saying 6 (turn clockwise) decodes as 2x3, upright.
    var image = Image(width: 3, height: 2, fill: RGBA(0, 0, 0, 255))
    image[0, 0] = RGBA(255, 0, 0, 255)  // top-left
    var png = try ImageCodec.encode(image, as: .png)
    var chunk: [UInt8] = []
    PNGCodec.appendChunk("eXIf", tiffWithOrientation(6), to: &chunk)
    png.insert(contentsOf: chunk, at: 33)
    #expect(
      try ImageCodec.readInfo(png).sizeAndOrientation
        == ImageInfo(format: .png, width: 2, height: 3, orientation: 6))
    let decoded = try ImageCodec.decode(png)
    #expect(decoded.orientation == 6)
    #expect(decoded.image == image.rotated(quarterTurns: 1))
    #expect(decoded.image[1, 0] == RGBA(255, 0, 0, 255))  // the old top-left is now top-right
    // Into a JPEG, the EXIF goes along with orientation 1.
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    let jpeg = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
    #expect(
      try ImageCodec.readInfo(jpeg).sizeAndOrientation
        == ImageInfo(format: .jpeg, width: 2, height: 3, orientation: 1))
    #expect(try ImageCodec.decode(jpeg).metadata.exif.flatMap(EXIF.orientation) == 1)
  }
}

/// A minimal big-endian TIFF with one IFD0 entry: orientation.
func tiffWithOrientation(_ value: UInt8) -> [UInt8] {
  [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0]
}

/// Rewrites the orientation value of `tiffWithOrientation` inside a JPEG.
func patchOrientation(_ jpeg: [UInt8], to value: UInt8) -> [UInt8] {
  var out = jpeg
  let pattern: [UInt8] = [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0]
  for i in 0..<(out.count - pattern.count) where Array(out[i..<(i + pattern.count)]) == pattern {
    out[i + pattern.count] = value
    break
  }
  return out
}
