import Codecs
import PhotoCore

extension EditStore {
  /// The render through the planner (`Planner`): the original decoded a pass at a time, every
  /// step's kernels run band by band, the output encoded band by band, so that no frame is ever
  /// held. The same pixels and bytes as `render` then `encode`.
  ///
  /// A request that needs the pixels of the image entering it (faceblur's detection) gets them
  /// from a first pass: the steps before it rendered by the planner into one image, which the
  /// detector searches and which is let go before the render's own pass.
  ///
  /// nil when the planner cannot make this render and the whole frame must be decoded: the
  /// engine has no source for the file (an interlaced PNG, a test engine), a step renders only
  /// whole images, or a PNG output whose transparency cannot be known before the first row (a
  /// PNG with an alpha channel).
  func planned(
    original: [UInt8], steps: [Step], adding requests: [StepRequest], as format: ImageFormat,
    existing: RenderRecord?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord)? {
    var outcome: Result<(rendered: Rendered, bytes: [UInt8], record: RenderRecord)?, StoreError> = .success(
      nil)
    do {
      try engine.withSource(original, maxPixels: settings.maxPixels) { opened in
        guard let opened else { return }
        outcome = Result { () throws(StoreError) in
          try planned(opened, steps: steps, adding: requests, as: format, existing: existing)
        }
      }
    } catch {
      throw .codec(error)
    }
    return try outcome.get()
  }

  private func planned(
    _ opened: PhotoSource, steps: [Step], adding requests: [StepRequest], as format: ImageFormat,
    existing: RenderRecord?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord)? {
    let source = opened.source
    var details = opened.details
    // The stored pixels are turned upright first, as `decode` does.
    var kernels: [any StepKernel] = []
    let upright = PixelTransform.upright(exifOrientation: details.orientation, of: source.size)
    if !upright.isIdentity { kernels.append(TransformKernel(upright)) }
    var size = upright.outputSize
    func add(_ step: Step, index: Int?) throws(StoreError) {
      let made: [any StepKernel]
      do { made = try step.kernels(input: size) } catch { throw .step(index: index, error) }
      kernels += made
      size = made.last?.outputSize ?? size
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
        guard !kernels.contains(where: { $0.capability == .whole }) else { return nil }
        let image = try firstPass(kernels, from: source, size: size, format: details.format)
        step = try make(request, for: image)
      }
      try add(step, index: nil)
      added.append(step)
    }
    guard !kernels.contains(where: { $0.capability == .whole }) else { return nil }
    let opacity = kernels.reduce(source.opacity) { $1.opacity(given: $0) }
    let options = encodeOptions(existing: existing, details: details)
    let bytes: [UInt8]
    do {
      switch format {
      case .jpeg:
        guard JPEGSink.isAvailable else { return nil }
        let fill =
          opacity == .opaque ? nil : Filters.transparencyFill(for: steps + added) ?? RGBA(255, 255, 255, 255)
        let sink = try JPEGSink(size: size, options: options, fill: fill)
        details.warnings = try run(kernels, from: source, to: sink, format: details.format)
        bytes = try sink.finish()
      case .png:
        guard opacity != .unknown else { return nil }
        let sink = try PNGSink(size: size, withAlpha: opacity == .transparent, options: options)
        details.warnings = try run(kernels, from: source, to: sink, format: details.format)
        bytes = try sink.finish()
      }
    } catch {
      throw .codec(error)
    }
    return (
      Rendered(details: details, image: nil, added: added, width: size.width, height: size.height), bytes,
      RenderRecord(of: bytes, format: format, options: options)
    )
  }

  /// The image `kernels` make from `source` (of `size`), whole, for a step that looks at it.
  private func firstPass(
    _ kernels: [any StepKernel], from source: any PixelSource, size: ImageSize, format: ImageFormat
  )
    throws(StoreError) -> Image
  {
    var failure: CodecError? = nil
    let image = Image(size: size) { buffer in
      do throws(CodecError) {
        _ = try run(kernels, from: source, to: BufferSink(buffer, bandHeight: 128), format: format)
      } catch {
        failure = error
      }
    }
    if let failure { throw .codec(failure) }
    return image
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
