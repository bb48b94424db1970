import Codecs
import PhotoCore
import Recipe

/// One full-size render of a photo, in two phases (docs/architecture.md, "Modules and render routes"):
///
/// 1. **resolve** (`resolve(steps:adding:)`): every step's kernels are made, and each request
///    that looks at pixels (faceblur's detection) is shown the image entering it, rendered once
///    and held; the requests become steps. Nothing after this detects again.
/// 2. **render** (`output(as:existing:)`): `RouteChoice.choose` picks the route from the chain's
///    kernels, the formats and the pin, and the renderer runs it. The held image is the source of
///    what follows it; when the splice is refused, the route is chosen again without it, from
///    the steps already made.
///
/// The codecs give the source (`PhotoSource`) and the sinks; the store calls the renderer and
/// commits what it made.
struct Renderer {
  /// The image a render holds whole: the image entering `chain[at]`.
  struct Held {
    var image: Image
    var at: Int
    /// True while it is the stored pixels themselves, as decoded (no kernel made them).
    var isStored: Bool
    /// Whether it has transparency (looked at: every pixel).
    var opacity: Opacity { image.isOpaque ? .opaque : .transparent }
  }

  let store: EditStore
  let original: [UInt8]
  let source: any PixelSource
  var details: ImageDetails
  /// Every kernel from the stored pixels to the output: the EXIF orientation's turn, then each
  /// step's. `stepIndex[k]` is the stored step (from 0) kernel k belongs to, for errors; nil for
  /// the turn and the new steps.
  private(set) var chain: [any StepKernel] = []
  private var stepIndex: [Int?] = []
  /// The stored steps, then the steps made of the requests.
  private(set) var steps: [Step] = []
  private(set) var added: [Step] = []
  private(set) var held: Held? = nil
  /// The size of the image the chain makes so far.
  private(set) var size: ImageSize

  init(store: EditStore, original: [UInt8], opened: PhotoSource) {
    (self.store, self.original, source, details) = (store, original, opened.source, opened.details)
    let upright = PixelTransform.upright(exifOrientation: details.orientation, of: source.size)
    size = upright.outputSize
    if !upright.isIdentity {
      chain.append(TransformKernel(upright))
      stepIndex.append(nil)
    }
  }

  // MARK: Resolve

  /// Makes the kernels of `stored` and the steps of `requests`, showing each request that looks
  /// at pixels the image entering it (held; each detector runs once).
  mutating func resolve(steps stored: [Step], adding requests: [StepRequest]) throws(StoreError) {
    for (i, step) in stored.enumerated() { try append(step, index: i) }
    for request in requests {
      let step: Step
      if request.requirements.isEmpty {
        // Made for the size entering it.
        do { step = try request.resolve(in: ResolveContext(size: size)) } catch {
          throw .step(index: nil, error)
        }
      } else {
        try hold(at: chain.count)
        step = try store.make(request, for: held!.image)
      }
      try append(step, index: nil)
      added.append(step)
    }
  }

  private mutating func append(_ step: Step, index: Int?) throws(StoreError) {
    let made: [any StepKernel]
    do { made = try step.kernels(input: size) } catch { throw .step(index: index, error) }
    chain += made
    stepIndex += Array(repeating: index, count: made.count)
    if let last = made.last { size = last.outputSize }
    steps.append(step)
  }

  /// Holds the image entering `chain[end]` (`chain.count`: the output), rendered from the image
  /// held before it or from the source; the kernels that render only whole images on the way
  /// render on the image whole. One frame at a time.
  private mutating func hold(at end: Int) throws(StoreError) {
    if let held, held.at == end { return }
    precondition(held.map { $0.at < end } ?? true, "a render holds the image further along, never back")
    var image = held?.image
    var isStored = held?.isStored ?? false
    var start = held?.at ?? 0
    held = nil
    func pass(to k: Int) throws(StoreError) {
      let kernels = Array(chain[start..<k])
      if var current = image {
        image = nil
        do { try current.render(kernels) } catch { throw .step(index: stepIndex[start], error) }
        image = current
        isStored = isStored && kernels.isEmpty
      } else {
        let warnings: [String]
        (image, warnings) = try store.settings.timed("decode") { () throws(StoreError) in
          try store.firstPass(
            kernels, from: source, original: original, size: kernels.last?.outputSize ?? source.size,
            format: details.format)
        }
        details.warnings = warnings
        isStored = kernels.isEmpty
      }
      start = k
    }
    for k in start..<end where chain[k].capability == .whole {
      try pass(to: k)
      var current = image!
      image = nil
      do { try current.render([chain[k]]) } catch { throw .step(index: stepIndex[k], error) }
      image = current
      (isStored, start) = (false, k + 1)
    }
    try pass(to: end)
    held = Held(image: image!, at: end, isStored: isStored)
  }

