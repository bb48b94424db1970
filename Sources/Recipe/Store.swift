import Codecs
import PhotoCore

/// An operation to add to a recipe: its filter's name and how it resolves against the image as
/// it enters the step (pixel geometry normalised, faces detected).
struct NewStep: Sendable {
  var filter: String
  var resolve: @Sendable (Image, FilterContext) throws(StoreError) -> Operation
}

/// The edit store's commands over one photo, with the engine and settings of one command line.
struct Store {
  var settings: StoreSettings
  var engine: any RenderEngine { settings.engine }

  /// Filters that detect faces and so profit from a DCT-scaled copy of a large photo.
  static let filtersUsingReducedSource: Set<String> = ["faceblur"]
  /// Photos above this many pixels give the first operation a reduced copy to detect on.
  static let reducedSourceThreshold = 2_000_000
  /// The reduced copy has at least this many pixels.
  static let reducedSourceMinimumPixels = 1_000_000

  init(settings: StoreSettings) { self.settings = settings }

  // MARK: Files

  static func readBytes(_ path: String) throws(StoreError) -> [UInt8] {
    do { return try FileSystem.read(path) } catch {
      if error.isNotFound { throw .missing(path: path) }
      throw .cannotRead(path: path, reason: error.reason)
    }
  }

  /// Refuses a sidecar, a preserved original, or a temporary, lock or journal file as a photo.
  static func refuseStoreFile(_ photo: String) throws(StoreError) {
    let name = PhotoPaths(photo).name
    if name.hasSuffix(PhotoPaths.sidecarSuffix) {
      throw .isSidecar(photo: String(photo.dropLast(PhotoPaths.sidecarSuffix.count)))
    }
    if name.hasSuffix(PhotoPaths.originalSuffix) {
      throw .isPreservedOriginal(photo: String(photo.dropLast(PhotoPaths.originalSuffix.count)))
    }
    if PhotoPaths.isStoreFile(photo) { throw .isStoreFile }
  }

  /// The file mode new files get: the existing file's, else the fallback's, without execute bits.
  static func mode(of path: String, fallback: String? = nil) -> UInt32 {
    for candidate in [path, fallback].compactMap({ $0 }) {
      if let info = try? FileSystem.info(candidate), info.isRegular { return info.mode & 0o666 }
    }
    return 0o644
  }

  /// Takes the photo's lock, finishes or cleans up what a crash left, and runs `body`.
  ///
  /// A dry run takes no lock and changes nothing; it refuses a photo with an interrupted edit.
  ///
  /// - Parameter scanFolder: look for a crash's temporary files even when no lock file was left
  ///   (`check --repair`); otherwise the folder is listed only after a crash, so a batch over a
  ///   folder of thousands of photos does not list it once per photo.
  func locked<T>(
    _ paths: PhotoPaths, scanFolder: Bool = false, _ body: (Recovery.Outcome) throws(StoreError) -> T
  ) throws(StoreError) -> T {
    if settings.dryRun {
      if FileSystem.exists(paths.journal) { throw .interrupted }
      return try body(Recovery.Outcome())
    }
    let lock: FileSystem.Lock
    do {
      lock = try FileSystem.Lock.acquire(paths.lock, timeout: settings.lockTimeoutSeconds)
    } catch {
      switch error {
      case .busy: throw .busy
      case .system(let e): throw .cannotWrite(path: paths.directory, reason: e.reason)
      }
    }
    defer { lock.release() }
    CrashPoint.afterLock.reached(in: paths.directory)
    let outcome = try Recovery.recover(paths, scanForTemporaryFiles: lock.foundLeftover || scanFolder)
    return try body(outcome)
  }

  // MARK: Reading the store

