import Codecs
import PhotoCore
import Recipe

/// The non-destructive edit store: a photo's render, its sidecar and its preserved original,
/// with the settings of one command line.
///
/// Every command that writes locks the photo, finishes or cleans up what a crash left behind,
/// reads and verifies the sidecar and the original, renders from the original, and commits
/// through a journal, so that a crash at any instant leaves the old state or the new one and
/// never touches the original. Each call handles one photo; batches call it once per photo from
/// many threads (there is no global lock). The protocol is specified in docs/safety.md. Every
/// command throws `StoreError` and changes nothing on disk when it throws.
///
///     let store = EditStore(settings: StoreSettings())
///     let sepia = try Filters.request("sepia", values: ["intensity": .number(0.8)])
///     let outcome = try store.apply([sepia], to: "beach.jpg", output: nil)
public struct EditStore: Sendable {
  public var settings: StoreSettings
  var engine: any RenderEngine { settings.engine }

  public init(settings: StoreSettings = StoreSettings()) { self.settings = settings }

  // MARK: Files

  /// Reads a photo (an original, an input, a render) the user named: links are followed.
  static func readBytes(_ path: String) throws(StoreError) -> [UInt8] {
    try read(path, limit: FileLimits.photoBytes, followingLinks: true, data: false)
  }

  /// Reads a file with the store's rules: only a regular file, at most `limit` bytes, a link
  /// followed only when `followingLinks`.
  ///
  /// - Parameter data: the limit is the data-file limit (`--max-file-size`), not a photo's.
  static func read(_ path: String, limit: Int, followingLinks: Bool, data: Bool) throws(StoreError) -> [UInt8]
  {
    do { return try FileSystem.read(path, limit: limit, followingLinks: followingLinks) } catch {
      throw StoreError(reading: path, error, data: data)
    }
  }

  /// What new files of the photo get: the mode and group of its file `entry` (a name in its
  /// folder, the file they replace); when there is none, the fallback path's mode (the photo an
  /// output is made from) and the folder's default group; else 0644. Never execute bits.
  static func access(of entry: String, in paths: PhotoPaths, fallback: String? = nil)
    -> FileSystem.NewFileAccess
  {
    if let info = try? paths.info(entry, followingLinks: true), info.isRegular {
      return .init(replacing: info)
    }
    if let fallback, let info = try? FileSystem.info(fallback), info.isRegular {
      return .init(mode: info.mode)
    }
    return .init(mode: 0o644)
  }

  // MARK: Rendering

  struct Rendered {
    var details: ImageDetails
    /// The rendered pixels; nil when a stream encoded them band by band.
    var image: Image?
    /// The new steps, made from the requests.
    var added: [Step]
    /// The rendered size in pixels.
    var width: Int, height: Int
  }

  /// The original decoded upright (a DCT-scaled decode when `maxSize` allows one), within the
  /// store's pixel limit, and what the codec says of it.
  func decodeOriginal(_ original: [UInt8], maxSize: Int?) throws(StoreError) -> (Image, ImageDetails) {
    let decoded: DecodedImage
    do {
      decoded = try engine.decode(original, maxPixels: settings.maxPixels, minimumLongestSide: maxSize)
    } catch {
      throw .codec(error)
    }
    // Move the image out: while two values share the buffer, the first step that writes would
    // copy the whole frame (96 MB at 24 MP).
    let details = decoded.details
    let image = decoded.image
    _ = consume decoded
    return (image, details)
  }

  /// Decodes the original, applies the stored steps, then makes steps of the requests and
  /// applies them.
  ///
  /// Always from the original, never from a previous render, so edits cost no generation loss.
  func render(
    original: [UInt8], steps: [Step], adding requests: [StepRequest] = [], maxSize: Int? = nil
  ) throws(StoreError) -> Rendered {
    var (image, details) = try decodeOriginal(original, maxSize: maxSize)
    for (i, step) in steps.enumerated() {
      do { try step.render(on: &image) } catch { throw .step(index: i, error) }
    }
    var added: [Step] = []
    for request in requests {
      let step = try make(request, for: image)
      do { try step.render(on: &image) } catch { throw .step(index: nil, error) }
      added.append(step)
    }
    if let maxSize, max(image.width, image.height) > maxSize {
      image = image.resampled(longestSide: maxSize)
    }
    return Rendered(details: details, image: image, added: added, width: image.width, height: image.height)
  }

  /// A step made of `request` for `image`, the image entering it, with what its filter needs: the
  /// pixels, the face detector.
  func make(_ request: StepRequest, for image: Image) throws(StoreError) -> Step {
    let context = try context(request.requirements, for: image)
    do { return try request.resolve(in: context) } catch {
      if case .detection(_, let e) = error { throw .detection(e) }
      throw .step(index: nil, error)
    }
  }

  /// What a filter with `needs` sees for `image`: its size, its pixels, the face detector.
  func context(_ needs: FilterRequirements, for image: Image) throws(StoreError) -> ResolveContext {
    var context = ResolveContext(size: ImageSize(image.width, image.height))
    if needs.pixels { context.image = image }
    if let choice = needs.detector { context.detector = try detector(choice) }
    if needs.checksHiding { context.checker = try detector(.centerface, stage: "check") }
    return context
  }

