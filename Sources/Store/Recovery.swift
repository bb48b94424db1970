import Recipe

/// Finishing an interrupted edit, and removing what a crash left behind.
enum Recovery {
  /// Under the photo's lock: finishes the journal's edit if one is there, then (when asked, or
  /// after a journal) removes every temporary file of the photo that no journal needs.
  static func recover(_ paths: PhotoPaths, scanForTemporaryFiles: Bool = true) throws(StoreError)
    -> CrashRecovery
  {
    var outcome = CrashRecovery()
    if paths.exists(paths.journalName) {
      let bytes: [UInt8]
      do {
        bytes = try paths.read(paths.journalName, limit: FileLimits.journalBytes, followingLinks: false)
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
    do { names = try paths.names() } catch {
      throw .cannotRead(path: paths.directory, error.system)
    }
    for name in names where name.hasPrefix(paths.tempPrefix) {
      do { try paths.remove(name) } catch {
        throw .cannotWrite(path: paths.inFolder(name), error.system)
      }
      outcome.removedTemporaryFiles += 1
    }
    if outcome.removedTemporaryFiles > 0 { try? paths.syncFolder() }
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
      try paths.syncFolder()
      try paths.remove(paths.journalName)
      try paths.syncFolder()
    } catch {
      throw .interrupted
    }
    CrashPoint.afterCommit.reached(in: paths.directory)
  }

  private enum StepFailure: Error {
    case system(path: String, FileSystem.FileError)
    case refused(Damage)
  }

  /// The checksum of the file `name` in the photo's folder, or nil when it does not exist.
  private static func checksum(_ name: String, _ paths: PhotoPaths) throws(StepFailure) -> SHA256Digest? {
    let path = paths.inFolder(name)
    do {
      return SHA256Digest(of: try paths.read(name, limit: FileLimits.photoBytes, followingLinks: false))
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
    func path(_ role: Role) -> String { shown(role, paths) }
    // Each file's checksum as the steps so far leave it (nil: absent), once looked at or set.
    var state: [Role: SHA256Digest?] = [:]
    func current(_ role: Role) throws(StepFailure) -> SHA256Digest? {
      if let known = state[role] { return known }
      let sha = try checksum(name(role, paths), paths)
      state[role] = .some(sha)
      return sha
    }
    /// True when the staged file at `temp` has no other name, or only the preserved original's
    /// (revert stages a hard link to it): a hard link to a file elsewhere, with that file's
    /// checksum, would put that file's inode under the photo's name.
    func isOwnFile(_ temp: String) throws(StepFailure) -> Bool {
      do {
        guard let staged = try paths.info(temp, followingLinks: false) else { return false }
        if staged.links == 1 { return true }
        guard let original = try paths.info(paths.originalName, followingLinks: false) else { return false }
        return original.isSameFile(as: staged)
      } catch {
        throw .system(path: paths.inFolder(temp), error)
      }
    }
    var renderReplacedWith: SHA256Digest? = nil
    for step in journal.steps {
      switch step {
      case .preserve(let sha):
        let holder: Role = try current(.original) != nil ? .original : .render
        guard try current(holder) == sha else { throw .refused(.unexpectedFile(path: path(holder))) }
        state[.original] = .some(sha)
      case .replace(let temp, let role, let sha):
        let tempPath = paths.inFolder(temp)
        if paths.exists(temp) {
          guard try checksum(temp, paths) == sha, try isOwnFile(temp) else {
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

  /// The name in the photo's folder of the file a step's role changes.
  private static func name(_ role: Journal.Step.Role, _ paths: PhotoPaths) -> String {
    switch role {
    case .original: paths.originalName
    case .sidecar: paths.sidecarName
    case .render: paths.name
    }
  }

  /// Its path, for messages.
  private static func shown(_ role: Journal.Step.Role, _ paths: PhotoPaths) -> String {
    switch role {
    case .original: paths.original
    case .sidecar: paths.sidecar
    case .render: paths.photo
    }
  }

  private static func execute(_ step: Journal.Step, paths: PhotoPaths, verify: Bool) throws(StepFailure) {
    switch step {
    case .preserve(let sha):
      let (source, target) = (paths.name, paths.originalName)
      if paths.exists(target) {
        guard try checksum(target, paths) == sha else {
          throw .refused(.unexpectedFile(path: paths.original))
        }
        return
      }
      if verify {
        guard try checksum(source, paths) == sha else {
          throw .refused(.originalChangedBeforePreserving(path: paths.photo))
        }
      }
      var linked = true
      do {
        try paths.link(source, to: target)
      } catch {
        guard error.linkUnsupported else { throw .system(path: paths.original, error) }
        linked = false
      }
      if !linked {
        let temp = paths.newTempName()
        try attempt(paths.inFolder(temp)) { () throws(FileSystem.FileError) in
          let bytes = try paths.read(source, limit: FileLimits.photoBytes, followingLinks: true)
          let info = try paths.info(source, followingLinks: true)
          let access = info.map(FileSystem.NewFileAccess.init(replacing:)) ?? .init(mode: 0o644)
          try paths.createSynced(temp, bytes: bytes, access: access)
          try paths.rename(temp, to: target)
        }
      }
    case .replace(let temp, let role, let sha):
      let target = name(role, paths)
      if paths.exists(temp) {
        try attempt(shown(role, paths)) { () throws(FileSystem.FileError) in
          try paths.rename(temp, to: target)
        }
      } else if verify {
        guard try checksum(target, paths) == sha else {
          throw .refused(.unexpectedFile(path: shown(role, paths)))
        }
      } else {
        throw .refused(.stagedFileVanished(path: shown(role, paths)))
      }
    case .remove(let role, let guardSHA):
      if let guardSHA {
        guard try checksum(paths.name, paths) == guardSHA else {
          throw .refused(.photoIsNotTheOriginal(path: paths.photo))
        }
      }
      try attempt(shown(role, paths)) { () throws(FileSystem.FileError) in try paths.remove(name(role, paths))
      }
    }
  }
}
