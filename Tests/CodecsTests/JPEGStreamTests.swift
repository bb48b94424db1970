import Dispatch
import PhotoCore
import Synchronization
import Testing

@testable import Codecs

/// The decode-filter-encode pipeline must give exactly what decode, filter, encode one after the
/// other give, refuse what it cannot stream, and fail on damage as the decoder does.
@Suite struct JPEGStreamTests {
  static let jpegFixtures =
    (fixtureNames(in: "jpeg", suffix: ".jpg") + fixtureNames(in: "jpeg", suffix: ".jpeg")).map {
      "jpeg/\($0)"
    }
    + ["faces/hopper.jpg", "faces/hopper_orientation_6.jpg", "photos/seeding_by_Clements_Engelhardt.jpg"]

  /// Runs a stream, copying every band (after `transform`) into an image, so that the test can
  /// see the pixels the pipeline encoded.
  static func run(
    _ stream: JPEGStream, _ options: EncodeOptions, transform: (@Sendable (ImageRows) -> Void)? = nil
  ) throws -> (image: Image, jpeg: [UInt8], warnings: [String], bands: [Range<Int>]) {
    let (w, h) = (stream.details.fullWidth, stream.details.fullHeight)
    let copy = Mutex<(bytes: [UInt8], bands: [Range<Int>])>(([UInt8](repeating: 0, count: w * h * 4), []))
    let (jpeg, warnings) = try stream.run(encoding: options) { band in
      transform?(band)
      let source = UnsafeBufferPointer(start: band.row(band.rows.lowerBound), count: band.rows.count * w * 4)
      copy.withLock {
        $0.bytes.replaceSubrange(
          (band.rows.lowerBound * w * 4)..<(band.rows.upperBound * w * 4), with: source)
        $0.bands.append(band.rows)
      }
    }
    let (bytes, bands) = copy.withLock { ($0.bytes, $0.bands) }
    return (
      Image(width: w, height: h, bytes: bytes), jpeg, warnings, bands.sorted { $0.lowerBound < $1.lowerBound }
    )
  }

  static func encodeOptions(_ subsampling: ChromaSubsampling, metadata: ImageMetadata) -> EncodeOptions {
    var options = EncodeOptions()
    options.subsampling = subsampling
    options.metadata = metadata
    return options
  }

