import Recipe

#if canImport(Glibc)
  import Glibc
#endif

extension FileSystem {
  /// A folder held open: every operation on its entries is relative to its descriptor (`openat`,
  /// `mkdirat`, `renameat`, `unlinkat`, `fstatat` without following links), so renaming the
  /// folder, or swapping it for a link, never redirects them.
  ///
  /// Files made here are private (0600, folders 0700) whatever the umask, created exclusively and
  /// never through a link.
  public final class Folder: Sendable {
    /// The descriptor, for the calls of `FileSystem` that take one.
    let fd: Int32
    /// The path it was opened by (for messages).
    public let path: String

    private init(fd: Int32, path: String) { (self.fd, self.path) = (fd, path) }
    deinit { close(fd) }

    /// Opens a folder the user named; a link to a folder is followed, this once.
    public static func open(_ path: String) throws(FileError) -> Folder {
      let fd = PathName.withCString(path) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
      if fd < 0 { throw failure("open") }
      return Folder(fd: fd, path: path)
    }

    private func child(_ name: String) -> String { Path.join(path, name) }

    /// What stat(2) says about the held folder itself.
    public func info() throws(FileError) -> Info {
      var s = stat()
      if fstat(fd, &s) != 0 { throw failure("fstat") }
      return Info(s)
    }

    /// What is at `name`, not following a link (a link is described itself), or nil.
    public func entry(_ name: String) throws(FileError) -> Info? {
      var s = stat()
      if PathName.withCString(name, { fstatat(fd, $0, &s, AT_SYMLINK_NOFOLLOW) }) != 0 {
        if errno == ENOENT { return nil }
        throw failure("fstatat")
      }
      return Info(s)
    }

    /// Opens the folder at `name`, which must be a real folder (a link there is refused).
    public func folder(_ name: String) throws(FileError) -> Folder {
      let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
      let child = PathName.withCString(name) { openat(fd, $0, flags) }
      if child < 0 {
        if errno == ELOOP { throw .notRegular("open") }
        throw failure("open")
      }
      return Folder(fd: child, path: self.child(name))
    }

    /// Makes a new private folder `name` (0700; it must not exist) and holds it. The folder opened
    /// must be the one made: this user's, and a folder, not a link put there meanwhile.
    public func makePrivateFolder(_ name: String) throws(FileError) -> Folder {
      if PathName.withCString(name, { mkdirat(fd, $0, 0o700) }) != 0 { throw failure("mkdir") }
      let made = try folder(name)
      let info = try made.info()
      guard info.owner == geteuid() else { throw FileError(call: "mkdir", code: EEXIST) }
      if fchmod(made.fd, 0o700) != 0 { throw failure("fchmod") }
      return made
    }

    /// Creates the private file `name` (0600) exclusively, never through a link, and writes
    /// `bytes`; a file that cannot be written whole is removed.
    public func createPrivateFile(_ name: String, bytes: [UInt8]) throws(FileError) {
      let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
      let file = PathName.withCString(name) { openat(fd, $0, flags, mode_t(0o600)) }
      if file < 0 { throw failure("open") }
      var ok = false
      defer {
        close(file)
        if !ok { removeFile(name) }
      }
      if fchmod(file, 0o600) != 0 { throw failure("fchmod") }
      try FileSystem.writeAll(bytes, to: file)
      ok = true
    }

    /// The first `count` bytes of the regular file `name` (all of it when shorter). What is not a
    /// regular file (a link, a pipe, a device) is refused before it is opened.
    public func readPrefix(_ name: String, count: Int) throws(FileError) -> [UInt8] {
      try FileSystem.readPrefix(name, in: fd, count: count)
    }

    /// renameat(2): moves the entry `name` to `newName` in `folder` (replacing what is there).
    public func rename(_ name: String, to newName: String, in folder: Folder) throws(FileError) {
      let result = PathName.withCString(name) { from in
        PathName.withCString(newName) { to in renameat(fd, from, folder.fd, to) }
      }
      if result != 0 { throw failure("rename") }
    }

    /// The names in the folder, without "." and "..".
    public func names() throws(FileError) -> [String] {
      let copy = dup(fd)
      if copy < 0 { throw failure("dup") }
      guard let dir = fdopendir(copy) else {
        let e = failure("fdopendir")
        close(copy)
        throw e
      }
      defer { closedir(dir) }
      rewinddir(dir)
      var names: [String] = []
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in PathName.string(raw.prefix { $0 != 0 }) }
        if name != "." && name != ".." { names.append(name) }
      }
      return names
    }

    /// Removes the entry `name` unless it is a folder; true when it is gone.
    @discardableResult public func removeFile(_ name: String) -> Bool {
      PathName.withCString(name) { unlinkat(fd, $0, 0) } == 0 || errno == ENOENT
    }

    /// Removes the folder `name` if it is empty; true when it is gone.
    @discardableResult public func removeEmptyFolder(_ name: String) -> Bool {
      PathName.withCString(name) { unlinkat(fd, $0, AT_REMOVEDIR) } == 0 || errno == ENOENT
    }

    /// Removes the files in the folder `held`, then the folder `name` if it is that very folder
    /// (the same device and inode): a folder swapped in meanwhile, or a link, is left alone (and
    /// `held`, wherever it was moved, is left empty). Folders inside it are not walked (their
    /// removal fails, and so does the folder's).
    @discardableResult public func removeFolder(_ name: String, holding held: Folder) -> Bool {
      for entry in (try? held.names()) ?? [] { held.removeFile(entry) }
      guard let here = try? entry(name), let inside = try? held.info(), here.isSameFile(as: inside) else {
        return false
      }
      return removeEmptyFolder(name)
    }
  }
}
