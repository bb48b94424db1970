/// Finishing an interrupted edit, and removing what a crash left behind.
enum Recovery {
  /// Under the photo's lock: finishes the journal's edit if one is there, then (when asked, or
  /// after a journal) removes every temporary file of the photo that no journal needs.
  static func recover(_ paths: PhotoPaths, scanForTemporaryFiles: Bool = true) throws(StoreError)
    -> CrashRecovery
  {
    var outcome = CrashRecovery()
    if FileSystem.exists(paths.journal) {
      let bytes: [UInt8]
      do {
        bytes = try FileSystem.read(paths.journal, limit: FileLimits.journalBytes, followingLinks: false)
      } catch {
        if error.notAStoreFile || error.size != nil {
          throw .damaged(.unreadableJournal(path: paths.journal))
        }
        throw .cannotRead(path: paths.journal, error.system)
      }
      guard let journal = Journal(bytes, paths: paths) else {
        throw .damaged(.unreadableJournal(path: paths.journal))
      }
      try run(journal, paths: paths, verify: true)
      outcome.finishedEdit = true
    }
    guard scanForTemporaryFiles || outcome.finishedEdit else { return outcome }
    let names: [String]
    do { names = try FileSystem.list(paths.directory) } catch {
      throw .cannotRead(path: paths.directory, error.system)
    }
    for name in names where name.hasPrefix(paths.tempPrefix) {
      do { try FileSystem.remove(paths.inFolder(name)) } catch {
        throw .cannotWrite(path: paths.inFolder(name), error.system)
      }
      outcome.removedTemporaryFiles += 1
    }
    if outcome.removedTemporaryFiles > 0 { try? FileSystem.syncDirectory(paths.directory) }
    return outcome
  }

  /// Runs a journal's steps, syncs the folder, and removes the journal.
  ///
  /// - Parameter verify: check each completed step's checksum (after a crash) instead of
  ///   trusting that the staged files are in place (the normal path).
  static func run(_ journal: Journal, paths: PhotoPaths, verify: Bool) throws(StoreError) {
    if verify {
      // A journal found on disk may be planted: every step is checked against the files, and
      // against what the steps before it leave, before any step runs.
      do { try preflight(journal, paths: paths) } catch {
        switch error {
        case .system: throw .interrupted
        case .refused(let reason): throw .damaged(reason)
        }
      }
    }
    for step in journal.steps {
      do {
        try execute(step, paths: paths, verify: verify)
      } catch {
        switch error {
        case .system: throw .interrupted
        case .refused(let reason): throw .damaged(reason)
        }
      }
      step.crashPoint.reached(in: paths.directory)
    }
    do {
      try FileSystem.syncDirectory(paths.directory)
      try FileSystem.remove(paths.journal)
      try FileSystem.syncDirectory(paths.directory)
    } catch {
      throw .interrupted
    }
    CrashPoint.afterCommit.reached(in: paths.directory)
  }

  private enum StepFailure: Error {
    case system(path: String, FileSystem.FileError)
    case refused(Damage)
  }

  /// A file's checksum, or nil when it does not exist.
  private static func checksum(_ path: String) throws(StepFailure) -> String? {
    do {
      return SHA256.hex(try FileSystem.read(path, limit: FileLimits.photoBytes, followingLinks: false))
    } catch {
      if error.isNotFound { return nil }
      if error.notRegular { throw .refused(.unexpectedFile(path: path)) }
      throw .system(path: path, error)
    }
  }