  /// Baseline files stream, with the decoder's exact pixels and an encode of the same pixels;
  /// progressive, arithmetic, CMYK and turned files do not, and are decoded the usual way.
  @Test(arguments: jpegFixtures)
  func streamsExactlyWhatItCanAndNothingElse(path: String) throws {
    let bytes = try fixture(path)
    let header = try JPEGMarkers.parseHeader(bytes, metadata: false)
    let streamable =
      (header.frameMarker == 0xC0 || header.frameMarker == 0xC1) && header.components.count != 4
      && header.orientation == 1 && !path.contains("truncated")
    let stream: JPEGStream?
    do { stream = try ImageCodec.jpegStream(bytes) } catch {
      #expect(path.contains("truncated"), "\(path): \(error)")
      return
    }
    #expect((stream != nil) == streamable, "\(path)")
    guard let stream else { return }
    let reference = try ImageCodec.decode(bytes)
    #expect(stream.details.metadata == reference.metadata)
    #expect(
      (stream.details.fullWidth, stream.details.fullHeight) == (reference.image.width, reference.image.height)
    )
    let options = Self.encodeOptions(.s420, metadata: reference.metadata)
    let (image, jpeg, warnings, bands) = try Self.run(stream, options)
    #expect(image == reference.image, "\(path): the stream decodes other pixels")
    #expect(bands.first?.lowerBound == 0 && bands.last?.upperBound == image.height)
    #expect(warnings == reference.warnings)
    // The same bytes as decode then encode: a render's SHA-256 must not depend on its path.
    #expect(jpeg == (try ImageCodec.encode(reference.image, as: .jpeg, options: options)), "\(path)")
  }

  /// A photo big enough for many bands, at every subsampling, through a row filter.
  @Test(arguments: ChromaSubsampling.allCases)
  func bandsThroughARowFilterMatchTheWholeImage(subsampling: ChromaSubsampling) throws {
    let source = try ImageCodec.decode(try fixture("photos/chelsea.png")).image
    var big = Image(width: 1203, height: 1100)
    for y in 0..<big.height {
      for x in 0..<big.width { big[x, y] = source[x % source.width, y % source.height] }
    }
    let original = try ImageCodec.encode(
      big, as: .jpeg, options: Self.encodeOptions(subsampling, metadata: ImageMetadata()))
    let operation = try Filters.step(
      filter: "vignette", version: 1, parameters: ["intensity": .number(0.7), "radius": .number(0.8)],
      derived: [:])
    let kernels = try operation.kernels(input: ImageSize(big.width, big.height))
    let renderer: @Sendable (ImageRows) -> Void = { band in
      let pixels = PixelBuffer(
        viewing: band.row(band.rows.lowerBound), stride: band.width * 4,
        rect: PixelRect(columns: 0..<band.width, rows: band.rows))
      for kernel in kernels { try? kernel.render(pixels, into: pixels) }
    }
    let stream = try #require(try ImageCodec.jpegStream(original))
    let (image, jpeg, _, bands) = try Self.run(
      stream, Self.encodeOptions(subsampling, metadata: ImageMetadata()), transform: renderer)
    var expected = try ImageCodec.decode(original).image
    try operation.render(on: &expected)
    #expect(image == expected)
    #expect(bands.count > 2)
    #expect(bands.first?.lowerBound == 0 && bands.last?.upperBound == big.height)
    #expect(zip(bands, bands.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    #expect(
      jpeg
        == (try ImageCodec.encode(
          expected, as: .jpeg, options: Self.encodeOptions(subsampling, metadata: ImageMetadata()))))
  }

  /// Streams run at once from every pool thread (a batch with -j) all finish with the right
  /// pixels: a stream never waits for a helper task that has no thread to run on.
  @Test func manyStreamsAtOnceFinish() throws {
    let original = try fixture("faces/hopper.jpg")
    var big = try ImageCodec.decode(original).image
    big = big.resampled(longestSide: 1400)
    let jpeg = try ImageCodec.encode(big, as: .jpeg)
    let expected = try ImageCodec.decode(jpeg).image
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 24) { _ in
      guard let stream = try? ImageCodec.jpegStream(jpeg),
        let result = try? Self.run(stream, EncodeOptions()),
        result.image == expected
      else {
        failures.withLock { $0 += 1 }
        return
      }
    }
    #expect(failures.withLock { $0 } == 0)
  }

  /// Damage found halfway through the pipeline is the decoder's error, not a half-grey JPEG.
  @Test func damageFailsAsTheDecoderFails() throws {
    let good = try fixture("faces/hopper.jpg")
    let cut = Array(good.prefix(good.count * 2 / 3)) + [0xFF, 0xD9]
    var corrupt = good
    let scan = try JPEGMarkers.parseHeader(good, metadata: false).firstScanOffset
    for i in stride(from: scan + 400, to: scan + 4000, by: 7) where corrupt[i] != 0xFF && corrupt[i] != 0x00 {
      corrupt[i] ^= 0x5A
    }
    for bytes in [cut, corrupt] {
      var decodeError: CodecError?
      do { _ = try ImageCodec.decode(bytes) } catch { decodeError = error }
      let expected = try #require(decodeError)
      let stream = try #require(try ImageCodec.jpegStream(bytes))
      var streamError: CodecError?
      do { _ = try stream.run(encoding: EncodeOptions(), rows: nil) } catch { streamError = error }
      #expect(streamError == expected)
    }
  }

  /// Extraneous bytes before a marker (harmless, common in camera files) come first, corrupt
  /// entropy data later. TurboJPEG reports the first warning only; both paths must still refuse.
  @Test(arguments: ["faces/hopper.jpg", "faces/hopper_orientation_6.jpg"])
  func damageAfterAHarmlessWarningIsStillDamage(path: String) throws {
    var bytes = try fixture(path)
    let scan = try JPEGMarkers.parseHeader(bytes, metadata: false).firstScanOffset
    bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: scan)
    let harmless = try ImageCodec.decode(bytes)
    #expect(harmless.warnings.count == 1 && harmless.warnings[0].contains("extraneous bytes before marker"))
    // The scan cut short (an EOI follows, so the file looks complete): libjpeg warns of a
    // premature end only after the harmless warning.
    bytes = Array(bytes.prefix(scan + (bytes.count - scan) * 2 / 3)) + [0xFF, 0xD9]
    #expect(throws: CodecError.self, "\(path): decode") { try ImageCodec.decode(bytes) }
    if let stream = try ImageCodec.jpegStream(bytes) {
      #expect(throws: CodecError.self, "\(path): stream") {
        try stream.run(encoding: EncodeOptions(), rows: nil)
      }
    }
  }

  @Test func pixelLimitIsCheckedBeforeAnything() throws {
    var options = DecodeOptions()
    options.maxPixels = 100
    #expect(throws: CodecError.self) {
      try ImageCodec.jpegStream(try fixture("faces/hopper.jpg"), options: options)
    }
  }
}
