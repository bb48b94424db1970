import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// Reads a photo's store without changing anything and classifies it.
  ///
  /// Readers take no lock, so a writer may commit while we read: the sidecar is read again at the
  /// end and the journal checked on both sides, and the reading is repeated (for up to about two
  /// seconds while another photoedit holds the photo's lock) until nothing moved meanwhile. A
  /// half-seen edit is therefore never reported as "modified".
  func inspect(_ photo: String) -> PhotoStatus {
    let paths = PhotoPaths(photo)
    var status = PhotoStatus(state: .damaged)
    for _ in 0..<100 {
      let sidecarBefore = try? paths.read(
        paths.sidecarName, limit: settings.maxFileBytes, followingLinks: false)
      let journalBefore = paths.exists(paths.journalName)
      status = inspectOnce(photo)
      let settled =
        !journalBefore && !paths.exists(paths.journalName)
        && sidecarBefore
          == (try? paths.read(paths.sidecarName, limit: settings.maxFileBytes, followingLinks: false))
      if settled { return status }
      // A journal nobody is working on is a crash's: report it.
      let writerAlive = paths.isLocked
      if paths.exists(paths.journalName) && !writerAlive { return status }
      if writerAlive { FileSystem.sleep(microseconds: 20_000) }
    }
    return status
  }

  private func inspectOnce(_ photo: String) -> PhotoStatus {
    let state: OpenedPhoto.State
    do { state = try opened(photo, for: .reading) { opened in opened.state } } catch {
      return PhotoStatus(state: .damaged, problem: .error(error))
    }
    switch state {
    case .unedited: return PhotoStatus(state: .unedited)
    case .edited(let edited, let read): return Self.status(of: edited, read)
    case .damaged(let error, let read):
      return PhotoStatus(
        state: .damaged, problem: .error(error), data: read?.data, migratedFrom: read?.migratedFrom)
    }
  }

  /// The state of a photo whose sidecar and original were read: edited, stale (no render, or an
  /// older format or step version), modified (the render is not the one recorded) or unedited
  /// (every change undone: the photo is the original again; its sidecar stays for redo).
  static func status(of edited: Edited, _ read: AdjustmentData.ReadResult) -> PhotoStatus {
    var status = PhotoStatus(state: .edited, data: read.data, migratedFrom: read.migratedFrom)
    if edited.renderSHA256 == nil {
      (status.state, status.problem) = (.stale, .renderMissing)
    } else if edited.isModified {
      (status.state, status.problem) = (.modified, .renderModified)
    } else if let version = read.migratedFrom {
      (status.state, status.problem) = (.stale, .olderFormat(version: version))
    } else if read.stepsMigrated {
      (status.state, status.problem) = (.stale, .olderStepVersion)
    } else if read.data.steps.isEmpty {
      status.state = .unedited
    }
    return status
  }

  /// One of unedited, edited, stale, modified, damaged, with the problem. A name that is neither
  /// a photo nor an edit is an error.
  public func status(_ photo: String) throws(StoreError) -> PhotoStatus {
    let paths = PhotoPaths(photo)
    if PhotoFolder.kind(of: photo) == .missing && PhotoFolder.kind(of: paths.sidecar) == .missing
      && !paths.exists(paths.journalName)
    {
      throw .missing(path: photo)
    }
    return inspect(photo)
  }

  /// The recipe, the original and whether the render is current.
  public func show(_ photo: String) throws(StoreError) -> PhotoStatus {
    let found = try opened(photo, for: .reading) { opened throws(StoreError) in try opened.recipe() }
    guard let read = found else { return PhotoStatus(state: .unedited) }
    var status = inspect(photo)
    // Show what was read even when the photo is damaged meanwhile (its original missing, say).
    (status.data, status.migratedFrom) = (read.data, read.migratedFrom)
    return status
  }

  // MARK: check

  /// Verifies the original and the render against the sidecar's checksums; with `repair`,
  /// finishes an interrupted edit, removes a crash's temporary files and re-renders a stale or
  /// missing render.
  ///
  /// - Throws: `StoreError.checkFailed` naming the state and the problem when one remains.
  public func check(_ photo: String, repair: Bool) throws(StoreError) -> CheckOutcome {
    var outcome = CheckOutcome(state: .unedited, recovery: CrashRecovery(), absent: false)
    // With --repair, recovery first: a crash may have left only a journal or temporary files.
    let paths = try opened(photo, for: .checking(repair: repair)) { opened throws(StoreError) in
      outcome.recovery = opened.recovery
      return opened.paths
    }
    if !paths.exists(paths.name) && !paths.exists(paths.sidecarName) {
      if outcome.recovery != CrashRecovery() {
        outcome.absent = true
        return outcome
      }
      throw .missing(path: photo)
    }
    if repair && !settings.dryRun, inspect(photo).state == .stale {
      var store = self
      store.settings.force = false
      outcome.rerendered = try store.render(photo)
    }
    let status = inspect(photo)
    switch status.state {
    case .unedited, .edited:
      outcome.state = status.state
      outcome.stepCount = status.data?.steps.count
      return outcome
    case .stale, .modified, .damaged:
      throw .checkFailed(status.state, status.problem)
    }
  }
}