  // MARK: Render

  /// The facts the route is chosen from, for `format`.
  func facts(as format: ImageFormat, pinned: Bool) -> RouteFacts {
    RouteFacts(
      chain: chain, held: held.map { ($0.at, $0.opacity) },
      sourceOpacity: source.opacity, sourceBands: true, targetBands: format.codec.writesBands,
      targetAlpha: format.capabilities.alpha,
      spliceable: format.capabilities.losslessRoute && details.format == format, reencodePinned: pinned)
  }

  /// Renders and encodes the output as `format`, on the route `RouteChoice.choose` picks.
  mutating func output(as format: ImageFormat, existing: RenderRecord?, index: JPEGScanIndex?)
    throws(StoreError)
    -> (bytes: [UInt8], record: RenderRecord)
  {
    let options = store.encodeOptions(existing: existing, details: details, steps: steps)
    let pinned = store.reencodingIsPinned(existing: existing)
    var facts = facts(as: format, pinned: pinned)
    var bytes: [UInt8]? = nil
    var route = RenderRoute.reencode
    while bytes == nil {
      switch RouteChoice.choose(facts) {
      case .lossless(let transforms):
        // Chosen only when nothing pins re-encoding.
        bytes = try splice(transforms: transforms, options: options, index: index)
        if bytes == nil { facts.spliceRefused = true } else { route = .lossless }
      case .bands(let holds):
        bytes = try self.bands(holds: holds, as: format, options: options)
      case .whole:
        try hold(at: chain.count)
        let image = held!.image
        held = nil
        bytes = try store.encode(image, as: format, options: options, steps: steps)
      }
    }
    return (bytes!, RenderRecord(of: bytes!, format: format, options: options, route: route, pinned: pinned))
  }

  /// The splice: nil when the file does not allow it (`LosslessJPEG.accepts` says no, or libjpeg
  /// refuses what `accepts` allowed); the held image is kept for the route chosen next.
  private mutating func splice(transforms: Int, options: EncodeOptions, index: JPEGScanIndex?)
    throws(StoreError) -> [UInt8]?
  {
    let moved = chain[..<transforms].reduce(nil as PixelTransform?) { moved, kernel in
      guard case .transform(let t) = kernel.capability else { return moved }
      return moved.map { $0.then(t) } ?? t
    }
    guard !store.settings.refusesSplice, LosslessJPEG.accepts(original, transform: moved) else { return nil }
    // The detection's image, when it is the stored pixels, spares the splice a second decode;
    // the splice lets go of it when it does not need it. Any other held image is let go of now.
    let decoded = held.flatMap { $0.isStored ? DecodedPixels($0.image) : nil }
    held = nil
    let bytes: [UInt8]?
    do {
      bytes = try store.settings.timed("splice") { () throws(CodecError) in
        try LosslessJPEG.render(
          original, transform: moved, kernels: Array(chain[transforms...]), options: options,
          decoded: decoded,
          index: index)
      }
    } catch {
      throw .codec(error)
    }
    if bytes == nil, let image = decoded?.image { held = Held(image: image, at: 0, isStored: true) }
    return bytes
  }

  /// The bands route: holds the image where `holds` say, then runs the kernels after the last
  /// hold band by band into the output format's writer.
  private mutating func bands(holds: [Int], as format: ImageFormat, options: EncodeOptions) throws(StoreError)
    -> [UInt8]
  {
    for k in holds {
      // A kernel that renders only whole images renders on the image held entering it.
      try hold(at: k < chain.count && chain[k].capability == .whole ? k + 1 : k)
    }
    let start = held?.at ?? 0
    let kernels = Array(chain[start...])
    do throws(CodecError) {
      let opacity = RouteChoice.opacity(after: chain[start...], entering: held?.opacity ?? source.opacity)
      let fill = Filters.transparencyFill(for: steps) ?? RGBA(255, 255, 255, 255)
      guard let made = try format.codec.sink(size: size, opacity: opacity, fill: fill, options: options)
      else {
        throw CodecError.encodingFailed(format, "no band-by-band writer")  // `writesBands` said there is
      }
      if var image = held?.image {
        held = nil
        try store.run(kernels, from: &image, to: made.sink, format: details.format)
      } else {
        details.warnings = try store.run(kernels, from: source, to: made.sink, format: details.format)
      }
      return try made.finish()
    } catch {
      throw .codec(error)
    }
  }
}
