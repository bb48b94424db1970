/// The redo journal that makes a multi-file edit atomic.
///
/// A command first writes every new file as a synced temporary file. It then writes the journal
/// `PHOTO.photoedit.journal` (itself through a synced temporary file and a rename): that rename
/// is the commit point. Only then does it carry out the journal's steps, in order, sync the
/// folder and remove the journal. Every step can be run again after a crash without harm, so
/// whoever finds a journal (the next command on the photo, or `check --repair`) finishes the
/// edit; whoever finds temporary files without a journal removes them (the edit never happened).
struct Journal: Codable, Equatable, Sendable {
  /// One idempotent step; names are entries in the photo's folder.
  enum Step: Codable, Equatable, Sendable {
    /// Preserve the original: hard-link `from` (the unedited photo) as `to` (a name that must not
    /// exist), or copy it where hard links are impossible. `sha256` is the original's checksum.
    case preserve(from: String, to: String, sha256: String)
    /// Rename the synced temporary file `temp` over `target`, whose new checksum is `sha256`.
    case replace(temp: String, target: String, sha256: String, role: Role)
    /// Remove `target`; when `guardPath` is set, only if that file's checksum is `guardSHA256`.
    case remove(target: String, guardPath: String?, guardSHA256: String?, role: Role)

    /// Which of the photo's files a step changes, for the crash point that follows it.
    enum Role: String, Codable, Sendable { case original, sidecar, render }

    var crashPoint: CrashPoint {
      switch self {
      case .preserve: .afterOriginal
      case .replace(_, _, _, let role), .remove(_, _, _, let role):
        switch role {
        case .original: .afterOriginal
        case .sidecar: .afterSidecar
        case .render: .afterRender
        }
      }
    }
  }

  var steps: [Step]
}

/// One edit of one photo's files, built up from staged temporary files and committed at once.
struct Transaction {
  let paths: PhotoPaths
  private(set) var staged: [String] = []
  private(set) var steps: [Journal.Step] = []

  init(_ paths: PhotoPaths) { self.paths = paths }

  /// Writes `bytes` to a new synced temporary file in the photo's folder; returns its name.
  mutating func stage(_ bytes: [UInt8], mode: UInt32) throws(StoreError) -> String {
    let name = paths.newTempName()
    let first = staged.isEmpty
    do {
      try FileSystem.createSynced(paths.inFolder(name), bytes: bytes, mode: mode) {
        if first { CrashPoint.midTemp.reached(in: paths.directory) }
      }
    } catch {
      abandon()
      throw .cannotWrite(path: paths.inFolder(name), error.system)
    }
    staged.append(name)
    return name
  }

  /// A temporary name for an existing file of the folder: a hard link, or a synced copy where
  /// the file system has none.
  mutating func stageCopy(of path: String, bytes: [UInt8], mode: UInt32) throws(StoreError) -> String {
    let name = paths.newTempName()
    do {
      try FileSystem.link(path, paths.inFolder(name))
    } catch {
      guard error.linkUnsupported else {
        abandon()
        throw .cannotWrite(path: paths.inFolder(name), error.system)
      }
      return try stage(bytes, mode: mode)
    }
    staged.append(name)
    return name
  }

  mutating func add(_ step: Journal.Step) { steps.append(step) }

  /// Removes every staged temporary file (the edit is abandoned; nothing else was touched).
  func abandon() {
    for name in staged { try? FileSystem.remove(paths.inFolder(name)) }
  }

  /// Writes the journal (the commit point), runs its steps, and removes it.
  ///
  /// - Throws: `.cannotWrite` before the commit point (all temporary files are then removed and
  ///   nothing changed); after it, `.interrupted` if a step fails (the journal stays for repair).
  func commit() throws(StoreError) {
    CrashPoint.afterTemps.reached(in: paths.directory)
    let journal = Journal(steps: steps)
    let journalTemp = paths.newTempName()
    do {
      try FileSystem.createSynced(paths.inFolder(journalTemp), bytes: journal.encoded(), mode: 0o644)
      try FileSystem.rename(paths.inFolder(journalTemp), paths.journal)
      try FileSystem.syncDirectory(paths.directory)
    } catch {
      try? FileSystem.remove(paths.inFolder(journalTemp))
      // A rename that failed left no journal; a failed folder sync after it must not strand one.
      if FileSystem.exists(paths.journal) { try? FileSystem.remove(paths.journal) }
      abandon()
      throw .cannotWrite(path: paths.directory, error.system)
    }
    CrashPoint.afterJournal.reached(in: paths.directory)
    try Recovery.run(journal, paths: paths, verify: false)
  }
}

extension Journal {
  func encoded() -> [UInt8] { JSONCoding.encode(self) }
}
