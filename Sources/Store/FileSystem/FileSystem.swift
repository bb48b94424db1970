import Recipe

#if canImport(Glibc)
  import Glibc
#endif

/// The store's only door to the operating system: every Glibc call for files, fsync, links,
/// locks and the fault-injection kill lives in this file, each behind a small Swift wrapper.
///
/// Paths are strings as the user gave them, which may stand for bytes that are not UTF-8
/// (`PathName`); every call here passes the path's own bytes to the system. Failures are
/// `FileError` values carrying the errno; callers turn them into `StoreError` with the path they
/// were working on.
public enum FileSystem {
  /// A failed system call (which one, and its errno), or a file a reader refused.
  public struct FileError: Error, Equatable {
    var call: String
    var code: Int32
    /// Set when the file is not a regular file (a pipe, a device, a socket, or a link where
    /// none may be).
    var notRegular = false
    /// Set when the file is larger than the reader allows: its size and the limit, in bytes.
    var size: Int? = nil, limit: Int? = nil
    /// Set when the file grew while it was read (its bytes are not one version of it).
    var changed = false
    /// Set when a sticky folder keeps the file from being replaced: it is another user's.
    var sticky = false

    init(call: String, code: Int32) { (self.call, self.code) = (call, code) }

    /// strerror's text, e.g. "Permission denied".
    public var reason: String {
      if notRegular { return "not a regular file" }
      if changed { return "it changed while it was read" }
      if sticky {
        return "\(String(cString: strerror(code))) (the folder is sticky and the file is another user's)"
      }
      if let size, let limit { return "\(size) bytes, more than the limit of \(limit)" }
      return String(cString: strerror(code))
    }
    /// The fact, for a `StoreError`.
    var system: SystemError { SystemError(code: code, reason: reason) }
    public var isNotFound: Bool { code == ENOENT && !notRegular && size == nil }
    /// Not a regular file, or a folder: what a store file that must be photoedit's own cannot be.
    var notAStoreFile: Bool { notRegular || code == EISDIR }
    var isExists: Bool { code == EEXIST }
    /// link(2) is not possible here (no hard links on this file system, or another device).
    var linkUnsupported: Bool { code == EPERM || code == EXDEV || code == EMLINK || code == ENOTSUP }

    static func notRegular(_ call: String) -> FileError {
      var e = FileError(call: call, code: EINVAL)
      e.notRegular = true
      return e
    }

    static func changed(_ call: String) -> FileError {
      var e = FileError(call: call, code: EAGAIN)
      e.changed = true
      return e
    }
  }

  /// What stat(2) says about a path.
  public struct Info: Equatable, Sendable {
    public var device: UInt64, inode: UInt64, size: Int, mode: UInt32, links: Int
    /// The last modification, in seconds since 1970.
    public var modified: Int
    /// The owner's user id.
    public var owner: UInt32
    /// The owning group's id.
    public var group: UInt32
    public var isRegular: Bool { mode & S_IFMT == S_IFREG }
    /// True when both describe one file (the same device and inode), under any names.
    public func isSameFile(as other: Info) -> Bool { device == other.device && inode == other.inode }
    public var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    public var isLink: Bool { mode & S_IFMT == S_IFLNK }
  }

  static func failure(_ call: String) -> FileError { FileError(call: call, code: errno) }