  /// Checks that every step of a found journal is one this program's commands write and can
  /// still run or has already run, without touching anything:
  ///
  /// - a `replace` whose temporary file is there needs a regular file (not a symbolic link) with
  ///   the step's checksum and no other name than the preserved original's; one whose temporary
  ///   file is gone, a target that already has it;
  /// - a `preserve` needs the original, or the photo while no original exists, to have its
  ///   checksum;
  /// - a `remove` of the sidecar or the original comes only after the photo is replaced (a
  ///   revert), and the original's removal only when the photo then holds the original's bytes
  ///   (`guardSHA256`) and the original is gone or holds the same bytes: nothing is lost.
  private static func preflight(_ journal: Journal, paths: PhotoPaths) throws(StepFailure) {
    typealias Role = Journal.Step.Role
    func path(_ role: Role) -> String {
      switch role {
      case .original: paths.original
      case .sidecar: paths.sidecar
      case .render: paths.photo
      }
    }
    // Each file's checksum as the steps so far leave it (nil: absent), once looked at or set.
    var state: [Role: String?] = [:]
    func current(_ role: Role) throws(StepFailure) -> String? {
      if let known = state[role] { return known }
      let sha = try checksum(path(role))
      state[role] = .some(sha)
      return sha
    }
    /// True when the staged file at `temp` has no other name, or only the preserved original's
    /// (revert stages a hard link to it): a hard link to a file elsewhere, with that file's
    /// checksum, would put that file's inode under the photo's name.
    func isOwnFile(_ temp: String) throws(StepFailure) -> Bool {
      do {
        guard let staged = try FileSystem.linkInfo(temp) else { return false }
        if staged.links == 1 { return true }
        guard let original = try FileSystem.linkInfo(paths.original) else { return false }
        return original.isSameFile(as: staged)
      } catch {
        throw .system(path: temp, error)
      }
    }
    var renderReplacedWith: String? = nil
    for step in journal.steps {
      switch step {
      case .preserve(let sha):
        let holder: Role = try current(.original) != nil ? .original : .render
        guard try current(holder) == sha else { throw .refused(.unexpectedFile(path: path(holder))) }
        state[.original] = .some(sha)
      case .replace(let temp, let role, let sha):
        let tempPath = paths.inFolder(temp)
        if PhotoFolder.kind(of: tempPath, followingLinks: false) != .missing {
          guard try checksum(tempPath) == sha, try isOwnFile(tempPath) else {
            throw .refused(.unexpectedFile(path: tempPath))
          }
        } else if try current(role) != sha {
          throw .refused(.unexpectedFile(path: path(role)))
        }
        state[role] = .some(sha)
        if role == .render { renderReplacedWith = sha }
      case .remove(let role, let guardSHA):
        guard let replaced = renderReplacedWith else { throw .refused(.unexpectedFile(path: path(role))) }
        if role == .original {
          guard replaced == guardSHA else { throw .refused(.photoIsNotTheOriginal(path: paths.photo)) }
          if let held = try current(.original), held != guardSHA {
            throw .refused(.unexpectedFile(path: paths.original))
          }
        }
        state[role] = .some(nil)
      }
    }
  }

  private static func attempt(_ path: String, _ body: () throws(FileSystem.FileError) -> Void)
    throws(StepFailure)
  {
    do { try body() } catch { throw .system(path: path, error) }
  }

  private static func execute(_ step: Journal.Step, paths: PhotoPaths, verify: Bool) throws(StepFailure) {
    switch step {
    case .preserve(let sha):
      let source = paths.photo
      let target = paths.original
      if FileSystem.exists(target) {
        guard try checksum(target) == sha else {
          throw .refused(.unexpectedFile(path: target))
        }
        return
      }
      if verify {
        guard try checksum(source) == sha else {
          throw .refused(.originalChangedBeforePreserving(path: source))
        }
      }
      var linked = true
      do {
        try FileSystem.link(source, target)
      } catch {
        guard error.linkUnsupported else { throw .system(path: target, error) }
        linked = false
      }
      if !linked {
        let temp = paths.inFolder(paths.newTempName())
        try attempt(temp) { () throws(FileSystem.FileError) in
          let bytes = try FileSystem.read(source, limit: FileLimits.photoBytes)
          let mode = (try FileSystem.info(source)?.mode ?? 0o644) & 0o666
          try FileSystem.createSynced(temp, bytes: bytes, mode: mode)
          try FileSystem.rename(temp, target)
        }
      }
    case .replace(let temp, let role, let sha):
      let tempPath = paths.inFolder(temp)
      let targetPath = role == .sidecar ? paths.sidecar : paths.photo
      if FileSystem.exists(tempPath) {
        try attempt(targetPath) { () throws(FileSystem.FileError) in
          try FileSystem.rename(tempPath, targetPath)
        }
      } else if verify {
        guard try checksum(targetPath) == sha else {
          throw .refused(.unexpectedFile(path: targetPath))
        }
      } else {
        throw .refused(.stagedFileVanished(path: targetPath))
      }
    case .remove(let role, let guardSHA):
      if let guardSHA {
        guard try checksum(paths.photo) == guardSHA else {
          throw .refused(.photoIsNotTheOriginal(path: paths.photo))
        }
      }
      let path = role == .original ? paths.original : paths.sidecar
      try attempt(path) { () throws(FileSystem.FileError) in try FileSystem.remove(path) }
    }
  }
}
