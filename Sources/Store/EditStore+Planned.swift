import Codecs
import PhotoCore
import Recipe
import Synchronization

extension EditStore {
  /// The full-size render through the renderer (`Renderer`): the original decoded a pass at a
  /// time, every step's kernels run band by band, the output encoded band by band, so that no
  /// frame is held unless a step looks at the image (faceblur's detection, once), renders only
  /// whole images, or the output must be looked at (a PNG that may have transparency), or the
  /// output format is written whole only; or the original's blocks spliced (JPEG to JPEG, when
  /// the steps allow). The same pixels and bytes as `render` then `encode`.
  ///
  /// nil when the engine has no source for the file (an interlaced PNG, a test engine): then
  /// `render` decodes the whole frame.
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
    as format: ImageFormat, existing: RenderRecord?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord) {
    // The detectors load while the photo is decoded for them.
    let detectors = DetectorLoader.needed(by: requests)
    for choice in detectors { settings.detectors.prefetch(choice) }
    let index = scanIndex(
      original, format: format, stored: opened.details.format, existing: existing, detects: !detectors.isEmpty
    )
    defer { index?.cancel() }
    var renderer = Renderer(store: self, original: original, opened: opened)
    try renderer.resolve(steps: steps, adding: requests)
    let (bytes, record) = try renderer.output(as: format, existing: existing, index: index)
    return (
      Rendered(
        details: renderer.details, image: nil, added: renderer.added, width: renderer.size.width,
        height: renderer.size.height),
      bytes, record
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
    detects: Bool
  ) -> JPEGScanIndex? {
    guard format.capabilities.losslessRoute, stored == format, !settings.refusesSplice,
      !reencodingIsPinned(existing: existing), detects,
      settings.scansAhead ?? (Parallel.workerCount > 1 && Self.rendersUnderWay.load(ordering: .relaxed) == 1)
    else { return nil }
    return JPEGScanIndex.start(original)
  }

  /// The image `kernels` make from `source` (of `size`), whole, and the decoder's warnings.
  ///
  /// A JPEG's stored pixels (no kernel) are decoded whole, as `detect` decodes them (the same
  /// pixels as the band by band decode, without copying each band).
  func firstPass(
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

  /// Runs the kernels from `image` (which they may render in place) to `sink`.
  func run(_ kernels: [any StepKernel], from image: inout Image, to sink: any PixelSink, format: ImageFormat)
    throws(CodecError)
  {
    let plan = RenderPlan(
      kernels: kernels, inputSize: ImageSize(image.width, image.height), bandHeight: sink.bandHeight)
    do { try Planner.run(plan, from: &image, to: sink) } catch let error as CodecError {
      throw error
    } catch {
      throw .corruptData(format, "\(error)")  // kernels that are not whole-image never throw
    }
  }

  /// Runs the kernels from `source` to `sink`; the decoder's harmless warnings.
  func run(
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
