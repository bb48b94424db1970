import Testing

@testable import Codecs

/// A JPEG's quality is estimated from its quantisation tables, so a re-encode keeps it.
@Suite struct JPEGQualityTests {
  @Test func everyIJGQualityIsFoundExactly() {
    for quality in 1...100 {
      let tables = [
        0: JPEGQuality.table(JPEGQuality.luminance, quality: quality),
        1: JPEGQuality.table(JPEGQuality.chrominance, quality: quality),
      ]
      // Below about 25 and near 100 several qualities share clamped tables: the highest wins.
      let found = JPEGQuality.estimate(tables: tables)!
      #expect(JPEGQuality.table(JPEGQuality.luminance, quality: found) == tables[0], "\(quality) -> \(found)")
    }
    #expect(JPEGQuality.estimate(tables: [:]) == nil)
  }

  @Test func theHeaderCarriesTheQualityOfARealFile() throws {
    // testorig.jpg is libjpeg's own test image, saved at 75.
    let header = try JPEGMarkers.parseHeader(try fixture("jpeg/testorig.jpg"), metadata: false)
    #expect(header.quality == 75)
    let decoded = try ImageCodec.decode(try fixture("jpeg/testorig.jpg"))
    #expect(decoded.details.quality == 75)
  }

  @Test func aMalformedTableIsIgnored() {
    #expect(JPEGQuality.tables(inDQT: [0x00, 1, 2, 3][...]) == nil)
    #expect(JPEGQuality.tables(inDQT: [0x25] + Array(repeating: 1, count: 64)) == nil)
  }
}
