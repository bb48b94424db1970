import PhotoCore
import Testing

@testable import Codecs

/// The JPEG encoder compresses horizontal bands on all cores and joins them with restart markers.
/// The joined file must decode to exactly the pixels of one whole-image compression.
@Suite struct JPEGBandTests {
  /// A photo tiled and cut to the size asked, so that every band holds real detail.
  static func photo(width: Int, height: Int) throws -> Image {
    let source = try ImageCodec.decode(try fixture("photos/chelsea.png")).image
    var bytes = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let s = ((y % source.height) * source.width + x % source.width) * 4
        let d = (y * width + x) * 4
        bytes[d..<(d + 4)] = source.bytes[s..<(s + 4)]
      }
    }
    return Image(width: width, height: height, bytes: bytes)
  }

  static func options(_ subsampling: ChromaSubsampling, quality: Int = 90) -> EncodeOptions {
    var options = EncodeOptions()
    options.subsampling = subsampling
    options.quality = quality
    return options
  }

  /// The markers of a JPEG's entropy-coded data: restart markers in order, and whether a DRI
  /// segment came before the scan.
  static func restartMarkers(_ jpeg: [UInt8]) -> (dri: Bool, restarts: [UInt8]) {
    var offset = 2
    var dri = false
    while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA {
      if jpeg[offset + 1] == 0xDD { dri = true }
      offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
    }
    var restarts: [UInt8] = []
    for i in offset..<(jpeg.count - 1) where jpeg[i] == 0xFF && (0xD0...0xD7).contains(jpeg[i + 1]) {
      restarts.append(jpeg[i + 1])
    }
    return (dri, restarts)
  }

  /// Sizes that are and are not whole MCUs, with band counts that divide and do not.
  @Test(arguments: ChromaSubsampling.allCases, [(451, 300, 2), (640, 480, 4), (333, 97, 5), (17, 33, 3)])
  func bandsDecodeToTheWholeImagePixels(
    subsampling: ChromaSubsampling, size: (width: Int, height: Int, bands: Int)
  ) throws {
    let image = try Self.photo(width: size.width, height: size.height)
    for quality in [75, 95] {  // the fast and the accurate DCT
      let options = Self.options(subsampling, quality: quality)
      let whole = try JPEGCodec.compress(image, options: options, bands: 1)
      let banded = try JPEGCodec.compress(image, options: options, bands: size.bands)
      let markers = Self.restartMarkers(banded)
      #expect(Self.restartMarkers(whole) == (false, []))
      #expect(markers.dri && !markers.restarts.isEmpty, "\(size) \(subsampling) was not banded")
      #expect(markers.restarts == (0..<markers.restarts.count).map { 0xD0 + UInt8($0 & 7) })
      let a = try ImageCodec.decode(whole)
      let b = try ImageCodec.decode(banded)
      #expect(b.warnings.isEmpty)
      #expect(a.image == b.image, "\(size) \(subsampling) q\(quality)")
    }
  }

  /// At libjpeg's widest (65500) a restart interval (16 bits of MCUs) holds 8 rows of 8x8 MCUs:
  /// more bands than asked, numbered past RST7.
  @Test func widestImagesTakeMoreBandsThanAsked() throws {
    let image = try Self.photo(width: 65500, height: 8 * 81)
    let options = Self.options(.s444)
    let banded = try JPEGCodec.compress(image, options: options, bands: 2)
    let markers = Self.restartMarkers(banded)
    #expect(markers.restarts.count == 10)  // 81 MCU rows in bands of 8
    #expect(markers.restarts.suffix(3) == [0xD7, 0xD0, 0xD1])
    #expect(
      try ImageCodec.decode(banded).image
        == ImageCodec.decode(try JPEGCodec.compress(image, options: options, bands: 1)).image)
  }

  /// Bands that differ in more than their height, or that are not plain baseline JPEGs, are not
  /// joined: the encoder then compresses the whole image in one go.
  @Test func bandsThatDoNotMatchAreNotJoined() throws {
    let top = try Self.photo(width: 64, height: 32)
    let a = try JPEGCodec.compress(top, options: Self.options(.s420), bands: 1)
    let b = try JPEGCodec.compress(top, options: Self.options(.s420, quality: 80), bands: 1)
    #expect(JPEGBands.join([a, a], height: 64, restartInterval: 8) != nil)
    #expect(JPEGBands.join([a, b], height: 64, restartInterval: 8) == nil)  // other tables
    #expect(JPEGBands.join([a, Array(a.dropLast(3))], height: 64, restartInterval: 8) == nil)
    // A band that already has restart markers.
    let sos = a.indices.first { a[$0] == 0xFF && a[$0 + 1] == 0xDA }!
    let withDRI = Array(a[..<sos]) + [0xFF, 0xDD, 0, 4, 0, 1] + Array(a[sos...])
    #expect(JPEGBands.join([withDRI, withDRI], height: 64, restartInterval: 8) == nil)
    // A progressive frame.
    var progressive = a
    let sof = a.indices.first { a[$0] == 0xFF && a[$0 + 1] == 0xC0 }!
    progressive[sof + 1] = 0xC2
    #expect(JPEGBands.join([progressive, progressive], height: 64, restartInterval: 8) == nil)
  }
}
