import Codecs
import PhotoCore

/// The non-destructive edit store: a photo's render, its sidecar and its preserved original.
///
/// Every command locks the photo, finishes or cleans up what a crash left, reads and verifies the
/// sidecar, renders from the original, and commits through a journal so that a crash at any
/// instant leaves either the old state or the new one. See Docs/store.md.
public enum EditStore {
  /// Appends `operations` to the photo's recipe and re-renders from the original.
  ///
  /// - Parameters:
  ///   - operations: parsed `--filter` words or a recipe's portable operations, in order.
  ///   - photo: the photo to edit in place, or, with `output`, the original to read.
  ///   - output: where the render and its sidecar go; the input is then left untouched.
  /// - Throws: `StoreError`; nothing on disk changes when it throws.
  public static func apply(
    _ operations: [PendingOperation], to photo: String, output: String?, settings: StoreSettings
  ) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// Moves the last operation to the undone list and re-renders.
  public static func undo(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// Moves the last undone operation back onto the recipe and re-renders.
  public static func redo(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// Puts the original's exact bytes back and removes the sidecar (and the preserved copy).
  public static func revert(_ photo: String, settings: StoreSettings) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// Re-renders an edited photo in place, or exports any photo to `output`.
  ///
  /// - Parameter maxSize: the longest side of the export in pixels (DCT-scaled decode + resample).
  public static func render(
    _ photo: String, output: String?, maxSize: Int?, settings: StoreSettings
  ) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// The recipe, the original and whether the render is current.
  public static func show(_ photo: String) throws(StoreError) -> PhotoReport {
    throw .damaged("not implemented yet")
  }

  /// One of unedited, edited, stale, modified, damaged (field `state`), with the reason.
  public static func status(_ photo: String) -> PhotoReport {
    PhotoReport()
  }

  /// Verifies the original and the render against the sidecar's checksums; with `repair`,
  /// finishes or rolls back an interrupted edit and re-renders a missing render.
  /// - Throws: `StoreError` describing the first problem found (and not repaired).
  public static func check(_ photo: String, repair: Bool, settings: StoreSettings) throws(StoreError)
    -> PhotoReport
  {
    throw .damaged("not implemented yet")
  }

  /// The portable operations of a sidecar or a recipe file, for `apply --recipe`.
  public static func recipe(from path: String) throws(StoreError) -> [PendingOperation] {
    throw .damaged("not implemented yet")
  }

  /// True for the store's own files (sidecars, preserved originals, temporary, lock and journal
  /// files), which `-r` skips.
  public static func isStoreFile(_ path: String) -> Bool {
    false
  }

  /// Reads a whole file (for the CLI's `detect` and brush stroke files).
  public static func readFile(_ path: String) throws(StoreError) -> [UInt8] {
    throw .damaged("not implemented yet")
  }
}
