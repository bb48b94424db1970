import Codecs
import PhotoCore

extension EditStore {
  /// Moves the last step to the undone list and re-renders.
  public func undo(_ photo: String) throws(StoreError) -> HistoryOutcome { try step(photo, undo: true) }

  /// Moves the last undone step back onto the recipe and re-renders.
  public func redo(_ photo: String) throws(StoreError) -> HistoryOutcome { try step(photo, undo: false) }

  /// Moves the last step to `undone` (undo) or back (redo), and re-renders.
  func step(_ photo: String, undo: Bool) throws(StoreError) -> HistoryOutcome {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    if !paths.anythingExists { throw .missing(path: photo) }
    guard let format = ImageFormat(pathExtension: photo) else { throw .unsupportedOutput(path: photo) }
    return try locked(paths) { recovery throws(StoreError) in
      guard let read = try loadSidecar(paths) else { throw undo ? .nothingToUndo : .nothingToRedo }
      let edited = try loadEdited(paths, read)
      try refuseModified(edited)
      var data = edited.data
      let moved: Step
      if undo {
        guard let last = data.steps.popLast() else { throw .nothingToUndo }
        data.undone.append(last)
        moved = last
      } else {
        guard let last = data.undone.popLast() else { throw .nothingToRedo }
        data.steps.append(last)
        moved = last
      }
      let (bytes, warnings) = try rerender(&data, original: edited.originalBytes, format: format)
      if !settings.dryRun {
        try commitEdit(paths, data: data, render: bytes, preserve: false, mode: Self.mode(of: photo))
      }
      return HistoryOutcome(
        undid: undo, moved: moved, stepCount: data.steps.count, undoneCount: data.undone.count,
        renderSHA256: data.render!.sha256, dryRun: settings.dryRun, recovery: recovery, warnings: warnings)
    }
  }

  /// Renders `data`'s steps from the original and records the new render in `data`.
  func rerender(_ data: inout AdjustmentData, original: [UInt8], format: ImageFormat)
    throws(StoreError) -> (bytes: [UInt8], warnings: [String])
  {
    let (rendered, bytes, record) = try renderEncoded(
      original: original, steps: data.steps, as: format, existing: data.render)
    data.render = record
    return (bytes, rendered.details.warnings)
  }
}
