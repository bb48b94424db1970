import Testing

@testable import PhotoCore

/// The renderer's route choice (`RouteChoice.choose`) over tables of what the chain's kernels and
/// the two formats can do: no file, no pixel.
@Suite struct RouteChoiceTests {
  static let size = ImageSize(64, 48)

  /// A kernel that says only what the route choice reads: its capability, and whether it can
  /// make transparent pixels of opaque ones (a circular crop can).
  struct Kernel: StepKernel {
    var capability: StepCapability
    var makesTransparency = false
    var inputSize: ImageSize { RouteChoiceTests.size }
    var outputSize: ImageSize { RouteChoiceTests.size }
    func inputRect(for output: PixelRect) -> PixelRect { output }
    func render(_ input: PixelBuffer, into output: PixelBuffer) throws(FilterError) {}
    func opacity(given input: Opacity) -> Opacity {
      makesTransparency ? .transparent : (input == .opaque ? .opaque : .unknown)
    }
  }

  static let turn = Kernel(capability: .transform(.rotation(quarterTurns: 1, of: size)))
  static let mirror = Kernel(capability: .transform(.flip(horizontally: true, of: size)))
  static let local = Kernel(
    capability: .local(reach: 2, footprint: [PixelRect(x: 8, y: 8, width: 8, height: 8)]))
  static let pointwise = Kernel(capability: .pointwise)
  static let whole = Kernel(capability: .whole)
  static let circle = Kernel(capability: .pointwise, makesTransparency: true)

  /// A JPEG written as a JPEG: bands both ways, blocks that can be spliced, no transparency.
  static func jpegToJPEG(_ chain: [Kernel]) -> RouteFacts {
    RouteFacts(
      chain: chain, sourceOpacity: .opaque, sourceBands: true, targetBands: true, targetAlpha: false,
      spliceable: true)
  }

  /// A PNG original (which may have transparency) written as a PNG.
  static func pngToPNG(_ chain: [Kernel]) -> RouteFacts {
    RouteFacts(
      chain: chain, sourceOpacity: .unknown, sourceBands: true, targetBands: true, targetAlpha: true,
      spliceable: false)
  }

  @Test(
    arguments: [
      // Moves then local changes: spliced, the moves counted.
      ([local], RouteChoice.lossless(transforms: 0)),
      ([turn], .lossless(transforms: 1)),
      ([turn, mirror, local, local], .lossless(transforms: 2)),
      ([], .lossless(transforms: 0)),
      // A step that may change every pixel, or a move after a local change: re-encoded in bands.
      ([pointwise], .bands(holds: [])),
      ([local, turn], .bands(holds: [])),
      ([turn, local, pointwise], .bands(holds: [])),
      // A step that renders only whole images is held for, wherever it is.
      ([local, whole, turn], .bands(holds: [1])),
      ([whole, whole], .bands(holds: [0, 1])),
    ])
  func aJPEGWrittenAsAJPEG(chain: [Kernel], route: RouteChoice) {
    #expect(RouteChoice.choose(Self.jpegToJPEG(chain)) == route)
  }

  @Test func aPinnedReencodeOrARefusedSpliceTakesTheBands() {
    var facts = Self.jpegToJPEG([Self.turn, Self.local])
    facts.reencodePinned = true
    #expect(RouteChoice.choose(facts) == .bands(holds: []))
    facts = Self.jpegToJPEG([Self.turn, Self.local])
    facts.spliceRefused = true
    #expect(RouteChoice.choose(facts) == .bands(holds: []))
  }

  @Test func anotherFormatIsNeverSpliced() {
    var facts = Self.jpegToJPEG([Self.local])
    facts.spliceable = false  // a PNG original written as a JPEG, or a JPEG as a PNG
    #expect(RouteChoice.choose(facts) == .bands(holds: []))
  }

  @Test func anOutputWrittenWholeOrASourceWithoutBandsIsRenderedWhole() {
    var facts = Self.jpegToJPEG([Self.pointwise])
    facts.targetBands = false  // WebP, HEIC, TIFF
    #expect(RouteChoice.choose(facts) == .whole)
    facts = Self.jpegToJPEG([Self.pointwise])
    facts.sourceBands = false  // an interlaced PNG
    #expect(RouteChoice.choose(facts) == .whole)
    // The splice needs no bands.
    facts = Self.jpegToJPEG([Self.local])
    facts.targetBands = false
    #expect(RouteChoice.choose(facts) == .lossless(transforms: 0))
  }

  /// A PNG is written RGB or RGBA as its pixels say: when the kernels cannot say before the first
  /// row, the output is held to be looked at.
  @Test func aPNGWhoseTransparencyIsUnknownIsLookedAt() {
    let n = 2
    #expect(RouteChoice.choose(Self.pngToPNG([Self.pointwise, Self.local])) == .bands(holds: [n]))
    // An opaque original keeps the output opaque; a circular crop makes it transparent: known.
    var facts = Self.pngToPNG([Self.pointwise, Self.local])
    facts.sourceOpacity = .opaque
    #expect(RouteChoice.choose(facts) == .bands(holds: []))
    #expect(RouteChoice.choose(Self.pngToPNG([Self.local, Self.circle])) == .bands(holds: []))
    // A JPEG output has no transparency to know.
    facts = Self.pngToPNG([Self.pointwise])
    facts.targetAlpha = false
    #expect(RouteChoice.choose(facts) == .bands(holds: []))
  }

  /// The image the resolve phase held (faceblur's detection) is where bands start: whole-image
  /// kernels before it were rendered by then, and its transparency was looked at.
  @Test func bandsStartFromTheImageTheResolvePhaseHeld() {
    var facts = Self.pngToPNG([Self.whole, Self.local, Self.pointwise, Self.whole])
    facts.held = (at: 2, opacity: .opaque)
    #expect(RouteChoice.choose(facts) == .bands(holds: [3]))
    facts.held = (at: 2, opacity: .transparent)
    #expect(RouteChoice.choose(facts) == .bands(holds: [3, 4]))
    // Holding changes nothing the splice needs: faceblur on a JPEG is still spliced.
    facts = Self.jpegToJPEG([Self.turn, Self.local])
    facts.held = (at: 1, opacity: .opaque)
    #expect(RouteChoice.choose(facts) == .lossless(transforms: 1))
  }
}
