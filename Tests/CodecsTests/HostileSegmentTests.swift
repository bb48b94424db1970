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
      #expect(try JPEGBandRouteTests.render(bytes) != nil)
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

/// EXIF structures whose offsets point into each other or out of the file.
@Suite struct HostileEXIFTests {
  /// IFD0 (orientation 8, ExifIFD at 38) -> Exif IFD (one inline entry) -> IFD1 at 56, whose
  /// JPEG thumbnail is at `thumbnailOffset` for `thumbnailLength` bytes; the thumbnail's own
  /// bytes are at 86..<92.
  func tiff(thumbnailOffset: Int, thumbnailLength: Int) -> [UInt8] {
    var tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    tiff += [2, 0]
    tiff += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0]
    tiff += [0x69, 0x87, 4, 0, 1, 0, 0, 0, 38, 0, 0, 0]
    tiff += [56, 0, 0, 0]
    tiff += [1, 0, 0x00, 0x90, 7, 0, 4, 0, 0, 0, 0x30, 0x32, 0x33, 0x31, 0, 0, 0, 0]
    tiff += [2, 0]
    tiff += [0x01, 0x02, 4, 0, 1, 0, 0, 0, UInt8(thumbnailOffset), 0, 0, 0]
    tiff += [0x02, 0x02, 4, 0, 1, 0, 0, 0, UInt8(thumbnailLength), 0, 0, 0]
    tiff += [0, 0, 0, 0]
    tiff += [0xFF, 0xD8, 0xFF, 0xDB, 0xFF, 0xD9]
    return tiff
  }

  /// A thumbnail whose range starts inside an IFD that is kept: the rebuilt structure is the
  /// same as without the overlap (it used to be left whole, thumbnail included).
  @Test func thumbnailOverlappingAKeptIFDIsStillRemoved() throws {
    let normal = try #require(
      EXIF.rendered(tiff(thumbnailOffset: 86, thumbnailLength: 6), keepingMakerNote: true))
    let overlapping = try #require(
      EXIF.rendered(tiff(thumbnailOffset: 38, thumbnailLength: 54), keepingMakerNote: true))
    #expect(overlapping == normal)
    #expect(overlapping.count == 56)
    #expect(!overlapping.contains(bytes: [0xFF, 0xD8]))
  }

  /// Offsets and counts at the top of their 32-bit range, and IFD links that loop.
  @Test func offsetsAndCountsPastTheEnd() {
    var tiff = self.tiff(thumbnailOffset: 86, thumbnailLength: 6)
    let original = tiff
    for (at, value) in [(4, [0xFF, 0xFF, 0xFF, 0xFF]), (10, [0xFF, 0xFF]), (14, [0xFF, 0xFF, 0xFF, 0x7F])] {
      tiff = original
      tiff.replaceSubrange(at..<(at + value.count), with: value.map(UInt8.init))
      _ = EXIF.rendered(tiff, keepingMakerNote: true)
      _ = EXIF.orientation(in: tiff)
    }
    // IFD1 links back to IFD0, and the Exif IFD to itself.
    tiff = original
    tiff[34] = 8
    tiff[30] = 38
    #expect(EXIF.rendered(tiff, keepingMakerNote: true) != nil)
  }

  /// Many entries in IFD0 and IFD1 (a PNG's eXIf has no 64 KB cap): IFD0's private tags and
  /// all of IFD1 are dropped, in one pass over the entries (an earlier patching sanitizer
  /// compared every pair of ranges, 65535 x 65535).
  @Test func manyEntries() throws {
    let n = 3000
    var tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
    func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
    let ifd0 = 8
    let ifd1 = ifd0 + 2 + n * 12 + 4
    let values0 = ifd1 + 2 + n * 12 + 4
    let values1 = values0 + n * 8
    let thumbnail = values1 + n * 8
    tiff += u16(n)
    for k in 0..<n { tiff += u16(0x1000 + k) + u16(5) + u32(1) + u32(values0 + k * 8) }
    tiff += u32(ifd1)
    tiff += u16(n)
    tiff += u16(0x0201) + u16(4) + u32(1) + u32(thumbnail)
    tiff += u16(0x0202) + u16(4) + u32(1) + u32(6)
    for k in 2..<n { tiff += u16(0x1000 + k) + u16(5) + u32(1) + u32(values1 + k * 8) }
    tiff += u32(0)
    tiff += [UInt8](repeating: 0x11, count: n * 8) + [UInt8](repeating: 0, count: 16)
    tiff += [UInt8](repeating: 0x22, count: (n - 2) * 8)
    tiff += [0xFF, 0xD8, 0xFF, 0xDB, 0xFF, 0xD9]
    #expect(EXIF.rendered(tiff, keepingMakerNote: true) == nil)  // nothing on the lists
    // With a Make among them, that alone is kept.
    tiff.replaceSubrange((ifd0 + 2)..<(ifd0 + 14), with: u16(0x010F) + u16(2) + u32(4) + Array("Abc\0".utf8))
    let clean = try #require(EXIF.rendered(tiff, keepingMakerNote: true))
    #expect(TIFFListing(clean)?.ifd0.keys.sorted() == [0x010F])
    #expect(clean.count == 8 + 2 + 12 + 4)
  }
}

