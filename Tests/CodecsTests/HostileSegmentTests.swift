import PhotoCore
import Testing

@testable import Codecs

/// Marker segments and chunks whose lengths, offsets and counts lie: each is read as far as it
/// really goes, or refused with a `CodecError`, and never traps.
@Suite struct HostileSegmentTests {
  /// The APPn segments photoedit recognises by a signature at the start of their payload.
  static let signedSegments: [(name: String, marker: UInt8, signature: [UInt8])] = [
    ("EXIF", 0xE1, JPEGMarkers.exifSignature),
    ("XMP", 0xE1, JPEGMarkers.xmpSignature),
    ("ICC", 0xE2, JPEGMarkers.iccSignature),
    ("Photoshop", 0xED, JPEGMarkers.photoshopSignature),
    ("Adobe", 0xEE, JPEGMarkers.adobeSignature),
  ]

  /// testorig.jpg with a segment inserted after SOI: `marker`, the 16-bit `length`, then
  /// `payload` (which may run past the segment's end: those bytes are then stray bytes before
  /// the next marker, which libjpeg skips with a harmless warning).
  func withSegment(_ marker: UInt8, length: Int, payload: [UInt8]) throws -> [UInt8] {
    let original = try fixture("jpeg/testorig.jpg")
    return [0xFF, 0xD8, 0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
      + original.dropFirst(2)
  }

  /// Finding: `FF E1 00 02` followed by `Exif\0\0` (a zero-length APP1 whose signature lies
  /// outside it) sliced a reversed range and killed the process with SIGILL; so did XMP and
  /// Photoshop's APP13. Every length shorter than the signature is now an empty segment.
  @Test(arguments: signedSegments.map(\.name))
  func segmentShorterThanItsSignatureCarriesNothing(name: String) throws {
    let (_, marker, signature) = try #require(Self.signedSegments.first { $0.name == name })
    let original = try ImageCodec.decode(try fixture("jpeg/testorig.jpg"))
    for length in 2...(signature.count + 1) {
      let bytes = try withSegment(marker, length: length, payload: signature)
      let decoded = try ImageCodec.decode(bytes)
      let same = decoded.image == original.image
      #expect(same, "\(name), length \(length)")
      #expect(decoded.metadata == original.metadata, "\(name), length \(length)")
      #expect(try ImageCodec.readInfo(bytes).width == 227)
      #expect(try ImageCodec.jpegStream(bytes) != nil)
    }
  }

  /// A segment that holds its signature and nothing more is empty metadata, not an error.
  @Test(arguments: signedSegments.map(\.name))
  func segmentHoldingOnlyItsSignature(name: String) throws {
    let (_, marker, signature) = try #require(Self.signedSegments.first { $0.name == name })
    let bytes = try withSegment(marker, length: signature.count + 2, payload: signature)
    let decoded = try ImageCodec.decode(bytes)
    #expect(decoded.metadata.exif == nil)
    #expect(decoded.metadata.xmp?.isEmpty ?? true)
    #expect(decoded.metadata.icc?.isEmpty ?? true)
    #expect(decoded.metadata.photoshop == nil)
  }

  /// A band whose scan header runs into its own end-of-image marker has no entropy-coded data:
  /// the bands cannot be joined (this sliced a reversed range before).
  @Test func bandWhoseScanHeaderSwallowsItsEnd() {
    // SOI, SOF0 (8 bytes of frame header), then an SOS segment whose length covers the EOI.
    let band: [UInt8] =
      [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x08, 8, 0, 16, 0, 16, 1]
      + [0xFF, 0xDA, 0x00, 0x04, 0xFF, 0xD9]
    #expect(JPEGBands.join([band, band], height: 32, restartInterval: 1) == nil)
  }
}
