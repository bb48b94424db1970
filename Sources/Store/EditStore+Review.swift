import PhotoCore
import Recipe

/// A review page's state for one photo, to record in its sidecar (`apply --corrections`).
public struct ReviewMark: Sendable, Equatable {
  public var review: Corrections.Review
  /// When it is recorded.
  public var time: UTCTime

  public init(_ review: Corrections.Review, time: UTCTime) { (self.review, self.time) = (review, time) }

  /// Why the photo's `edited` state cannot take it, or nil when it can: the page must have shown
  /// this render, of a sidecar in today's format, and the render must not have been changed
  /// outside photoedit (with or without `--force`: what the person looked at is photoedit's).
  func refusal(_ edited: EditStore.Edited) -> CorrectionsError.ReviewRefusal? {
    guard let render = review.render else { return .renderNotNamed }
    if edited.migrated { return .olderFormat }
    if render != edited.render.sha256 { return .changedSince }
    return nil
  }

  /// The record to keep in place of `existing` once the render is `render` (the reviewed one,
  /// or the one the photo's corrections made in the same operation): `existing` itself when it
  /// already says this state of this render (its time kept: the same file applied twice
  /// changes nothing); nil for `unreviewed`.
  func record(replacing existing: ReviewRecord?, render: SHA256Digest) -> ReviewRecord? {
    if review.isRecorded(as: existing, render: render) { return existing }
    return review.recorded.map { ReviewRecord(state: $0, time: time, render: render) }
  }
}

extension Corrections.Review {
  /// True when a sidecar's `existing` record already says this state of `render` (for
  /// `unreviewed`: when it has none).
  func isRecorded(as existing: ReviewRecord?, render: SHA256Digest) -> Bool {
    guard let state = recorded else { return existing == nil }
    return existing?.state == state && existing?.render == render
  }
}

/// What recording a review state did.
public struct ReviewOutcome: Sendable {
  /// The sidecar's record now; nil when none (`unreviewed`).
  public var record: ReviewRecord?
  /// True when the sidecar already said this: nothing was written.
  public var unchanged: Bool
  public var dryRun: Bool
}

extension EditStore {
  /// A `reviewed` entry checked against its photo under `folder`: its path, and whether its
  /// sidecar already records this state of this render. A photo that is not there, damaged or
  /// modified is refused as a correction is; one without a sidecar, edited since the page was
  /// made, in an older format, or named by a page that did not say which render it showed is
  /// refused as `reviewNotRecorded`. Nothing is changed.
  ///
  /// - Parameter corrected: the same file holds a correction of this photo that is already made:
  ///   the render is then the corrected one, and a record of this state for it is this file's
  ///   own (the file applied again), so there is nothing to do.
  func checkReview(
    _ review: Corrections.Review, in folder: String, recorded: String?, corrected: Bool = false
  )
    throws(CorrectionsError) -> (path: String, done: Bool)
  {
    let (path, status) = try checkedStatus(review.photo, in: folder, recorded: recorded)
    if status.state == .modified { throw .photo(photo: review.photo, .renderModified) }
    guard let data = status.data, let render = data.render else {
      throw .reviewNotRecorded(photo: review.photo, state: review.state, why: .unedited)
    }
    let refuse = { (why: CorrectionsError.ReviewRefusal) in
      CorrectionsError.reviewNotRecorded(photo: review.photo, state: review.state, why: why)
    }
    guard let reviewed = review.render else { throw refuse(.renderNotNamed) }
    if status.migratedFrom != nil || status.problem == .olderStepVersion { throw refuse(.olderFormat) }
    if corrected && review.isRecorded(as: data.review, render: render.sha256) { return (path, true) }
    if reviewed != render.sha256 { throw refuse(.changedSince) }
    return (path, review.isRecorded(as: data.review, render: reviewed))
  }

  /// Records a review state in the photo's sidecar (or, for `unreviewed`, takes its record
  /// away), as its own sidecar update through the store's journal: locked, the photo read and
  /// verified again, the render checked to be the reviewed one; the render and the original
  /// are not touched.
  ///
  /// - Throws: `.reviewNotRecorded` when the photo cannot take it (see `checkReview`), `.photo`
  ///   for the store's own refusals (busy, modified, damaged, cannot write); nothing changes.
  public func recordReview(_ mark: ReviewMark, to photo: String) throws(CorrectionsError) -> ReviewOutcome {
    var refusal: CorrectionsError.ReviewRefusal? = nil
    let outcome: ReviewOutcome
    do {
      outcome = try opened(photo, for: .writing) { opened throws(StoreError) -> ReviewOutcome in
        let none = ReviewOutcome(record: nil, unchanged: true, dryRun: settings.dryRun)
        guard opened.sidecar != nil, let edited = try opened.edited() else {
          refusal = .unedited
          return none
        }
        // What the person looked at is photoedit's render, --force or not.
        if edited.isModified { throw .renderModified }
        let paths = opened.paths
        if let why = mark.refusal(edited) {
          refusal = why
          return none
        }
        var data = edited.data
        data.review = mark.record(replacing: data.review, render: edited.render.sha256)
        if data == edited.data {
          return ReviewOutcome(record: data.review, unchanged: true, dryRun: settings.dryRun)
        }
        if !settings.dryRun {
          try commitSidecar(paths, data: data, access: Self.access(of: paths.sidecarName, in: paths))
        }
        return ReviewOutcome(record: data.review, unchanged: false, dryRun: settings.dryRun)
      }
    } catch {
      throw .photo(photo: mark.review.photo, error)
    }
    if let refusal {
      throw .reviewNotRecorded(photo: mark.review.photo, state: mark.review.state, why: refusal)
    }
    return outcome
  }

  /// Writes a new sidecar alone through the journal (the render and the original stay).
  func commitSidecar(_ paths: PhotoPaths, data: AdjustmentData, access: FileSystem.NewFileAccess)
    throws(StoreError)
  {
    var transaction = Transaction(paths)
    let sidecar = data.encoded()
    let temp = try transaction.stage(sidecar, access: access)
    transaction.add(.replace(temp: temp, role: .sidecar, sha256: SHA256Digest(of: sidecar)))
    try transaction.commit()
  }
}

extension PhotoStatus {
  /// For a photo whose sidecar records a review: true when its render is not the one reviewed
  /// (the recipe changed since, or another program changed the render); nil without a record.
  public var changedSinceReview: Bool? {
    guard let review = data?.review, let render = data?.render else { return nil }
    return review.render != render.sha256 || state == .modified
  }
}
