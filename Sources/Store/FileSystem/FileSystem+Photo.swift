import Recipe
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension FileSystem {
  /// A photo's folder, opened once (the first time any of the photo's files is used) and held
  /// from then on: the path the user named is resolved that one time, and every later operation
  /// on the photo's files (lock, journal, temporary files, sidecar, preserved original, render)
  /// is relative to the held descriptor. Swapping the folder, or a folder above it, for another
  /// (or for a link) while a command runs can change which folder the command works in, never
  /// split its work across two.
  ///
  /// A folder that cannot be opened stays unopened for the command: every operation then fails
  /// as on a missing file, with the reason the open gave.
  final class HeldFolder: Sendable {
    /// The folder's path as the user named it ("." for a bare name).
    let path: String
    private let opened = Mutex<Result<Folder, FileError>?>(nil)

    init(_ path: String) { self.path = path }

    /// The folder, opened on first use.
    func folder() throws(FileError) -> Folder {
      let result = opened.withLock { state -> Result<Folder, FileError> in
        if let state { return state }
        let made: Result<Folder, FileError>
        do throws(FileError) { made = .success(try Folder.open(path)) } catch { made = .failure(error) }
        state = made
        return made
      }
      return try result.get()
    }
  }
}

/// The photo's files, each by its name in the photo's held folder (`FileSystem.HeldFolder`):
/// the only way the store touches them.
extension PhotoPaths {
  var sidecarName: String { name + Self.sidecarSuffix }
  var originalName: String { name + Self.originalSuffix }
  var lockName: String { name + Self.lockSuffix }
  var journalName: String { name + Self.journalSuffix }

  /// True when anything has the name in the folder (a link, even one leading nowhere, included).
  func exists(_ entry: String) -> Bool {
    guard let folder = try? held.folder() else { return false }
    return FileSystem.exists(entry, in: folder.fd)
  }

  /// What is at the name, following a link only when `followingLinks`; nil when nothing is.
  func info(_ entry: String, followingLinks: Bool) throws(FileSystem.FileError) -> FileSystem.Info? {
    let folder: FileSystem.Folder
    do { folder = try held.folder() } catch {
      if error.isNotFound || error.code == ENOTDIR { return nil }
      throw error
    }
    return try followingLinks
      ? FileSystem.info(entry, in: folder.fd) : FileSystem.linkInfo(entry, in: folder.fd)
  }

  /// Reads a file as `FileSystem.read` does; a relative path is taken in the photo's folder (a
  /// sidecar's `original.path` included), an absolute one as it is.
  func read(_ entry: String, limit: Int, followingLinks: Bool) throws(FileSystem.FileError) -> [UInt8] {
    let folder = try held.folder()
    return try FileSystem.read(entry, in: folder.fd, limit: limit, followingLinks: followingLinks)
  }

  /// Creates the file exclusively (never through a link), writes, fsyncs and closes it.
  func createSynced(
    _ entry: String, bytes: [UInt8], access: FileSystem.NewFileAccess, midWrite: () -> Void = {}
  ) throws(FileSystem.FileError) {
    let folder = try held.folder()
    try FileSystem.createSynced(entry, in: folder.fd, bytes: bytes, access: access, midWrite: midWrite)
  }

  /// renameat(2) within the folder.
  func rename(_ entry: String, to newName: String) throws(FileSystem.FileError) {
    let folder = try held.folder()
    try FileSystem.rename(entry, newName, in: folder.fd)
  }

  /// linkat(2) within the folder; fails with EEXIST rather than replace anything.
  func link(_ entry: String, to newName: String) throws(FileSystem.FileError) {
    let folder = try held.folder()
    try FileSystem.link(entry, newName, in: folder.fd, shown: inFolder(newName))
  }

  /// unlinkat(2); a missing file is not an error.
  func remove(_ entry: String) throws(FileSystem.FileError) {
    let folder = try held.folder()
    try FileSystem.remove(entry, in: folder.fd)
  }

  /// fsync(2) of the held folder: its entries (renames, links, unlinks) reach the disk.
  func syncFolder() throws(FileSystem.FileError) {
    try FileSystem.sync(folder: try held.folder().fd)
  }

  /// The names in the folder.
  func names() throws(FileSystem.FileError) -> [String] { try held.folder().names() }

  /// Throws what renaming over, or removing, the entry would fail with for the sticky bit.
  func checkReplaceable(_ entry: String) throws(FileSystem.FileError) {
    try FileSystem.checkReplaceable(entry, in: try held.folder().fd)
  }

  /// Takes the photo's lock (see `FileSystem.Lock`), in the held folder.
  func lock(timeout: Double) throws(FileSystem.Lock.Failure) -> FileSystem.Lock {
    let folder: FileSystem.Folder
    do { folder = try held.folder() } catch { throw .system(error) }
    return try FileSystem.Lock.acquire(lockName, in: folder.fd, holder: folder, timeout: timeout)
  }

  /// True while another process (or thread) holds the photo's lock.
  var isLocked: Bool {
    guard let folder = try? held.folder() else { return false }
    return FileSystem.Lock.isHeld(lockName, in: folder.fd)
  }
}
