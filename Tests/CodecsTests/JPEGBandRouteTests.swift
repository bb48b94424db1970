import Dispatch
import PhotoCore
import Synchronization
import Testing

@testable import Codecs

/// The band route every full-size JPEG render takes when it is not spliced: the photo decoded a
/// pass at a time (`ImageCodec.withSource`, `JPEGSource`), kernels run band by band (`Planner`),
/// the bands compressed and joined (`JPEGSink`). It must give exactly what decode, filter, encode
/// one after the other give, and fail on damage as the decoder does.
@Suite struct JPEGBandRouteTests {
  static let jpegFixtures =
    (fixtureNames(in: "jpeg", suffix: ".jpg") + fixtureNames(in: "jpeg", suffix: ".jpeg")).map {
      "jpeg/\($0)"
    }
    + ["faces/hopper.jpg", "faces/hopper_orientation_6.jpg", "photos/seeding_by_Clements_Engelhardt.jpg"]

  /// `bytes` through the band route: turned upright, then `kernels` (made for the upright size),
  /// encoded with `options`. nil when the photo has no band source.
  static func render(
    _ bytes: [UInt8], options: EncodeOptions = EncodeOptions(), decode: DecodeOptions = DecodeOptions(),
    kernels: (ImageSize) throws -> [any StepKernel] = { _ in [] }
  ) throws -> (jpeg: [UInt8], warnings: [String])? {
    try ImageCodec.withSource(bytes, options: decode) { opened in
      guard let opened else { return nil }
      let (chain, size) = try Self.chain(opened, kernels)
      let sink = try JPEGSink(size: size, options: options, fill: nil)
      let plan = RenderPlan(kernels: chain, inputSize: opened.source.size, bandHeight: sink.bandHeight)
      let warnings = try Planner.run(plan, from: opened.source, to: sink)
      return (try sink.finish(), warnings)
    }
  }

  /// The pixels the band route decodes (upright), as one image.
  static func pixels(_ bytes: [UInt8]) throws -> (image: Image, warnings: [String])? {
    try ImageCodec.withSource(bytes) { opened in
      guard let opened else { return nil }
      let (chain, size) = try Self.chain(opened, { _ in [] })
      var failure: (any Error)? = nil
      var warnings: [String] = []
      let image = Image.filling(size) { buffer in
        do {
          let plan = RenderPlan(kernels: chain, inputSize: opened.source.size, bandHeight: 64)
          warnings = try Planner.run(plan, from: opened.source, to: BufferSink(buffer, bandHeight: 64))
        } catch { failure = error }
      }
      if let failure { throw failure }
      return (image, warnings)
    }
  }

  static func chain(_ opened: PhotoSource, _ kernels: (ImageSize) throws -> [any StepKernel]) throws
    -> ([any StepKernel], ImageSize)
  {
    let upright = PixelTransform.upright(exifOrientation: opened.details.orientation, of: opened.source.size)
    let chain = (upright.isIdentity ? [] : [TransformKernel(upright)]) + (try kernels(upright.outputSize))
    return (chain, chain.last?.outputSize ?? opened.source.size)
  }

  static func encodeOptions(_ subsampling: ChromaSubsampling, metadata: ImageMetadata) -> EncodeOptions {
    var options = EncodeOptions()
    options.subsampling = subsampling
    options.metadata = metadata
    return options
  }

  /// Every JPEG fixture the band route opens gives the decoder's exact pixels and warnings, and
  /// the bytes of an encode of those pixels: a render's SHA-256 must not depend on its route.
  /// One it cannot open fails as the decoder does.
  @Test(arguments: jpegFixtures)
  func bandsGiveTheDecodersPixelsAndTheEncodersBytes(path: String) throws {
    let bytes = try fixture(path)
    let reference: DecodedImage
    do { reference = try ImageCodec.decode(bytes) } catch {
      #expect(throws: CodecError.self, "\(path)") { try Self.render(bytes) }
      return
    }
    let options = Self.encodeOptions(.s420, metadata: reference.metadata)
    let (image, warnings) = try #require(try Self.pixels(bytes), "\(path)")
    #expect(image == reference.image, "\(path): the band route decodes other pixels")
    #expect(warnings == reference.warnings, "\(path)")
    let (jpeg, _) = try #require(try Self.render(bytes, options: options))
    #expect(jpeg == (try ImageCodec.encode(reference.image, as: .jpeg, options: options)), "\(path)")
  }

