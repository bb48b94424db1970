import Codecs
import PhotoCore
import Recipe
import Synchronization

extension EditStore {
  /// The render through the planner (`Planner`): the original decoded a pass at a time, every
  /// step's kernels run band by band, the output encoded band by band, so that no frame is ever
  /// held. The same pixels and bytes as `render` then `encode`.
  ///
  /// A request that needs the pixels of the image entering it (faceblur's detection) gets them
  /// from a first pass: the steps before it rendered by the planner into one image, which the
  /// detector searches; the rest of the render then runs band by band from that image. So does
  /// a step that renders only whole images (it gets the image entering it, whole), and a PNG
  /// output whose transparency cannot be known before the first row (a PNG original with an
  /// alpha channel): the planner holds the image there, the one-band case.
  ///
  /// nil when the engine has no source for the file (an interlaced PNG, a test engine) or
  /// TurboJPEG is asked for bands that cannot be joined: then `render` decodes the whole frame.
  func planned(
    original: [UInt8], steps: [Step], adding requests: [StepRequest], as format: ImageFormat,
    existing: RenderRecord?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord)? {
    var outcome: Result<(rendered: Rendered, bytes: [UInt8], record: RenderRecord)?, StoreError> = .success(
      nil)
    Self.rendersUnderWay.add(1, ordering: .relaxed)
    defer { Self.rendersUnderWay.subtract(1, ordering: .relaxed) }
    do {
      try engine.withSource(original, maxPixels: settings.maxPixels) { opened in
        guard let opened else { return }
        outcome = Result { () throws(StoreError) in
          try planned(
            opened, original: original, steps: steps, adding: requests, as: format, existing: existing)
        }
      }
    } catch {
      throw .codec(error)
    }
    return try outcome.get()
  }

  private func planned(
    _ opened: PhotoSource, original: [UInt8], steps: [Step], adding requests: [StepRequest],
    as format: ImageFormat, existing: RenderRecord?, allowLossless: Bool = true
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord)? {
    // The band-by-band writer, made once the output's size and opacity are known; a format
    // written whole only (WebP) is rendered whole by `render`.
    guard format.codec.writesBands else { return nil }
    let source = opened.source
    var details = opened.details
    // The detectors load while the photo is decoded for them.
    let detectors = DetectorLoader.needed(by: requests)
    for choice in detectors { settings.detectors.prefetch(choice) }
    let index = scanIndex(
      original, format: format, stored: details.format, existing: existing, detects: !detectors.isEmpty,
      allowLossless: allowLossless)
    defer { index?.cancel() }
    // `kernels` run from the original, or from `held` once something needed the whole image
    // (a first pass for a step that looks at it, a step that renders only whole images).
    var held: Image? = nil
    // True while `held` is the stored pixels themselves, as decoded (no step, no turn, made them).
    var heldIsStored = false
    var kernels: [any StepKernel] = []
    // Every kernel from the stored pixels on, whatever was held on the way (nil once a step
    // renders only whole images): the lossless route's chain.
    var fromSource: [any StepKernel]? = []
    // The stored pixels are turned upright first, as `decode` does.
    let upright = PixelTransform.upright(exifOrientation: details.orientation, of: source.size)
    if !upright.isIdentity {
      kernels.append(TransformKernel(upright))
      fromSource?.append(kernels[0])
    }
    var size = upright.outputSize
    // The image `kernels` make, which is then held (and `kernels` start again from it).
    func hold() throws(StoreError) -> Image {
      var image: Image
      if let held {
        image = held
        do { try image.render(kernels) } catch { throw .step(index: nil, error) }
        heldIsStored = heldIsStored && kernels.isEmpty
      } else {
        (image, details.warnings) = try settings.timed("decode") { () throws(StoreError) in
          try firstPass(kernels, from: source, original: original, size: size, format: details.format)
        }
        heldIsStored = kernels.isEmpty
      }
      held = nil  // one frame at a time
      held = image
      kernels = []
      return image
    }
    func add(_ step: Step, index: Int?) throws(StoreError) {
      let made: [any StepKernel]
      do { made = try step.kernels(input: size) } catch { throw .step(index: index, error) }
      for kernel in made {
        if kernel.capability == .whole {
          fromSource = nil
          var image = try hold()
          held = nil
          do { try image.render([kernel]) } catch { throw .step(index: index, error) }
          held = image
          heldIsStored = false
        } else {
          kernels.append(kernel)
          fromSource?.append(kernel)
        }
        size = kernel.outputSize
      }
    }
    for (i, step) in steps.enumerated() { try add(step, index: i) }
    var added: [Step] = []
    for request in requests {
      let step: Step
      if request.requirements.isEmpty {
        // Made for the size entering it.
        do { step = try request.resolve(in: ResolveContext(size: size)) } catch {
          throw .step(index: nil, error)
        }
      } else {
        step = try make(request, for: try hold())
      }
      try add(step, index: nil)
      added.append(step)
    }
    var opacity: Opacity {
      let entering = held.map { $0.isOpaque ? Opacity.opaque : .transparent } ?? source.opacity
      return kernels.reduce(entering) { $1.opacity(given: $0) }
    }
    // A format with alpha is RGB or RGBA as its pixels say: when that is not known ahead, look
    // at them.
    if format.capabilities.alpha && opacity == .unknown { _ = try hold() }
    let options = encodeOptions(existing: existing, details: details, steps: steps + added)
    let pinned = reencodingIsPinned(existing: existing)
    if format.capabilities.losslessRoute && details.format == format && !pinned && allowLossless,
      let (moved, chain) = fromSource.flatMap(Self.lossless), LosslessJPEG.accepts(original, transform: moved)
    {
      // The detection's image, when it is the stored pixels, spares the splice a second decode;
      // the render lets go of it when it does not need it.
      let decoded = heldIsStored ? held.map(DecodedPixels.init) : nil
      (held, kernels) = (nil, [])
      let lossless: [UInt8]?
      do {
        lossless = try settings.timed("splice") { () throws(CodecError) in
          try LosslessJPEG.render(
            original, transform: moved, kernels: chain, options: options, decoded: decoded, index: index)
        }
      } catch {
        throw .codec(error)
      }
      guard let lossless else {
        // `accepts` said it would: should libjpeg disagree, the other route (detecting again).
        return try planned(
          opened, original: original, steps: steps, adding: requests, as: format, existing: existing,
          allowLossless: false)
      }
      return (
        Rendered(details: details, image: nil, added: added, width: size.width, height: size.height),
        lossless,
        RenderRecord(of: lossless, format: format, options: options, route: .lossless, pinned: false)
      )
    }
    let bytes: [UInt8]
    do throws(CodecError) {
      let fill = Filters.transparencyFill(for: steps + added) ?? RGBA(255, 255, 255, 255)
      guard let made = try format.codec.sink(size: size, opacity: opacity, fill: fill, options: options)
      else {
        throw CodecError.encodingFailed(format, "no band-by-band writer")  // `writesBands` said there is
      }
      let (sink, finish) = (made.sink, made.finish)
      if var image = held {
        held = nil
        let plan = RenderPlan(
          kernels: kernels, inputSize: ImageSize(image.width, image.height), bandHeight: sink.bandHeight)
        do { try Planner.run(plan, from: &image, to: sink) } catch let error as CodecError {
          throw error
        } catch {
          throw CodecError.corruptData(details.format, "\(error)")  // kernels that are not whole-image never throw
        }
      } else {
        details.warnings = try run(kernels, from: source, to: sink, format: details.format)
      }
      bytes = try finish()
    } catch {
      throw .codec(error)
    }
    return (
      Rendered(details: details, image: nil, added: added, width: size.width, height: size.height), bytes,
      RenderRecord(of: bytes, format: format, options: options, route: .reencode, pinned: pinned)
    )
  }

