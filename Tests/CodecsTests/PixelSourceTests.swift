import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// The planner's sources and sinks: a pass over any rows and columns gives exactly the decoder's
/// pixels there, and the sinks write exactly the bytes the whole-image encoders write.
@Suite struct PixelSourceTests {
  static let jpegs =
    (fixtureNames(in: "jpeg", suffix: ".jpg") + fixtureNames(in: "jpeg", suffix: ".jpeg"))
    .filter { !$0.contains("truncated") }.map { "jpeg/\($0)" }
    + ["faces/hopper.jpg", "faces/hopper_orientation_6.jpg"]
  static let pngs =
    fixtureNames(in: "png", suffix: ".png").filter { !$0.hasPrefix("i") && !$0.hasSuffix("i.png") }.map {
      "png/\($0)"
    }
    + ["faces/astronaut.png", "photos/coffee.png", "jpeg/video-001.png"]

  /// The stored pixels (before orientation) the whole-image decoder gives.
  static func stored(_ bytes: [UInt8]) throws -> Image {
    switch try ImageCodec.format(of: bytes) {
    case .jpeg: try JPEGCodec.decode(bytes, options: DecodeOptions()).image
    case .png: try PNGCodec.decode(bytes, options: DecodeOptions()).0
    case let other: throw CodecError.unsupported("no stored-pixel decoder for \(other) in this test")
    }
  }

  /// One pass over `rect` of the photo, as an image.
  static func pass(_ bytes: [UInt8], _ rect: PixelRect, toEnd: Bool = true) throws -> (Image, [String]) {
    try ImageCodec.withSource(bytes) { opened in
      let source = try #require(opened).source
      let buffer = PixelBuffer(rect: rect)
      let pass = try source.startPass(rows: rect.rows, columns: rect.columns, toEnd: toEnd)
      // In uneven pieces, as the planner's slots may ask.
      var row = 0
      for piece in [1, 7, 16, 33, 128] + [Int](repeating: 97, count: rect.height) where row < rect.height {
        let n = min(piece, rect.height - row)
        try pass.read(into: buffer.row(rect.y + row), stride: buffer.stride, count: n)
        row += n
      }
      let warnings = try pass.finish()
      return (buffer.image(rect), warnings)
    }
  }

  /// Rectangles starting on and off iMCU boundaries, at the edges and inside.
  static func rects(_ size: ImageSize) -> [PixelRect] {
    let (w, h) = (size.width, size.height)
    var rects = [PixelRect(size)]
    for (x, y, rw, rh) in [
      (0, 1, w, h - 1), (0, 17, w, min(h - 17, 40)), (1, 0, w - 1, h), (15, 9, w / 2, h / 3),
      (16, 16, 16, 16), (w - 5, h - 3, 5, 3), (w / 3, h / 2, w - w / 3, h - h / 2), (33, 0, 1, h),
      (0, h - 1, w, 1),
    ] where x >= 0 && y >= 0 && rw > 0 && rh > 0 && x + rw <= w && y + rh <= h {
      rects.append(PixelRect(x: x, y: y, width: rw, height: rh))
    }
    return rects
  }

  @Test(arguments: jpegs + pngs)
  func anyPassGivesTheDecodersPixels(_ path: String) throws {
    let bytes = try fixture(path)
    let whole = try Self.stored(bytes)
    for rect in Self.rects(ImageSize(whole.width, whole.height)) {
      let (part, _) = try Self.pass(bytes, rect)
      var expected = whole
      expected = expected.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
      #expect(part == expected, "\(path) \(rect)")
    }
  }

  @Test func passesThatStopEarlyAndWarnings() throws {
    // A pass need not read the file to its end; one that does reports the decoder's warnings.
    let bytes = try fixture("faces/hopper.jpg")
    let whole = try Self.stored(bytes)
    let (top, _) = try Self.pass(bytes, PixelRect(x: 0, y: 0, width: whole.width, height: 10), toEnd: false)
    #expect(top == whole.cropped(x: 0, y: 0, width: whole.width, height: 10))
    let reference = try ImageCodec.decode(bytes)
    let (_, warnings) = try Self.pass(bytes, PixelRect(ImageSize(whole.width, whole.height)))
    #expect(warnings == reference.warnings)
  }

  @Test func interlacedPNGsAreNotSources() throws {
    let opened = try ImageCodec.withSource(try fixture("png/ibasn2c08.png")) { $0 != nil }
    #expect(!opened)
  }

  @Test func damageIsFoundByThePassThatReadsToTheEnd() throws {
    var bytes = try fixture("faces/hopper.jpg")
    // A marker inside the entropy-coded data near the end: libjpeg warns of corrupt data there.
    (bytes[bytes.count - 300], bytes[bytes.count - 299]) = (0xFF, 0xC4)
    let whole = try Self.stored(try fixture("faces/hopper.jpg"))
    #expect(throws: CodecError.self) {
      _ = try Self.pass(bytes, PixelRect(x: 0, y: 0, width: whole.width, height: 8), toEnd: true)
    }
    #expect(throws: CodecError.self) { _ = try ImageCodec.decode(bytes) }
  }

  @Test(arguments: ChromaSubsampling.allCases)
  func theJPEGSinkWritesTheEncodersBytes(_ subsampling: ChromaSubsampling) throws {
    let image = noiseImage(width: 301, height: 517, seed: 3, opaque: false)
    var options = EncodeOptions(quality: 85, subsampling: subsampling)
    options.metadata.comments = [Array("a comment".utf8)]
    let sink = try JPEGSink(
      size: ImageSize(image.width, image.height), options: options, fill: RGBA(10, 20, 30))
    var copy = image
    copy.withPixels { all in
      var y = 0
      var k = 0
      while y < image.height {
        let rows = min(sink.bandHeight, image.height - y)
        let band = PixelBuffer(rect: PixelRect(x: 0, y: y, width: image.width, height: rows))
        band.copy(band.rect, from: all)
        try? sink.write(band: k, band)
        (y, k) = (y + rows, k + 1)
      }
    }
    let expected = try ImageCodec.encode(image.flattened(over: RGBA(10, 20, 30)), as: .jpeg, options: options)
    #expect(try sink.finish() == expected)
  }

  @Test(arguments: [true, false])
  func thePNGSinkWritesTheEncodersBytes(_ opaque: Bool) throws {
    let image = noiseImage(width: 203, height: 301, seed: 4, opaque: opaque)
    var options = EncodeOptions()
    options.metadata.xmp = Array("<x:xmpmeta/>".utf8)
    let sink = try PNGSink(size: ImageSize(image.width, image.height), withAlpha: !opaque, options: options)
    var copy = image
    try copy.withPixels { all in
      var y = 0
      var k = 0
      while y < image.height {
        let rows = min(sink.bandHeight, image.height - y)
        try sink.write(band: k, all.view(PixelRect(x: 0, y: y, width: image.width, height: rows)))
        (y, k) = (y + rows, k + 1)
      }
    }
    #expect(try sink.finish() == (try ImageCodec.encode(image, as: .png, options: options)))
  }
}