/// Inputs libFuzzer found (`make fuzz`), kept under Tests/Inputs/fuzz/TARGET/: each is refused or
/// read cleanly since its fix.
@Suite struct FuzzFindingTests {
  /// FuzzMetadata: an orientation entry with a count of 9 (its values out of line). The reader
  /// took the inline bytes as the orientation (7) while the sanitizer rewrote only entries of
  /// count 1, so a render's EXIF still said 7 over upright pixels (and a second decode turned
  /// them again). Both now use the entry's first value, wherever it is.
  @Test func exifOrientationWithACountOfNine() throws {
    let input = try testInput("fuzz/FuzzMetadata/exif-orientation-count-9")
    let tiff = Array(input.dropFirst())  // the selector byte
    let clean = try #require(EXIF.rendered(tiff, keepingMakerNote: true))
    #expect((EXIF.orientation(in: clean) ?? 1) == 1)
  }

  /// FuzzMetadata: kept values that each hold no image but side by side make a JPEG's start
  /// (FF D8 FF) in the rebuilt EXIF. Such an EXIF is dropped, so no render carries a signature
  /// and `audit` finds no picture in a render's EXIF.
  @Test func exifValuesThatMakeASignatureSideBySide() throws {
    let input = try testInput("fuzz/FuzzMetadata/exif-signature-across-values")
    let tiff = Array(input.dropFirst())  // the selector byte
    #expect(EmbeddedImage.isPresent(in: tiff))
    for keepingMakerNote in [true, false] {
      if let clean = EXIF.rendered(tiff, keepingMakerNote: keepingMakerNote) {
        #expect(!EmbeddedImage.isPresent(in: clean))
        #expect(!EXIF.findings(in: clean).contains { $0.kind == .embeddedImage })
      }
    }
  }

  /// The same through a JPEG: a render of a photo whose orientation entry has several values
  /// decodes upright again, without another turn.
  @Test func renderOfAManyValuedOrientationIsUpright() throws {
    // IFD0 with one orientation entry of type SHORT, count 2, values 6 and 6 (inline).
    let tiff: [UInt8] = [
      0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 2, 0, 6, 0, 6, 0, 0, 0, 0,
    ]
    var jpeg = try fixture("jpeg/testorig.jpg")
    let exif = [0xFF, 0xE1, 0, UInt8(2 + 6 + tiff.count)] + JPEGMarkers.exifSignature + tiff
    jpeg.insert(contentsOf: exif, at: 2)
    let decoded = try ImageCodec.decode(jpeg)
    #expect(decoded.orientation == 6 && decoded.image.width == 149)
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    let render = try ImageCodec.encode(decoded.image, as: .png, options: options)
    let again = try ImageCodec.decode(render)
    #expect(again.orientation == 1)
    let same = again.image == decoded.image
    #expect(same)
  }
}
