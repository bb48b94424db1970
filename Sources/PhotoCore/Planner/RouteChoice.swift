/// How a render goes from the stored pixels to the output's bytes: the renderer's second phase,
/// chosen by `RouteChoice.choose` from what the chain's kernels and the two formats can do, with
/// no file and no pixel (docs/architecture.md, "Modules and render routes").
public enum RouteChoice: Sendable, Equatable {
  /// The original's compressed blocks are moved (the chain's first `transforms` kernels, as one
  /// move) and only the blocks the local steps after them change are decoded and compressed again
  /// (a JPEG written as a JPEG): every other pixel keeps its bytes.
  case lossless(transforms: Int)
  /// Decoded, filtered and encoded band by band. The whole image is held entering each kernel in
  /// `holds` (one that renders only whole images), and entering "kernel" `chain.count` when the
  /// output must be looked at to know whether it has transparency. Bands run from the image the
  /// resolve phase held (`RouteFacts.held`) when there is one, else from the source.
  case bands(holds: [Int])
  /// The whole image is rendered and then encoded at once: the output format is written whole
  /// only (WebP, HEIC, TIFF), or the source cannot give bands.
  case whole

  /// The route for `facts`: the splice when the formats allow one, nothing pins a re-encode and
  /// the chain only moves blocks and then changes some in place; else bands when the source and
  /// the output have them; else the whole image.
  public static func choose(_ facts: RouteFacts) -> RouteChoice {
    if let transforms = spliceableTransforms(facts) { return .lossless(transforms: transforms) }
    guard facts.sourceBands && facts.targetBands else { return .whole }
    let start = facts.held?.at ?? 0
    var holds = facts.chain.indices.filter { $0 >= start && facts.chain[$0].capability == .whole }
    if facts.targetAlpha && outputOpacity(facts) == .unknown { holds.append(facts.chain.count) }
    return .bands(holds: holds)
  }

  /// The number of transforms the splice moves, when it may be tried.
  static func spliceableTransforms(_ facts: RouteFacts) -> Int? {
    guard facts.spliceable, !facts.reencodePinned, !facts.spliceRefused else { return nil }
    let capabilities = facts.chain.map(\.capability)
    var transforms = 0
    while transforms < capabilities.count, case .transform = capabilities[transforms] { transforms += 1 }
    guard capabilities[transforms...].allSatisfy(\.isLocal) else { return nil }
    return transforms
  }

  /// Whether the output has transparency, as far as the kernels say before any band is rendered:
  /// from the held image's (known: it was looked at) or the source's, through every kernel after
  /// it. A kernel that renders only whole images says it as any other (its image is not looked
  /// at again).
  static func outputOpacity(_ facts: RouteFacts) -> Opacity {
    let (start, entering) = facts.held.map { ($0.at, $0.opacity) } ?? (0, facts.sourceOpacity)
    return opacity(after: facts.chain[start...], entering: entering)
  }

  /// Whether an image that is `entering` has transparency after `kernels`, as they say.
  public static func opacity(after kernels: ArraySlice<any StepKernel>, entering: Opacity) -> Opacity {
    kernels.reduce(entering) { $1.opacity(given: $0) }
  }
}

/// What the route choice looks at (`RouteChoice.choose`).
public struct RouteFacts: Sendable {
  /// The kernels from the stored pixels to the output, in order: the EXIF orientation's turn
  /// first (when the photo has one), then every step's.
  public var chain: [any StepKernel]
  /// The image the resolve phase held (to show a step its input: faceblur's detection): the
  /// image entering `chain[at]`, with its transparency (looked at). nil when nothing was held.
  public var held: (at: Int, opacity: Opacity)?
  /// Whether the source's pixels can have transparency.
  public var sourceOpacity: Opacity
  /// The source can be decoded a band at a time (not an interlaced PNG).
  public var sourceBands: Bool
  /// The output format can be written a band at a time (JPEG, PNG).
  public var targetBands: Bool
  /// The output format keeps transparency (PNG): it is written RGB or RGBA as its pixels say.
  public var targetAlpha: Bool
  /// The source and the output are one format whose blocks can be moved and kept (JPEG).
  public var spliceable: Bool
  /// This render must re-encode whatever its steps (`--quality`, a render that asked for one).
  public var reencodePinned: Bool
  /// The splice was tried and refused (the file does not allow it): choose without it.
  public var spliceRefused: Bool

  public init(
    chain: [any StepKernel], held: (at: Int, opacity: Opacity)? = nil, sourceOpacity: Opacity,
    sourceBands: Bool, targetBands: Bool, targetAlpha: Bool, spliceable: Bool, reencodePinned: Bool = false,
    spliceRefused: Bool = false
  ) {
    (self.chain, self.held, self.sourceOpacity) = (chain, held, sourceOpacity)
    (self.sourceBands, self.targetBands, self.targetAlpha) = (sourceBands, targetBands, targetAlpha)
    (self.spliceable, self.reencodePinned, self.spliceRefused) = (spliceable, reencodePinned, spliceRefused)
  }
}
