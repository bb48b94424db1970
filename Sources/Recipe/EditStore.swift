import Codecs
import PhotoCore

/// The non-destructive edit store: a photo's render, its sidecar and its preserved original.
///
/// Every command that writes locks the photo, finishes or cleans up what a crash left behind,
/// reads and verifies the sidecar and the original, renders from the original, and commits
/// through a journal, so that a crash at any instant leaves the old state or the new one and
/// never touches the original. Each call handles one photo; batches call it once per photo from
/// many threads (there is no global lock). See the README's section on the edit store.
///
///     var settings = StoreSettings(context: context)
///     let step = try Filters.parse("sepia:intensity=0.8", readFile: EditStore.readFile)
///     let report = try EditStore.apply([step], to: "beach.jpg", output: nil, settings: settings)
public enum EditStore {
  /// Appends `operations` to the photo's recipe and re-renders from the original.
  ///
  /// - Parameters:
  ///   - operations: parsed `--filter` words or a recipe's portable operations, in order.
  ///   - photo: the photo to edit in place, or, with `output`, the original to read.
  ///   - output: where the render and its sidecar go; the input is then left untouched. An
  ///     existing output is appended to when it is photoedit's edit of the same original, and
  ///     otherwise replaced only with `settings.force`.
  /// - Throws: `StoreError`; nothing on disk changes when it throws.
  public static func apply(
    _ operations: [PendingOperation], to photo: String, output: String?, settings: StoreSettings
  ) throws(StoreError) -> PhotoReport {
    let engine = settings.engine
    let steps = operations.map { pending in
      NewStep(filter: pending.filter) { image, context throws(StoreError) in
        try engine.resolve(pending, for: image, context: context)
      }
    }
    return try Store(settings: settings).apply(steps, to: photo, output: output)
  }

  /// Moves the last operation to the undone list and re-renders.
  public static func undo(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    try Store(settings: settings).step(photo, undo: true)
  }

  /// Moves the last undone operation back onto the recipe and re-renders.
  public static func redo(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    try Store(settings: settings).step(photo, undo: false)
  }

  /// Puts the original's exact bytes back and removes the sidecar (and the preserved copy).
  /// An unedited photo is left as it is (a success).
  public static func revert(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    try Store(settings: settings).revert(photo)
  }

  /// Re-renders an edited photo in place, or exports any photo to `output` (no sidecar; an
  /// existing output needs `settings.force`).
  ///
  /// - Parameter maxSize: the longest side of the export in pixels (a DCT-scaled decode, then a
  ///   resample); needs `output`.
  public static func render(
    _ photo: String, output: String?, maxSize: Int?, settings: StoreSettings
  ) throws(StoreError) -> PhotoReport {
    try Store(settings: settings).render(photo, output: output, maxSize: maxSize)
  }

  /// The recipe, the original and whether the render is current (field `current`).
  public static func show(_ photo: String) throws(StoreError) -> PhotoReport {
    try Store.readOnly.show(photo)
  }

  /// One of unedited, edited, stale, modified, damaged (field `state`), with `reason`.
  public static func status(_ photo: String) -> PhotoReport {
    Store.readOnly.status(photo)
  }

  /// Verifies the original and the render against the sidecar's checksums; with `repair`,
  /// finishes an interrupted edit, removes a crash's temporary files and re-renders a stale or
  /// missing render.
  /// - Throws: `StoreError.checkFailed` naming the state and the reason when a problem remains.
  public static func check(_ photo: String, repair: Bool, settings: StoreSettings) throws(StoreError)
    -> PhotoReport
  {
    try Store(settings: settings).check(photo, repair: repair)
  }

  /// The portable operations of a sidecar or a recipe file, for `apply --recipe`. Derived state
  /// (face boxes) is dropped, so it is found afresh on each photo.
  public static func recipe(from path: String) throws(StoreError) -> [PendingOperation] {
    try Store.recipe(from: path, engine: LiveEngine())
  }

  /// True for the store's own files (sidecars, preserved originals, temporary, lock and journal
  /// files), which `-r` skips.
  public static func isStoreFile(_ path: String) -> Bool {
    PhotoPaths.isStoreFile(path)
  }

  /// Reads a whole file (for the CLI's `detect` and brush stroke files).
  public static func readFile(_ path: String) throws(StoreError) -> [UInt8] {
    try Store.readBytes(path)
  }
}

extension Store {
  /// A store for the commands that only read.
  static var readOnly: Store {
    Store(settings: StoreSettings(context: FilterContext(cascade: { throw CascadeError("no cascade") })))
  }

  static func recipe(from path: String, engine: any RenderEngine) throws(StoreError) -> [PendingOperation] {
    let bytes = try readBytes(path)
    // Only the portable part matters (derived state such as face boxes is dropped), and
    // `pending(from:)` checks it: the filter, its version and its parameters.
    let read = try AdjustmentData.read(bytes, requireProvenance: false) { op throws(StoreError) in op }
    var pending: [PendingOperation] = []
    for operation in read.data.operations { pending.append(try engine.pending(from: operation)) }
    return pending
  }
}