  /// stat(2) following symbolic links, or nil when the path does not exist. A relative path is
  /// taken in the folder `folder` (a descriptor; `AT_FDCWD` for the working folder), here and in
  /// every call below that takes one.
  static func info(_ path: String, in folder: Int32 = AT_FDCWD) throws(FileError) -> Info? {
    var s = stat()
    if PathName.withCString(path, { fstatat(folder, $0, &s, 0) }) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw failure("stat")
    }
    return Info(s)
  }

  /// lstat(2): like `info`, but a symbolic link is described itself, not followed.
  static func linkInfo(_ path: String, in folder: Int32 = AT_FDCWD) throws(FileError) -> Info? {
    var s = stat()
    if pathLinkStat(path, in: folder, &s) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw failure("lstat")
    }
    return Info(s)
  }

  /// True when something has this name, whatever it is: a file, a folder, a link (even one that
  /// leads nowhere), a pipe.
  static func exists(_ path: String, in folder: Int32 = AT_FDCWD) -> Bool {
    var s = stat()
    return pathLinkStat(path, in: folder, &s) == 0
  }

  /// Reads a whole regular file of at most `limit` bytes. It never waits on a pipe, never wakes
  /// one's writer, and never opens a device: the path is looked at first (lstat, or stat when
  /// links are followed) and anything but a regular file is refused without being opened; the
  /// file is then opened without blocking and checked again with fstat, in case it was swapped
  /// meanwhile. Its size is checked before anything is allocated, and it is read into one buffer
  /// of that size: a file that grows while it is read is refused (`changed`), never read twice
  /// over.
  ///
  /// - Parameter followingLinks: false for the store's own files: a symbolic link where one is
  ///   expected is refused (`notRegular`), never followed.
  public static func read(
    _ path: String, in folder: Int32 = AT_FDCWD, limit: Int, followingLinks: Bool = true
  ) throws(FileError) -> [UInt8] {
    let fd = try openRegular(path, in: folder, limit: limit, followingLinks: followingLinks)
    defer { close(fd.descriptor) }
    return try readAll(fd.descriptor, size: fd.size)
  }

  /// The first `count` bytes of the regular file `name` in the folder `folder` (a descriptor;
  /// `AT_FDCWD` for the working folder), all of it when shorter; looked at and opened as `read`
  /// does (never a pipe or a device), never through a link unless `followingLinks`.
  static func readPrefix(
    _ name: String, in folder: Int32 = AT_FDCWD, count: Int, followingLinks: Bool = false
  ) throws(FileError) -> [UInt8] {
    let fd = try openRegular(name, in: folder, limit: Int.max, followingLinks: followingLinks)
    defer { close(fd.descriptor) }
    return try readAll(fd.descriptor, size: min(fd.size, count), upTo: true)
  }

  /// Refuses what is not a regular file of at most `limit` bytes, from what stat(2) says.
  private static func refuse(_ s: stat, limit: Int, call: String) throws(FileError) {
    switch s.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw FileError(call: call, code: EISDIR)
    default: throw .notRegular(call)
    }
    if Int(s.st_size) > limit {
      var e = FileError(call: call, code: EFBIG)
      (e.size, e.limit) = (Int(s.st_size), limit)
      throw e
    }
  }

  /// Opens a regular file for reading after looking at it (see `read`); its descriptor and size.
  private static func openRegular(
    _ path: String, in folder: Int32 = AT_FDCWD, limit: Int, followingLinks: Bool
  ) throws(FileError) -> (descriptor: Int32, size: Int) {
    var looked = stat()
    let lookFlags = followingLinks ? 0 : AT_SYMLINK_NOFOLLOW
    if PathName.withCString(path, { fstatat(folder, $0, &looked, lookFlags) }) != 0 {
      throw failure(followingLinks ? "stat" : "lstat")
    }
    try refuse(looked, limit: limit, call: "open")
    let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followingLinks ? 0 : O_NOFOLLOW)
    let fd = PathName.withCString(path) { openat(folder, $0, flags) }
    if fd < 0 {
      if errno == ELOOP { throw .notRegular("open") }
      throw failure("open")
    }
    var s = stat()
    if fstat(fd, &s) != 0 {
      let e = failure("fstat")
      close(fd)
      throw e
    }
    do { try refuse(s, limit: limit, call: "read") } catch {
      close(fd)
      throw error
    }
    return (fd, max(Int(s.st_size), 0))
  }

  /// Reads a file whose fstat size is `size` into a buffer of that size (one byte more, to see
  /// whether it grew). With `upTo`, reads at most `size` bytes and stops there.
  private static func readAll(_ fd: Int32, size: Int, upTo: Bool = false) throws(FileError) -> [UInt8] {
    var failed: FileError? = nil
    let room = upTo ? size : size + 1
    let bytes = [UInt8](unsafeUninitializedCapacity: room) { buffer, count in
      while count < room {
        let n = Glibc.read(fd, buffer.baseAddress! + count, room - count)
        if n < 0 {
          if errno == EINTR { continue }
          failed = failure("read")
          break
        }
        if n == 0 { break }
        count += n
      }
    }
    if let failed { throw failed }
    // More than fstat said: the file changed while it was read.
    if bytes.count > size { throw .changed("read") }
    return bytes
  }

  /// What a new file of a photo takes from the file it replaces (or, for a new output, from the
  /// photo it is made from): its permission bits, and the group of the file it replaces.
  struct NewFileAccess: Equatable, Sendable {
    /// The permission bits, never execute, setuid, setgid or sticky.
    var mode: UInt32
    /// The group to give the file, or nil for the folder's default (a new file).
    var group: UInt32?
    init(mode: UInt32, group: UInt32? = nil) {
      self.mode = mode & 0o666
      self.group = group
    }
    /// What a file replacing the one `info` describes takes from it: its mode and its group.
    init(replacing info: Info) { self.init(mode: info.mode, group: info.group) }
  }

  /// Creates `path` exclusively (it must not exist), writes `bytes`, fsyncs and closes it.
  ///
  /// The file gets `access`'s mode (open's is filtered by the umask) and its group when it can:
  /// the owner may give a file only a group it belongs to, so a photo of a group the user has
  /// left gets the user's default group instead (EPERM is not an error). On any failure the
  /// half-written file is removed. `midWrite` runs once, after half the bytes
  /// are written and before the rest (the `temp-partial` crash point).
  static func createSynced(
    _ path: String, in folder: Int32 = AT_FDCWD, bytes: [UInt8], access: NewFileAccess,
    midWrite: () -> Void = {}
  ) throws(FileError) {
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
    let fd = PathName.withCString(path) { openat(folder, $0, flags, mode_t(0o600)) }
    if fd < 0 { throw failure("open") }
    var ok = false
    defer {
      if !ok {
        close(fd)
        pathUnlink(path, in: folder)
      }
    }
    // The group first: fchown by a non-root owner clears setgid, and the mode is set after it.
    if let group = access.group, fchown(fd, uid_t.max, gid_t(group)) != 0, errno != EPERM {
      throw failure("fchown")
    }
    if fchmod(fd, mode_t(access.mode)) != 0 { throw failure("fchmod") }
    let half = bytes.count / 2
    try writeAll(fd, bytes, 0..<half)
    midWrite()
    try writeAll(fd, bytes, half..<bytes.count)
    if fsync(fd) != 0 { throw failure("fsync") }
    ok = true
    if close(fd) != 0 { throw failure("close") }
  }

  /// Writes all of `bytes` to the open descriptor `fd` (the process's standard output, say).
  public static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(FileError) {
    try writeAll(fd, bytes, 0..<bytes.count)
  }

  /// Every byte the open descriptor `fd` (the process's standard input, say) gives until its end.
  public static func readToEnd(_ fd: Int32) throws(FileError) -> [UInt8] {
    let piece = 65536
    var all: [UInt8] = []
    while true {
      let got = try readAll(fd, size: piece, upTo: true)
      all += got
      if got.count < piece { return all }
    }
  }

  private static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ range: Range<Int>) throws(FileError) {
    var at = range.lowerBound
    while at < range.upperBound {
      let n = bytes.withUnsafeBytes { buffer in
        write(fd, buffer.baseAddress! + at, range.upperBound - at)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure("write")
      }
      at += n
    }
  }

  /// rename(2): atomically replaces `to` with `from`.
  static func rename(_ from: String, _ to: String, in folder: Int32 = AT_FDCWD) throws(FileError) {
    if PathName.withCString(from, { f in PathName.withCString(to) { renameat(folder, f, folder, $0) } }) != 0
    {
      throw failure("rename")
    }
  }

  /// Throws what rename(2) or unlink(2) of the entry at `path` would fail with for the sticky
  /// bit, without doing it: in a folder with the sticky bit (`/tmp`, shared folders), only the
  /// entry's owner, the folder's owner or root may rename over or remove it (EPERM). A missing
  /// entry can always be made.
  static func checkReplaceable(_ name: String, in folder: Int32) throws(FileError) {
    var entry = stat()
    var dir = stat()
    if pathLinkStat(name, in: folder, &entry) != 0 { return }
    if fstat(folder, &dir) != 0 { throw failure("fstat") }
    let me = geteuid()
    if dir.st_mode & S_ISVTX != 0 && me != 0 && me != entry.st_uid && me != dir.st_uid {
      var e = FileError(call: "rename", code: EPERM)
      e.sticky = true
      throw e
    }
  }

  /// link(2): a new name for an existing file; fails with EEXIST rather than replace anything.
  ///
  /// - Parameter shown: the path `to` stands for (the test hook that fakes a file system without
  ///   hard links is keyed by it).
  static func link(_ from: String, _ to: String, in folder: Int32 = AT_FDCWD, shown: String? = nil)
    throws(FileError)
  {
    if TestHooks.hardLinksUnsupported(for: shown ?? to) { throw FileError(call: "link", code: EPERM) }
    if PathName.withCString(from, { f in PathName.withCString(to) { linkat(folder, f, folder, $0, 0) } }) != 0
    {
      throw failure("link")
    }
  }

  /// unlink(2); a missing file is not an error.
  static func remove(_ path: String, in folder: Int32 = AT_FDCWD) throws(FileError) {
    if pathUnlink(path, in: folder) != 0 && errno != ENOENT { throw failure("unlink") }
  }

  /// Flushes the entries (renames, links, unlinks) of the folder held open as `folder` to disk.
  static func sync(folder: Int32) throws(FileError) {
    if fsync(folder) != 0 && errno != EINVAL { throw failure("fsync") }
  }

  /// Creates a folder and its missing parents, as `mkdir -p` does.
  ///
  /// - Parameter made: gets each folder this call created (its mkdir succeeded), parents first,
  ///   also when it then throws; a folder that already existed is never in it.
  public static func createDirectories(_ path: String, made: inout [String]) throws(FileError) {
    let bytes = PathName.bytes(path)
    let ends = bytes.indices.filter { $0 > 0 && bytes[$0] == UInt8(ascii: "/") } + [bytes.count]
    for end in ends {
      let part = PathName.string(bytes[..<end])
      if PathName.withCString(part, { mkdir($0, 0o777) }) == 0 {
        made.append(part)
      } else if errno != EEXIST {
        throw failure("mkdir")
      }
    }
    guard try info(path)?.isDirectory == true else { throw FileError(call: "mkdir", code: ENOTDIR) }
  }

  /// mkdir(2) of one folder (its parent must exist); fails with EEXIST when anything has the
  /// name, a link included (mkdir never follows one).
  static func createDirectory(_ path: String) throws(FileError) {
    if PathName.withCString(path, { mkdir($0, 0o777) }) != 0 { throw failure("mkdir") }
  }

  /// rmdir(2): removes a folder only when it is empty. True when it is gone (removed, or already
  /// missing); false when it holds anything, or cannot be removed.
  public static func removeEmptyDirectory(_ path: String) -> Bool {
    PathName.withCString(path) { rmdir($0) } == 0 || errno == ENOENT
  }

  /// The names in a folder, without "." and "..", as `PathName` strings.
  public static func list(_ path: String) throws(FileError) -> [String] {
    guard let dir = PathName.withCString(path, { opendir($0) }) else { throw failure("opendir") }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in PathName.string(raw.prefix { $0 != 0 }) }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// realpath(3): the path with every link and `.`/`..` resolved, or nil.
  static func realPath(_ path: String) -> String? {
    PathName.withCString(path) { p -> String? in
      guard let resolved = realpath(p, nil) else { return nil }
      defer { free(resolved) }
      return PathName.string(cString: resolved)
    }
  }

  /// The process's working folder.
  static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return buffer.withUnsafeBufferPointer { PathName.string(cString: $0.baseAddress!) }
  }

  /// An environment variable, its bytes kept as `PathName` does (it may name a file).
  public static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return PathName.string(cString: value)
  }

  /// The running binary's path (`/proc/self/exe`), or nil.
  static func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: 4097)
    let n = readlink("/proc/self/exe", &buffer, 4096)
    guard n > 0 else { return nil }
    buffer[n] = 0
    return buffer.withUnsafeBufferPointer { PathName.string(cString: $0.baseAddress!) }
  }

  /// Ends the process at once, as `kill -9` would (the fault-injection switch).
  static func killSelf() -> Never {
    kill(getpid(), SIGKILL)
    _exit(137)
  }

  /// Microseconds to sleep (lock polling).
  static func sleep(microseconds: UInt32) { usleep(microseconds) }

  /// An exclusive lock on a photo, held through a lock file next to it.
  ///
  /// The unlink race: the holder removes the lock file before releasing, so a waiter may end up
  /// holding a lock on a file that no longer has a name while a newcomer locks a fresh file of
  /// the same name. After flock succeeds we therefore check that the path still names the very
  /// inode we locked, and start again if it does not. The file is removed only while locked.
  final class Lock {
    /// The lock file's name in `folder`, the folder held open (kept open while the lock is held).
    let path: String
    private let folder: Int32
    private let holder: AnyObject?
    private var fd: Int32
    /// The lock file was there, unlocked, before we came: a crashed command left it, so its
    /// temporary files may be lying around too. (Every command removes its lock file before
    /// releasing it, and creates temporary files only while holding it.)
    let foundLeftover: Bool

    private init(path: String, folder: Int32, holder: AnyObject?, fd: Int32, foundLeftover: Bool) {
      (self.path, self.folder, self.holder, self.fd, self.foundLeftover) = (
        path, folder, holder, fd, foundLeftover
      )
    }

    enum Failure: Error {
      case busy
      /// Something that is not a regular file (a link, a pipe, a folder) is at the lock's path.
      case notRegular
      case system(FileError)
    }

    /// Takes the lock, trying until `timeout` seconds have passed, whatever is at its path: a
    /// link, a pipe or a folder there is refused at once (never followed, never waited on), and
    /// every retry counts against the same deadline.
    ///
    /// - Parameters:
    ///   - folder: the folder `path` is taken in (a descriptor; `AT_FDCWD` for the working folder).
    ///   - holder: whatever keeps `folder` open; the lock keeps it until it is released.
    static func acquire(
      _ path: String, in folder: Int32 = AT_FDCWD, holder: AnyObject? = nil, timeout: Double
    )
      throws(Failure) -> Lock
    {
      let clock = ContinuousClock()
      let deadline = clock.now + .milliseconds(Int64(timeout * 1000))
      while true {
        var created = true
        let flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd = pathOpen(path, in: folder, flags | O_CREAT | O_EXCL, mode_t(0o644))
        if fd < 0 && errno == EEXIST {
          created = false
          // Look before opening: opening a pipe, even without blocking, wakes its writer.
          var looked = stat()
          if pathLinkStat(path, in: folder, &looked) == 0 && looked.st_mode & S_IFMT != S_IFREG {
            throw .notRegular
          }
          fd = pathOpen(path, in: folder, flags)
          if fd < 0 && errno == ENOENT {
            // Removed meanwhile: create it, unless the deadline passed.
            if clock.now >= deadline { throw .busy }
            continue
          }
        }
        if fd < 0 {
          if errno == ELOOP || errno == EISDIR || errno == ENXIO || errno == EWOULDBLOCK { throw .notRegular }
          throw .system(failure("open"))
        }
        var held = stat()
        if fstat(fd, &held) != 0 || held.st_mode & S_IFMT != S_IFREG {
          close(fd)
          throw .notRegular
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
          let code = errno
          close(fd)
          guard code == EWOULDBLOCK || code == EINTR else {
            throw .system(FileError(call: "flock", code: code))
          }
          if clock.now >= deadline { throw .busy }
          FileSystem.sleep(microseconds: 20_000)
          continue
        }
        var named = stat()
        if pathLinkStat(path, in: folder, &named) == 0, held.st_ino == named.st_ino,
          held.st_dev == named.st_dev
        {
          return Lock(path: path, folder: folder, holder: holder, fd: fd, foundLeftover: !created)
        }
        close(fd)  // the holder before us removed this file: lock the new one
        if clock.now >= deadline { throw .busy }
      }
    }

    /// True while another process (or thread) holds the lock at `path`. Takes nothing: it tries a
    /// shared lock without waiting and drops it at once.
    static func isHeld(_ path: String, in folder: Int32 = AT_FDCWD) -> Bool {
      var looked = stat()
      guard pathLinkStat(path, in: folder, &looked) == 0, looked.st_mode & S_IFMT == S_IFREG else {
        return false
      }
      let fd = pathOpen(path, in: folder, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
      if fd < 0 { return false }
      defer { close(fd) }
      return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Removes the lock file, then releases the lock.
    func release() {
      guard fd >= 0 else { return }
      pathUnlink(path, in: folder)
      close(fd)
      fd = -1
    }

    deinit { release() }
  }
}

extension FileSystem.Info {
  init(_ s: stat) {
    self.init(
      device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int(s.st_size), mode: UInt32(s.st_mode),
      links: Int(s.st_nlink), modified: Int(s.st_mtim.tv_sec), owner: UInt32(s.st_uid),
      group: UInt32(s.st_gid))
  }
}

// The path-taking system calls, given the bytes a path string stands for (`PathName`), a
// relative path taken in the folder `folder` (a descriptor, or `AT_FDCWD`); links are never
// followed by the lookups.
private func pathOpen(_ path: String, in folder: Int32 = AT_FDCWD, _ flags: Int32, _ mode: mode_t = 0)
  -> Int32
{
  PathName.withCString(path) { openat(folder, $0, flags, mode) }
}
private func pathLinkStat(_ path: String, in folder: Int32 = AT_FDCWD, _ s: inout stat) -> Int32 {
  PathName.withCString(path) { fstatat(folder, $0, &s, AT_SYMLINK_NOFOLLOW) }
}
@discardableResult private func pathUnlink(_ path: String, in folder: Int32 = AT_FDCWD) -> Int32 {
  PathName.withCString(path) { unlinkat(folder, $0, 0) }
}
