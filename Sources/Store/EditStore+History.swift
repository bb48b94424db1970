import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// Takes back the last change to the recipe (an `apply` of several filters at once, an
  /// `edit`, a removal, a move) and re-renders.
  public func undo(_ photo: String) throws(StoreError) -> HistoryOutcome { try history(photo, undo: true) }

  /// Makes the last undone change again and re-renders.
  public func redo(_ photo: String) throws(StoreError) -> HistoryOutcome { try history(photo, undo: false) }

  private func history(_ photo: String, undo: Bool) throws(StoreError) -> HistoryOutcome {
    try changingRecipe(photo, unedited: undo ? .nothingToUndo : .nothingToRedo) {
      data, edited throws(StoreError) -> (Change, [RevisionNote]) in
      if undo {
        guard let change = data.history.last else { throw .nothingToUndo }
        guard let steps = change.takenBack(from: data.steps) else {
          throw .invalidRecipe(.badValue(field: "history", value: change.stored))
        }
        data.steps = steps
        data.history.removeLast()
        data.undone.append(change)
        return (change, [])
      }
      guard let change = data.undone.last else { throw .nothingToRedo }
      guard let steps = change.made(on: data.steps) else {
        throw .invalidRecipe(.badValue(field: "undone", value: change.stored))
      }
      data.steps = steps
      data.undone.removeLast()
      data.history = Array((data.history + [change]).suffix(AdjustmentData.historyLimit))
      return (change, [])
    }.history(undid: undo)
  }

  /// What a change of an edited photo's recipe did.
  struct RecipeChange {
    var change: Change
    var notes: [RevisionNote]
    var data: AdjustmentData
    var dryRun: Bool
    var recovery: CrashRecovery
    var warnings: [String]
    /// True when the body left the recipe as it was: nothing was rendered or written.
    var unchanged = false
    /// True when the body left the recipe as it was but the command line asked something new of
    /// the render (`--strip-identifying`, a quality): the render alone was made again.
    var renderedOnly = false
    /// Why the review state asked to be recorded with the change was not, when it was not.
    var reviewRefusal: CorrectionsError.ReviewRefusal? = nil
    /// True when the render strips identifying metadata.
    var stripsIdentifying: Bool { data.render!.metadata == .stripped }

    func history(undid: Bool) -> HistoryOutcome {
      HistoryOutcome(
        undid: undid, change: change, stepCount: data.steps.count, undoneCount: data.undone.count,
        renderSHA256: data.render!.sha256, dryRun: dryRun, recovery: recovery, warnings: warnings,
        stripsIdentifying: stripsIdentifying)
    }
  }

  /// Locks an edited photo, lets `body` change its recipe, re-renders from the original and
  /// commits: the one path of undo, redo and edit.
  ///
  /// - Parameters:
  ///   - unedited: the error for a photo that has no sidecar.
  ///   - review: a review state recorded in the same sidecar, for the new render, when the
  ///     photo's render before the change is the reviewed one (else `reviewRefusal` says why not).
  func changingRecipe(
    _ photo: String, unedited: StoreError, review: ReviewMark? = nil,
    _ body: (inout AdjustmentData, Edited) throws(StoreError) -> (Change, [RevisionNote])
  ) throws(StoreError) -> RecipeChange {
    try opened(photo, for: .rendering) { opened throws(StoreError) in
      guard opened.sidecar != nil, let edited = try opened.edited() else { throw unedited }
      let (paths, format, recovery) = (opened.paths, opened.format!, opened.recovery)
      var data = edited.data
      let (change, notes) = try body(&data, edited)
      if data == edited.data && rendersAsRecorded(edited.data.render) {
        // An edit to what the step already is, asking nothing new of the render (a
        // `--strip-identifying` it does not have yet, say): no new render, no history entry.
        var same = RecipeChange(
          change: change, notes: notes, data: data, dryRun: settings.dryRun, recovery: recovery, warnings: [])
        same.unchanged = true
        return same
      }
      let renderedOnly = data == edited.data
      let (bytes, warnings) = try rerender(&data, original: edited.originalBytes, format: format)
      var refusal: CorrectionsError.ReviewRefusal? = nil
      if let review {
        refusal = review.refusal(edited)
        if refusal == nil { data.review = review.record(replacing: data.review, render: data.render!.sha256) }
      }
      if !settings.dryRun {
        try commitEdit(
          paths, data: data, render: bytes, preserve: false, access: Self.access(of: paths.name, in: paths))
      }
      var made = RecipeChange(
        change: change, notes: notes, data: data, dryRun: settings.dryRun, recovery: recovery,
        warnings: warnings)
      made.renderedOnly = renderedOnly
      made.reviewRefusal = refusal
      return made
    }
  }

  /// True when this command line asks nothing of a render that `record` does not already say:
  /// the same metadata policy, and a quality or subsampling only when the render is pinned to
  /// that one.
  func rendersAsRecorded(_ record: RenderRecord?) -> Bool {
    guard let record else { return false }
    if let policy = settings.metadata, policy != record.metadata { return false }
    if let quality = settings.quality, quality != record.quality || !record.pinned { return false }
    if let subsampling = settings.subsampling, subsampling != record.subsampling || !record.pinned {
      return false
    }
    return true
  }

  /// Renders `data`'s steps from the original and records the new render in `data`. A recipe
  /// with no step left is the original itself: its exact bytes when the photo's name says the
  /// original's format (and its metadata is kept), else the original encoded as the name says.
  func rerender(_ data: inout AdjustmentData, original: [UInt8], format: ImageFormat)
    throws(StoreError) -> (bytes: [UInt8], warnings: [String])
  {
    if data.steps.isEmpty, engine.format(of: original) == format,
      metadataPolicy(existing: data.render) == .kept
    {
      data.render = RenderRecord(
        sha256: SHA256Digest(of: original), format: format,
        quality: data.render?.quality ?? EncodeOptions.defaultQuality,
        subsampling: format.capabilities.subsampling ? data.render?.subsampling : nil,
        pinned: format.capabilities.lossy && reencodingIsPinned(existing: data.render))
      return (original, [])
    }
    let (rendered, bytes, record) = try renderEncoded(
      original: original, steps: data.steps, as: format, existing: data.render)
    data.render = record
    return (bytes, rendered.details.warnings)
  }
}