  /// Renders under way in this process: one started while it is the only one may give work to a
  /// core its own work leaves idle.
  static let rendersUnderWay = Atomic<Int>(0)

  /// The splice's walk of the original's scan (`JPEGScanIndex`), started now on another core so
  /// that it runs during the detection's decode and search, which leave a core idle for a while,
  /// rather than after them: when a request detects, the render may take the lossless route, and
  /// no other render is under way (in a batch, the other photos keep every core busy).
  private func scanIndex(
    _ original: [UInt8], format: ImageFormat, stored: ImageFormat, existing: RenderRecord?,
    detects: Bool, allowLossless: Bool
  ) -> JPEGScanIndex? {
    guard format.capabilities.losslessRoute, stored == format, allowLossless,
      !reencodingIsPinned(existing: existing), detects,
      settings.scansAhead ?? (Parallel.workerCount > 1 && Self.rendersUnderWay.load(ordering: .relaxed) == 1)
    else { return nil }
    return JPEGScanIndex.start(original)
  }

  /// The lossless route's form of a chain from the stored pixels: the transforms it starts with
  /// (the EXIF orientation, turns, mirrors, crops), as one, and the local steps after them; nil
  /// when anything else follows (a step that changes every pixel, a transform after a local step).
  static func lossless(_ chain: [any StepKernel]) -> (PixelTransform?, [any StepKernel])? {
    var moved: PixelTransform? = nil
    var rest = chain[...]
    while let first = rest.first, case .transform(let t) = first.capability {
      moved = moved.map { $0.then(t) } ?? t
      rest = rest.dropFirst()
    }
    guard rest.allSatisfy(\.capability.isLocal) else { return nil }
    return (moved, Array(rest))
  }

  /// The image `kernels` make from `source` (of `size`), whole, and the decoder's warnings.
  ///
  /// A JPEG's stored pixels (no kernel) are decoded whole, as `detect` decodes them (the same
  /// pixels as the band by band decode, without copying each band).
  private func firstPass(
    _ kernels: [any StepKernel], from source: any PixelSource, original: [UInt8], size: ImageSize,
    format: ImageFormat
  ) throws(StoreError) -> (Image, [String]) {
    if kernels.isEmpty && format == .jpeg {
      let decoded: DecodedImage
      do {
        decoded = try engine.decode(original, maxPixels: settings.maxPixels, minimumLongestSide: nil)
      } catch {
        throw .codec(error)
      }
      if ImageSize(decoded.image.width, decoded.image.height) == size {
        return (decoded.image, decoded.details.warnings)
      }
    }
    var failure: CodecError? = nil
    var warnings: [String] = []
    // Every pixel is written, or the pass fails and the image is not used.
    let image = Image.filling(size) { buffer in
      do throws(CodecError) {
        warnings = try run(kernels, from: source, to: BufferSink(buffer, bandHeight: 128), format: format)
      } catch {
        failure = error
      }
    }
    if let failure { throw .codec(failure) }
    return (image, warnings)
  }

  /// Runs the kernels from `source` to `sink`; the decoder's harmless warnings.
  private func run(
    _ kernels: [any StepKernel], from source: any PixelSource, to sink: any PixelSink, format: ImageFormat
  ) throws(CodecError) -> [String] {
    let plan = RenderPlan(kernels: kernels, inputSize: source.size, bandHeight: sink.bandHeight)
    do { return try Planner.run(plan, from: source, to: sink) } catch let error as CodecError {
      throw error
    } catch {
      // Kernels that are not whole-image never throw; sources and sinks throw `CodecError`.
      throw .corruptData(format, "\(error)")
    }
  }
}
