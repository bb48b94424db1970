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
  /// A failed system call: which one, and its errno.
  public struct FileError: Error, Equatable {
    var call: String
    var code: Int32
    /// strerror's text, e.g. "Permission denied".
    var reason: String { String(cString: strerror(code)) }
    /// The fact, for a `StoreError`.
    var system: SystemError { SystemError(code: code, reason: reason) }
    public var isNotFound: Bool { code == ENOENT }
    var isExists: Bool { code == EEXIST }
    /// link(2) is not possible here (no hard links on this file system, or another device).
    var linkUnsupported: Bool { code == EPERM || code == EXDEV || code == EMLINK || code == ENOTSUP }
  }

  /// What stat(2) says about a path.
  struct Info: Equatable {
    var device: UInt64, inode: UInt64, size: Int, mode: UInt32, links: Int
    /// The last modification, in seconds since 1970.
    var modified: Int
    var isRegular: Bool { mode & S_IFMT == S_IFREG }
    var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
  }

  private static func failure(_ call: String) -> FileError { FileError(call: call, code: errno) }

  /// stat(2) following symbolic links, or nil when the path does not exist.
  static func info(_ path: String) throws(FileError) -> Info? {
    var s = stat()
    if pathStat(path, &s) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw failure("stat")
    }
    return Info(s)
  }

  /// lstat(2): like `info`, but a symbolic link is described itself, not followed.
  static func linkInfo(_ path: String) throws(FileError) -> Info? {
    var s = stat()
    if PathName.withCString(path, { lstat($0, &s) }) != 0 {
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw failure("lstat")
    }
    return Info(s)
  }

  static func exists(_ path: String) -> Bool { PathName.withCString(path) { access($0, F_OK) } == 0 }

  /// Reads a whole regular file.
  public static func read(_ path: String) throws(FileError) -> [UInt8] {
    let fd = pathOpen(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw failure("open") }
    defer { close(fd) }
    var s = stat()
    if fstat(fd, &s) != 0 { throw failure("fstat") }
    if s.st_mode & S_IFMT == S_IFDIR { throw FileError(call: "read", code: EISDIR) }
    var bytes = [UInt8](repeating: 0, count: max(Int(s.st_size), 0))
    var filled = 0
    while true {
      if filled == bytes.count { bytes.append(contentsOf: [UInt8](repeating: 0, count: 65536)) }
      let n = bytes.withUnsafeMutableBytes { buffer in
        Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure("read")
      }
      if n == 0 { break }
      filled += n
    }
    bytes.removeSubrange(filled...)
    return bytes
  }

  /// Creates `path` exclusively (it must not exist), writes `bytes`, fsyncs and closes it.
  ///
  /// On any failure the half-written file is removed. `midWrite` runs once, after half the bytes
  /// are written and before the rest (the `temp-partial` crash point).
  static func createSynced(
    _ path: String, bytes: [UInt8], mode: UInt32, midWrite: () -> Void = {}
  ) throws(FileError) {
    let fd = pathOpen(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
    if fd < 0 { throw failure("open") }
    var ok = false
    defer {
      if !ok {
        close(fd)
        pathUnlink(path)
      }
    }
    // Set the final mode explicitly: open's mode is filtered by the umask, and the render keeps
    // the photo's permissions.
    if fchmod(fd, mode_t(mode & 0o7777)) != 0 { throw failure("fchmod") }
    let half = bytes.count / 2
    try writeAll(fd, bytes, 0..<half)
    midWrite()
    try writeAll(fd, bytes, half..<bytes.count)
    if fsync(fd) != 0 { throw failure("fsync") }
    ok = true
    if close(fd) != 0 { throw failure("close") }
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
  static func rename(_ from: String, _ to: String) throws(FileError) {
    if PathName.withCString(from, { f in PathName.withCString(to) { Glibc.rename(f, $0) } }) != 0 {
      throw failure("rename")
    }
  }

  /// link(2): a new name for an existing file; fails with EEXIST rather than replace anything.
  static func link(_ from: String, _ to: String) throws(FileError) {
    if TestHooks.hardLinksUnsupported(for: to) { throw FileError(call: "link", code: EPERM) }
    if PathName.withCString(from, { f in PathName.withCString(to) { Glibc.link(f, $0) } }) != 0 {
      throw failure("link")
    }
  }

  /// unlink(2); a missing file is not an error.
  static func remove(_ path: String) throws(FileError) {
    if pathUnlink(path) != 0 && errno != ENOENT { throw failure("unlink") }
  }

  /// Flushes a folder's entries (renames, links, unlinks) to disk.
  static func syncDirectory(_ path: String) throws(FileError) {
    let fd = pathOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd < 0 { throw failure("open") }
    defer { close(fd) }
    if fsync(fd) != 0 && errno != EINVAL { throw failure("fsync") }
  }

  /// Creates a folder and its missing parents, as `mkdir -p` does.
  public static func createDirectories(_ path: String) throws(FileError) {
    let bytes = PathName.bytes(path)
    let ends = bytes.indices.filter { $0 > 0 && bytes[$0] == UInt8(ascii: "/") } + [bytes.count]
    for end in ends {
      let part = PathName.string(bytes[..<end])
      if PathName.withCString(part, { mkdir($0, 0o777) }) != 0 && errno != EEXIST { throw failure("mkdir") }
    }
    guard try info(path)?.isDirectory == true else { throw FileError(call: "mkdir", code: ENOTDIR) }
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
    let path: String
    private var fd: Int32
    /// The lock file was there, unlocked, before we came: a crashed command left it, so its
    /// temporary files may be lying around too. (Every command removes its lock file before
    /// releasing it, and creates temporary files only while holding it.)
    let foundLeftover: Bool

    private init(path: String, fd: Int32, foundLeftover: Bool) {
      (self.path, self.fd, self.foundLeftover) = (path, fd, foundLeftover)
    }

    enum Failure: Error { case busy, system(FileError) }

    /// Takes the lock, polling until `timeout` seconds have passed.
    static func acquire(_ path: String, timeout: Double) throws(Failure) -> Lock {
      var waited = 0.0
      while true {
        var created = true
        var fd = pathOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o644))
        if fd < 0 && errno == EEXIST {
          created = false
          fd = pathOpen(path, O_RDWR | O_CLOEXEC)
          if fd < 0 && errno == ENOENT { continue }  // removed meanwhile: create it
        }
        if fd < 0 { throw .system(failure("open")) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
          let code = errno
          close(fd)
          guard code == EWOULDBLOCK || code == EINTR else {
            throw .system(FileError(call: "flock", code: code))
          }
          if waited >= timeout { throw .busy }
          FileSystem.sleep(microseconds: 20_000)
          waited += 0.02
          continue
        }
        var held = stat()
        var named = stat()
        if fstat(fd, &held) == 0, pathStat(path, &named) == 0, held.st_ino == named.st_ino,
          held.st_dev == named.st_dev
        {
          return Lock(path: path, fd: fd, foundLeftover: !created)
        }
        close(fd)  // the holder before us removed this file: lock the new one
      }
    }

    /// True while another process (or thread) holds the lock at `path`. Takes nothing: it tries a
    /// shared lock without waiting and drops it at once.
    static func isHeld(_ path: String) -> Bool {
      let fd = pathOpen(path, O_RDONLY | O_CLOEXEC)
      if fd < 0 { return false }
      defer { close(fd) }
      return flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Removes the lock file, then releases the lock.
    func release() {
      guard fd >= 0 else { return }
      pathUnlink(path)
      close(fd)
      fd = -1
    }

    deinit { release() }
  }
}

extension FileSystem.Info {
  fileprivate init(_ s: stat) {
    self.init(
      device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int(s.st_size), mode: UInt32(s.st_mode),
      links: Int(s.st_nlink), modified: Int(s.st_mtim.tv_sec))
  }
}

// The path-taking system calls, given the bytes a path string stands for (`PathName`).
private func pathOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
  PathName.withCString(path) { open($0, flags, mode) }
}
private func pathStat(_ path: String, _ s: inout stat) -> Int32 {
  PathName.withCString(path) { stat($0, &s) }
}
@discardableResult private func pathUnlink(_ path: String) -> Int32 {
  PathName.withCString(path) { unlink($0) }
}