  /// The photo's sidecar, read and validated, or nil when the photo has none (unedited).
  func loadSidecar(_ paths: PhotoPaths) throws(StoreError) -> AdjustmentData.ReadResult? {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(paths.sidecar) } catch {
      if error.isNotFound { return nil }
      throw .cannotRead(path: paths.sidecar, reason: error.reason)
    }
    let engine = self.engine
    return try AdjustmentData.read(bytes, requireProvenance: true) { op throws(StoreError) in
      try engine.validate(op)
    }
  }

  /// An edited photo: its sidecar, its verified original, and its current render's checksum.
  struct Edited {
    var paths: PhotoPaths
    var data: AdjustmentData
    var originalPath: String
    var originalBytes: [UInt8]
    /// The render's current checksum, or nil when the render file is missing.
    var renderSHA256: String?
    /// True when the sidecar was migrated in memory and should be written in today's format.
    var migrated: Bool
    var original: AdjustmentData.Original { data.original! }
    var render: AdjustmentData.Render { data.render! }
    var isModified: Bool { renderSHA256 != nil && renderSHA256 != render.sha256 }
    /// True when the original is the preserved `.original` beside the photo (in-place edit).
    var originalIsPreserved: Bool { Path.absolute(originalPath) == Path.absolute(paths.original) }
  }

  /// Where a sidecar's original path points, as a path usable from the working folder.
  static func resolveOriginal(_ path: String, of paths: PhotoPaths) -> String {
    path.hasPrefix("/") ? path : paths.inFolder(path)
  }

  func loadEdited(_ paths: PhotoPaths, _ read: AdjustmentData.ReadResult) throws(StoreError) -> Edited {
    let data = read.data
    let expected = data.original!
    var originalPath = Self.resolveOriginal(expected.path, of: paths)
    func matches(_ bytes: [UInt8]) -> Bool {
      bytes.count == expected.bytes && SHA256.hex(bytes) == expected.sha256
    }
    var originalBytes: [UInt8]? = nil
    var failure: StoreError? = nil
    do {
      let bytes = try FileSystem.read(originalPath)
      if matches(bytes) { originalBytes = bytes } else { failure = .originalChanged(original: originalPath) }
    } catch {
      failure =
        error.isNotFound
        ? .originalMissing(original: originalPath) : .cannotRead(path: originalPath, reason: error.reason)
    }
    // An -o output's original may since have been edited in place itself: its bytes then live on
    // as that photo's preserved `.original`.
    if originalBytes == nil, !originalPath.hasSuffix(PhotoPaths.originalSuffix),
      let bytes = try? FileSystem.read(originalPath + PhotoPaths.originalSuffix), matches(bytes)
    {
      originalPath += PhotoPaths.originalSuffix
      originalBytes = bytes
    }
    guard let originalBytes else { throw failure! }
    var renderSHA: String? = nil
    do { renderSHA = SHA256.hex(try FileSystem.read(paths.photo)) } catch {
      if !error.isNotFound { throw .cannotRead(path: paths.photo, reason: error.reason) }
    }
    return Edited(
      paths: paths, data: data, originalPath: originalPath, originalBytes: originalBytes,
      renderSHA256: renderSHA, migrated: read.migratedFrom != nil || read.operationsMigrated)
  }

  func refuseModified(_ edited: Edited) throws(StoreError) {
    if edited.isModified && !settings.force { throw .renderModified }
  }

  // MARK: Rendering

  /// Stands in for pixels that have been moved elsewhere.
  static let placeholder = Image(width: 1, height: 1, bytes: [0, 0, 0, 0])

  struct Rendered {
    var decoded: DecodedPhoto
    /// The rendered pixels; a 1x1 stand-in when a stream encoded them band by band.
    var image: Image
    /// The new steps, resolved into stored operations.
    var added: [Operation]
    /// The rendered size in pixels.
    var width: Int, height: Int

    init(decoded: DecodedPhoto, image: Image, added: [Operation], size: (width: Int, height: Int)? = nil) {
      (self.decoded, self.image, self.added) = (decoded, image, added)
      (width, height) = size ?? (image.width, image.height)
    }
  }

  /// Decodes the original, applies the stored operations, then resolves and applies new ones.
  ///
  /// Always from the original, never from a previous render, so edits cost no generation loss.
  func render(
    original: [UInt8], operations: [Operation], adding steps: [NewStep] = [], maxSize: Int? = nil
  ) throws(StoreError) -> Rendered {
    var decoded = try engine.decode(original, maxPixels: settings.maxPixels, minimumLongestSide: maxSize)
    // Take the pixels out of `decoded`: while two values share the buffer, the first filter that
    // writes would copy the whole frame (96 MB at 24 MP).
    var image = decoded.image
    decoded.image = Self.placeholder
    for operation in operations {
      try engine.render(operation, on: &image, context: settings.context)
    }
    var added: [Operation] = []
    for (i, step) in steps.enumerated() {
      var context = settings.context
      if operations.isEmpty, i == 0, maxSize == nil, Self.filtersUsingReducedSource.contains(step.filter),
        decoded.format == .jpeg, image.width * image.height > Self.reducedSourceThreshold
      {
        context.reducedSource = try reducedSource(original, image: image)
      }
      let operation = try step.resolve(image, context)
      try engine.render(operation, on: &image, context: context)
      added.append(operation)
    }
    if let maxSize, max(image.width, image.height) > maxSize {
      image = engine.resampled(image, longestSide: maxSize)
    }
    return Rendered(decoded: decoded, image: image, added: added)
  }

  /// Renders (as `render`) and encodes (as `encode`, at `renderSettings`) in one go. When the
  /// photo is a baseline JPEG, the output a JPEG at full size and every operation a row filter
  /// (none, sepia, vignette), it runs as a pipeline (`PhotoStream`): the decode, the filters and
  /// the encode overlap, with the same pixels and bytes as one after the other.
  func renderEncoded(
    original: [UInt8], operations: [Operation], adding steps: [NewStep] = [], maxSize: Int? = nil,
    as format: ImageFormat, existing: AdjustmentData.Render?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], info: AdjustmentData.Render) {
    if format == .jpeg, maxSize == nil,
      operations.allSatisfy({ engine.isRowFilter($0.filter) }),
      steps.allSatisfy({ engine.isRowFilter($0.filter) }),
      let stream = try engine.stream(original, maxPixels: settings.maxPixels)
    {
      return try streamed(stream, operations: operations, adding: steps, existing: existing)
    }
    let rendered = try render(original: original, operations: operations, adding: steps, maxSize: maxSize)
    let (quality, subsampling) = renderSettings(existing: existing, decoded: rendered.decoded)
    let (bytes, info) = try encode(
      rendered, as: format, quality: quality, subsampling: subsampling,
      operations: operations + rendered.added)
    return (rendered, bytes, info)
  }

  private func streamed(
    _ stream: any PhotoStream, operations: [Operation], adding steps: [NewStep],
    existing: AdjustmentData.Render?
  ) throws(StoreError) -> (rendered: Rendered, bytes: [UInt8], info: AdjustmentData.Render) {
    var decoded = stream.decoded
    let (width, height) = (decoded.fullWidth, decoded.fullHeight)
    // A row filter's resolve looks at the image's size only, never at its pixels (which are
    // never all in memory at once).
    let added = try stream.withUndecodedImage { image throws(StoreError) in
      var added: [Operation] = []
      for step in steps { added.append(try step.resolve(image, settings.context)) }
      return added
    }
    var renderers: [@Sendable (ImageRows) -> Void] = []
    for operation in operations + added {
      guard let renderer = try engine.rowRenderer(operation, width: width, height: height) else {
        throw .filter("\(operation.filter) cannot render a band of rows")
      }
      renderers.append(renderer)
    }
    var rows: (@Sendable (ImageRows) -> Void)? = nil
    if !renderers.isEmpty {
      let all = renderers
      rows = { band in for renderer in all { renderer(band) } }
    }
    let (quality, subsampling) = renderSettings(existing: existing, decoded: decoded)
    let (bytes, warnings) = try stream.run(
      quality: quality, subsampling: subsampling, metadata: decoded.metadata, rows: rows)
    decoded.warnings = warnings
    let info = AdjustmentData.Render(of: bytes, format: .jpeg, quality: quality, subsampling: subsampling)
    return (
      Rendered(decoded: decoded, image: Self.placeholder, added: added, size: (width, height)), bytes, info
    )
  }

  /// A DCT-scaled decode of at least a megapixel, for the first operation's detector.
  private func reducedSource(_ original: [UInt8], image: Image) throws(StoreError) -> Image? {
    let long = Double(max(image.width, image.height))
    let short = Double(min(image.width, image.height))
    let side = Int((Double(Self.reducedSourceMinimumPixels) * long / short).squareRoot().rounded(.up))
    let reduced = try engine.decode(original, maxPixels: settings.maxPixels, minimumLongestSide: side)
    return reduced.image.width < image.width ? reduced.image : nil
  }

  /// The quality and subsampling of a render: the command line's, else the sidecar's, else 90
  /// and the original's subsampling (4:2:0 for PNG originals).
  func renderSettings(existing: AdjustmentData.Render?, decoded: DecodedPhoto) -> (Int, ChromaSubsampling) {
    let quality = settings.quality ?? existing?.quality ?? 90
    let subsampling =
      settings.subsampling ?? existing?.subsampling.flatMap(ChromaSubsampling.init(rawValue:))
      ?? decoded.subsampling ?? .s420
    return (quality, subsampling)
  }

  /// Encodes a render; a JPEG of an image with transparency is laid over the recipe's background.
  func encode(
    _ rendered: Rendered, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    operations: [Operation]
  ) throws(StoreError) -> (bytes: [UInt8], info: AdjustmentData.Render) {
    var image = rendered.image
    if format == .jpeg && !image.isOpaque { image = engine.flattened(image, operations: operations) }
    let bytes = try engine.encode(
      image, as: format, quality: quality, subsampling: subsampling, metadata: rendered.decoded.metadata)
    return (
      bytes, AdjustmentData.Render(of: bytes, format: format, quality: quality, subsampling: subsampling)
    )
  }

  /// Writes a new render and sidecar through the journal; with `preserve`, first keeps the
  /// unedited photo as `PHOTO.original` (a hard link, or a copy).
  func commitEdit(
    _ paths: PhotoPaths, data: AdjustmentData, render: [UInt8], preserve: Bool, mode: UInt32
  ) throws(StoreError) {
    var transaction = Transaction(paths)
    let sidecar = data.encoded()
    let renderTemp = try transaction.stage(render, mode: mode)
    let sidecarTemp = try transaction.stage(sidecar, mode: mode)
    if preserve {
      transaction.add(
        .preserve(
          from: paths.name, to: paths.name + PhotoPaths.originalSuffix, sha256: data.original!.sha256))
    }
    transaction.add(
      .replace(
        temp: sidecarTemp, target: paths.name + PhotoPaths.sidecarSuffix, sha256: SHA256.hex(sidecar),
        role: .sidecar))
    transaction.add(
      .replace(temp: renderTemp, target: paths.name, sha256: data.render!.sha256, role: .render))
    try transaction.commit()
  }
}

extension AdjustmentData.Render {
  /// What the sidecar records of a render's bytes; PNG renders keep no subsampling.
  init(of bytes: [UInt8], format: ImageFormat, quality: Int, subsampling: ChromaSubsampling) {
    self.init(
      sha256: SHA256.hex(bytes), format: format.rawValue, quality: quality,
      subsampling: format == .jpeg ? subsampling.rawValue : nil)
  }
}