  /// The face detector `choice` of these settings, timed.
  func detector(_ choice: DetectorChoice, stage: String = "detect") throws(StoreError) -> any FaceDetector {
    do {
      return TimedDetector(
        base: try settings.detectors.detector(choice), stage: stage, record: settings.recordTiming)
    } catch {
      throw .detector(error)
    }
  }

  /// Renders (as `render`) and encodes (as `encode`) in one go. At full size (no `maxSize`), the
  /// planner makes the render band by band from the original (`planned`), with the same bytes;
  /// the whole frame is decoded only when it cannot.
  func renderEncoded(
    original: [UInt8], steps: [Step], adding requests: [StepRequest] = [], maxSize: Int? = nil,
    as format: ImageFormat, existing: RenderRecord?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], record: RenderRecord) {
    if maxSize == nil,
      let result = try planned(
        original: original, steps: steps, adding: requests, as: format, existing: existing)
    {
      return result
    }
    let rendered = try render(original: original, steps: steps, adding: requests, maxSize: maxSize)
    let options = encodeOptions(existing: existing, details: rendered.details, steps: steps + rendered.added)
    let bytes = try encode(rendered.image!, as: format, options: options, steps: steps + rendered.added)
    let record = RenderRecord(
      of: bytes, format: format, options: options, route: .reencode,
      pinned: reencodingIsPinned(existing: existing))
    return (rendered, bytes, record)
  }

  /// Whether renders must re-encode whatever the steps (`RenderRecord.pinned`): this command
  /// line gives `--quality` or `--subsampling`, or an earlier one did. A sidecar written before
  /// routes were recorded pins it when its quality is not the default (one was asked for).
  func reencodingIsPinned(existing: RenderRecord?) -> Bool {
    if settings.quality != nil || settings.subsampling != nil { return true }
    guard let existing else { return false }
    return existing.pinned || (existing.route == nil && existing.quality != EncodeOptions.defaultQuality)
  }

  /// The quality and subsampling of a render: the command line's, else a quality asked for
  /// earlier (a pinned render's), else the original's own (estimated from a JPEG's tables), else
  /// the sidecar's or the default; the subsampling the command line's, else the sidecar's, else
  /// the original's (4:2:0 for PNG originals); with the original's metadata, kept or stripped as
  /// `metadataPolicy` says, and without a MakerNote when `steps` hide faces (a faceblur step).
  func encodeOptions(existing: RenderRecord?, details: ImageDetails, steps: [Step]) -> EncodeOptions {
    let pinned = reencodingIsPinned(existing: existing)
    let asked = pinned ? existing?.quality : nil
    var options = EncodeOptions(
      quality: settings.quality ?? asked ?? details.quality ?? existing?.quality
        ?? EncodeOptions.defaultQuality,
      subsampling: settings.subsampling ?? existing?.subsampling ?? details.subsampling ?? .s420,
      metadata: details.metadata, metadataPolicy: metadataPolicy(existing: existing),
      hidesFaces: steps.contains { $0.filter == FaceblurFilter.name })
    // A WebP render of a losslessly stored original is lossless, unless a quality was asked for.
    options.lossless = details.storedLossless && !pinned
    return options
  }

  /// Whether a render keeps or strips identifying metadata: the command line's choice, else the
  /// sidecar's, else kept.
  func metadataPolicy(existing: RenderRecord?) -> MetadataPolicy {
    settings.metadata ?? existing?.metadata ?? .kept
  }

  /// Encodes a render; in a format without transparency (JPEG), an image that has some is laid
  /// over the colour the steps name for it (a circular crop's background), else white.
  func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions, steps: [Step])
    throws(StoreError)
    -> [UInt8]
  {
    var image = image
    if !format.capabilities.alpha && !image.isOpaque {
      image = image.flattened(over: Filters.transparencyFill(for: steps) ?? RGBA(255, 255, 255, 255))
    }
    do { return try engine.encode(image, as: format, options: options) } catch { throw .codec(error) }
  }

  /// Writes a new render and sidecar through the journal; with `preserve`, first keeps the
  /// unedited photo as `PHOTO.original` (a hard link, or a copy).
  func commitEdit(
    _ paths: PhotoPaths, data: AdjustmentData, render: [UInt8], preserve: Bool,
    access: FileSystem.NewFileAccess
  ) throws(StoreError) {
    var transaction = Transaction(paths)
    let sidecar = data.encoded()
    let renderTemp = try transaction.stage(render, access: access)
    let sidecarTemp = try transaction.stage(sidecar, access: access)
    if preserve {
      transaction.add(
        .preserve(sha256: data.original!.sha256))
    }
    transaction.add(
      .replace(temp: sidecarTemp, role: .sidecar, sha256: SHA256Digest(of: sidecar)))
    transaction.add(
      .replace(temp: renderTemp, role: .render, sha256: data.render!.sha256))
    try transaction.commit()
  }
}
