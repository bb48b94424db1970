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
        if error.notRegular || error.size != nil { throw .damaged(.unreadableJournal(path: paths.journal)) }
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
