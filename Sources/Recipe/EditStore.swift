import Codecs
import PhotoCore

/// The non-destructive edit store: a photo's render, its sidecar and its preserved original.
///
/// Every command that writes locks the photo, finishes or cleans up what a crash left behind,
/// reads and verifies the sidecar and the original, renders from the original, and commits
/// through a journal, so that a crash at any instant leaves the old state or the new one and
/// never touches the original. Each call handles one photo; batches call it once per photo from
/// many threads (there is no global lock). The protocol is specified in docs/safety.md.
///
///     let settings = StoreSettings()
///     let sepia = try Filters.request("sepia", values: ["intensity": .number(0.8)])
///     let outcome = try EditStore.apply([sepia], to: "beach.jpg", output: nil, settings: settings)
public enum EditStore {
  /// Appends steps made of `requests` to the photo's recipe and re-renders from the original.
  ///
  /// - Parameters:
  ///   - requests: filter requests, or a recipe's portable steps, in order.
  ///   - photo: the photo to edit in place, or, with `output`, the original to read.
  ///   - output: where the render and its sidecar go; the input is then left untouched. An
  ///     existing output is appended to when it is photoedit's edit of the same original, and
  ///     otherwise replaced only with `settings.force`.
  /// - Throws: `StoreError`; nothing on disk changes when it throws.
  public static func apply(
    _ requests: [StepRequest], to photo: String, output: String?, settings: StoreSettings
  ) throws(StoreError) -> ApplyOutcome {
    try Store(settings: settings).apply(requests, to: photo, output: output)
  }

  /// Moves the last step to the undone list and re-renders.
  public static func undo(_ photo: String, settings: StoreSettings) throws(StoreError) -> HistoryOutcome {
    try Store(settings: settings).step(photo, undo: true)
  }

  /// Moves the last undone step back onto the recipe and re-renders.
  public static func redo(_ photo: String, settings: StoreSettings) throws(StoreError) -> HistoryOutcome {
    try Store(settings: settings).step(photo, undo: false)
  }

  /// Puts the original's exact bytes back and removes the sidecar (and the preserved copy).
  /// An unedited photo is left as it is (a success).
  public static func revert(_ photo: String, settings: StoreSettings) throws(StoreError) -> RevertOutcome {
    try Store(settings: settings).revert(photo)
  }

  /// Re-renders an edited photo in place.
  public static func render(_ photo: String, settings: StoreSettings) throws(StoreError) -> RenderOutcome {
    try Store(settings: settings).render(photo)
  }

  /// Exports any photo, edited or not, to `output` (no sidecar; an existing output needs
  /// `settings.force`).
  ///
  /// - Parameter maxSize: the longest side of the export in pixels (a DCT-scaled decode, then a
  ///   resample).
  public static func export(
    _ photo: String, to output: String, maxSize: Int?, settings: StoreSettings
  ) throws(StoreError) -> ExportOutcome {
    try Store(settings: settings).export(photo, output: output, maxSize: maxSize)
  }

  /// The recipe, the original and whether the render is current.
  public static func show(_ photo: String) throws(StoreError) -> PhotoStatus {
    try Store(settings: StoreSettings()).show(photo)
  }

  /// One of unedited, edited, stale, modified, damaged, with the problem. A name that is neither
  /// a photo nor an edit is an error.
  public static func status(_ photo: String) throws(StoreError) -> PhotoStatus {
    let paths = PhotoPaths(photo)
    if PhotoFolder.kind(of: photo) == .missing && PhotoFolder.kind(of: paths.sidecar) == .missing
      && !FileSystem.exists(paths.journal)
    {
      throw .missing(path: photo)
    }
    return Store(settings: StoreSettings()).inspect(photo)
  }

  /// Verifies the original and the render against the sidecar's checksums; with `repair`,
  /// finishes an interrupted edit, removes a crash's temporary files and re-renders a stale or
  /// missing render.
  ///
  /// - Throws: `StoreError.checkFailed` naming the state and the problem when one remains.
  public static func check(_ photo: String, repair: Bool, settings: StoreSettings) throws(StoreError)
    -> CheckOutcome
  {
    try Store(settings: settings).check(photo, repair: repair)
  }

  /// The faces in a photo (an edited photo's original), in the detector's reading order.
  public static func detect(_ photo: String, options: DetectionOptions, settings: StoreSettings)
    throws(StoreError) -> DetectOutcome
  {
    try Store(settings: settings).detect(photo, options: options)
  }

  /// The portable steps of a sidecar or a recipe file, as requests for other photos (`apply
  /// --recipe`). Derived state (face boxes) is dropped, so faces are found afresh on each photo.
  public static func recipe(from path: String) throws(StoreError) -> [StepRequest] {
    try AdjustmentData.portableRequests(Store.readBytes(path), registry: Filters.all)
  }

  /// Reads a whole regular file the user named (a brush's strokes file).
  public static func readFile(_ path: String) throws(StoreError) -> [UInt8] {
    if PhotoFolder.kind(of: path) == .other { throw .notRegularFile(path: path) }
    if PhotoFolder.kind(of: path) == .directory { throw .isFolder }
    return try Store.readBytes(path)
  }
}

extension EditStore {
  /// Makes a folder and its missing parents (`--output-dir`); an existing folder is fine.
  public static func createFolder(_ path: String) throws(StoreError) {
    if PhotoFolder.kind(of: path) == .directory { return }
    do {
      try FileSystem.createDirectories(path)
    } catch {
      // Another worker may have made it meanwhile.
      if PhotoFolder.kind(of: path) == .directory { return }
      throw .cannotCreateFolder(path: path)
    }
  }
}