  /// A photo big enough for many bands, at every subsampling, through a pointwise step.
  @Test(arguments: ChromaSubsampling.allCases)
  func bandsThroughAStepMatchTheWholeImage(subsampling: ChromaSubsampling) throws {
    let source = try ImageCodec.decode(try fixture("photos/chelsea.png")).image
    var big = Image(width: 1203, height: 1100)
    for y in 0..<big.height {
      for x in 0..<big.width { big[x, y] = source[x % source.width, y % source.height] }
    }
    let options = Self.encodeOptions(subsampling, metadata: ImageMetadata())
    let original = try ImageCodec.encode(big, as: .jpeg, options: options)
    let step = try Filters.step(
      filter: "vignette", version: 1, parameters: ["intensity": .number(0.7), "radius": .number(0.8)],
      derived: [:])
    let (jpeg, _) = try #require(try Self.render(original, options: options) { try step.kernels(input: $0) })
    var expected = try ImageCodec.decode(original).image
    try step.render(on: &expected)
    #expect(BandPlan.standard(width: big.width, height: big.height, subsampling: subsampling).count > 2)
    #expect(jpeg == (try ImageCodec.encode(expected, as: .jpeg, options: options)))
  }

  /// Band renders run at once from every pool thread (a batch with -j) all finish with the right
  /// bytes: a render never waits for a helper task that has no thread to run on.
  @Test func manyRendersAtOnceFinish() throws {
    var big = try ImageCodec.decode(try fixture("faces/hopper.jpg")).image
    big = big.resampled(longestSide: 1400)
    let jpeg = try ImageCodec.encode(big, as: .jpeg)
    let expected = try ImageCodec.encode(try ImageCodec.decode(jpeg).image, as: .jpeg)
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 24) { _ in
      guard let result = try? Self.render(jpeg), result.jpeg == expected else {
        failures.withLock { $0 += 1 }
        return
      }
    }
    #expect(failures.withLock { $0 } == 0)
  }

  /// Damage found halfway through the bands fails the render as damage, as it fails the decoder
  /// (libjpeg's scanline reader may name another symptom than TurboJPEG), not a half-grey JPEG.
  @Test func damageFailsAsTheDecoderFails() throws {
    let good = try fixture("faces/hopper.jpg")
    let cut = Array(good.prefix(good.count * 2 / 3)) + [0xFF, 0xD9]
    var corrupt = good
    let scan = try JPEGMarkers.parseHeader(good, metadata: false).firstScanOffset
    for i in stride(from: scan + 400, to: scan + 4000, by: 7) where corrupt[i] != 0xFF && corrupt[i] != 0x00 {
      corrupt[i] ^= 0x5A
    }
    for (name, bytes) in [("cut", cut), ("corrupt", corrupt)] {
      for error in [
        Result { try ImageCodec.decode(bytes) }.map { _ in () },
        Result { try Self.render(bytes) }.map { _ in () },
      ] {
        guard case .failure(let e) = error, case .corruptData(.jpeg, _)? = e as? CodecError else {
          Issue.record("\(name): \(error)")
          continue
        }
      }
    }
  }

  /// Extraneous bytes before a marker (harmless, common in camera files) come first, corrupt
  /// entropy data later. TurboJPEG reports the first warning only; both routes must still refuse.
  @Test(arguments: ["faces/hopper.jpg", "faces/hopper_orientation_6.jpg"])
  func damageAfterAHarmlessWarningIsStillDamage(path: String) throws {
    var bytes = try fixture(path)
    let scan = try JPEGMarkers.parseHeader(bytes, metadata: false).firstScanOffset
    bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: scan)
    let harmless = try ImageCodec.decode(bytes)
    #expect(harmless.warnings.count == 1 && harmless.warnings[0].contains("extraneous bytes before marker"))
    #expect(try Self.pixels(bytes)?.warnings == harmless.warnings)
    // The scan cut short (an EOI follows, so the file looks complete): libjpeg warns of a
    // premature end only after the harmless warning.
    bytes = Array(bytes.prefix(scan + (bytes.count - scan) * 2 / 3)) + [0xFF, 0xD9]
    #expect(throws: CodecError.self, "\(path): decode") { try ImageCodec.decode(bytes) }
    #expect(throws: CodecError.self, "\(path): bands") { try Self.render(bytes) }
  }

  @Test func pixelLimitIsCheckedBeforeAnything() throws {
    var options = DecodeOptions()
    options.maxPixels = 100
    #expect(throws: CodecError.self) { try Self.render(try fixture("faces/hopper.jpg"), decode: options) }
  }
}
