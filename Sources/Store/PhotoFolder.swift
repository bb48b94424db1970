import Codecs
import Recipe

/// Which files a command's operands stand for: a photo, or with `-r` every photo below a folder,
/// without the store's own files.
public enum PhotoFolder {
  /// The extensions of the photos a folder walk finds (any case).
  public static let photoExtensions = Set(FormatRegistry.extensions)

  /// A file's identity: its device and inode.
  public struct Identity: Hashable, Sendable {
    public let device: UInt64, inode: UInt64
  }

  /// The identity of the file `path` names (following links), or nil when there is none.
  public static func identity(of path: String) -> Identity? {
    guard let info = try? FileSystem.info(path) else { return nil }
    return Identity(device: info.device, inode: info.inode)
  }

  /// The path with every link and `.`/`..` resolved (realpath(3)), or nil when it cannot be.
  public static func realPath(_ path: String) -> String? { FileSystem.realPath(path) }

  /// The process's working folder.
  public static func currentDirectory() -> String { FileSystem.currentDirectory() }

  /// What a path is.
  public enum Kind: Sendable { case missing, regular, directory, other }

  /// What `path` is, following symbolic links unless `followingLinks` is false (then a link is
  /// `.other`). A path that cannot be examined is `.missing`.
  public static func kind(of path: String, followingLinks: Bool = true) -> Kind {
    guard let info = try? (followingLinks ? FileSystem.info(path) : FileSystem.linkInfo(path)) else {
      return .missing
    }
    if info.isRegular { return .regular }
    if info.isDirectory { return .directory }
    return .other
  }

  /// One file to work on, or why it cannot be worked on at all.
  public struct Entry: Sendable {
    public var path: String
    public var problem: StoreError?
    /// The name `shard(of:count:)` is given for this file: its path relative to the folder a
    /// walk started from (`sub/a.jpg` for `-r /mnt/archive/photos`), else the path as given.
    public var shardName: String
    /// For a photo a walk found, its path relative to the folder walked (`a/x.jpg`), where
    /// `--output-dir` puts its output; nil for a photo named directly.
    public var relative: String?
    /// True when the name is a symbolic link (to a regular file).
    public var isLink = false
    /// For a file a walk found in a format photoedit does not read (`GIF`, `HEIC`, `CR2`: see
    /// `UnreadablePhotoFormat`), that format's name: the run counts it as skipped, and touches
    /// nothing of it. (Named directly, such a file is a `problem`, `.unreadableFormat`.)
    public var unsupported: String?

    public init(
      path: String, problem: StoreError? = nil, shardName: String? = nil, relative: String? = nil,
      unsupported: String? = nil
    ) {
      (self.path, self.problem, self.shardName, self.relative) = (path, problem, shardName ?? path, relative)
      self.unsupported = unsupported
      isLink = problem == nil && PhotoFolder.kind(of: path, followingLinks: false) == .other
    }
  }

  /// The photos an operand stands for: itself (whether it exists or not), or with `recursive`
  /// every photo below a folder. A folder without `recursive`, a device, pipe or socket, and a
  /// file in a format photoedit does not read (`unreadableFormat(of:)`), come back with their
  /// problem.
  ///
  /// With `publishing` (`audit`), a folder stands for every file that would be published with
  /// it: hidden ones too, and the store's own files (see `photos(in:)`).
  public static func entries(
    for path: String, recursive: Bool, skipping: Set<Identity> = [], publishing: Bool = false
  ) -> [Entry] {
    switch kind(of: path) {
    case .regular:
      if !isPhotoName(path), !PhotoPaths.isStoreFile(path), let format = unreadableFormat(of: path) {
        return [Entry(path: path, problem: .unreadableFormat(path: path, format: format))]
      }
      return [Entry(path: path)]
    case .missing: return [Entry(path: path)]
    case .other: return [Entry(path: path, problem: .notRegularFile(path: path))]
    case .directory:
      guard recursive else { return [Entry(path: path, problem: .isFolder)] }
      return photos(in: path, recursive: true, skipping: skipping, publishing: publishing)
    }
  }

  /// The photos in a folder, sorted by path; below it too when `recursive`. Hidden files and
  /// folders (names starting with `.`) are skipped, and so are links to folders (a link loop
  /// would otherwise list one photo many times); links to photos are followed. A photo-named
  /// entry that is not a regular file comes back with its problem. With
  /// `includingEditsWithoutRender`, a sidecar whose photo is missing stands for that photo (so
  /// `status` reports it). A folder in `skipping` (an `--output-dir` inside the walked folder)
  /// is not walked. Any other regular file in a format photoedit does not read (GIF, HEIC, a
  /// camera raw: `unreadableFormat(of:)`) comes back marked `unsupported`, never passed over in
  /// silence; the store's own files never do.
  ///
  /// With `publishing` (`audit`: what a copy of the folder would publish), hidden files and
  /// folders are walked too, and the store's own files (originals, sidecars, journals, locks,
  /// temporary files, whatever they are) are listed as entries of their own.
  public static func photos(
    in folder: String, recursive: Bool, includingEditsWithoutRender: Bool = false,
    skipping: Set<Identity> = [], publishing: Bool = false
  ) -> [Entry] {
    var found: [Entry] = []
    // Each folder still to list, with its path relative to `folder` ("" for `folder` itself).
    var pending = [(path: folder, relative: "")]
    while let (dir, relativeDir) = pending.popLast() {
      guard let names = try? FileSystem.list(dir) else { continue }
      for name in names where publishing || !name.hasPrefix(".") {
        let path = dir == "." && folder == "." ? name : Path.join(dir, name)
        let relative = relativeDir.isEmpty ? name : relativeDir + "/" + name
        if publishing, PhotoPaths.isStoreFile(path), kind(of: path, followingLinks: false) != .directory {
          found.append(Entry(path: path, shardName: relative, relative: relative))
          continue
        }
        switch kind(of: path) {
        case .directory:
          if recursive && kind(of: path, followingLinks: false) == .directory,
            skipping.isEmpty || identity(of: path).map({ !skipping.contains($0) }) ?? false
          {
            pending.append((path, relative))
          }
        case .regular:
          if isPhotoName(name) && !PhotoPaths.isStoreFile(path) {
            found.append(Entry(path: path, shardName: relative, relative: relative))
          } else if !PhotoPaths.isStoreFile(path), let format = unreadableFormat(of: path) {
            // Never passed over in silence: a phone's HEIC photos would keep their faces.
            found.append(Entry(path: path, shardName: relative, relative: relative, unsupported: format))
          }
        case .other:
          if isPhotoName(name) {
            found.append(
              Entry(path: path, problem: .notRegularFile(path: path), shardName: relative, relative: relative)
            )
          }
        case .missing:
          // A dangling link: nothing to report, even when it is named like a sidecar.
          continue
        }
        if includingEditsWithoutRender, name.hasSuffix(PhotoPaths.sidecarSuffix) {
          let photo = String(path.dropLast(PhotoPaths.sidecarSuffix.count))
          if kind(of: photo) == .missing, isPhotoName(photo) {
            let name = String(relative.dropLast(PhotoPaths.sidecarSuffix.count))
            found.append(Entry(path: photo, shardName: name, relative: name))
          }
        }
      }
    }
    return found.sorted { $0.path < $1.path }
  }

  /// Which of `count` shards, numbered from 1, the photo listed as `name` belongs to: the first 8
  /// bytes of the SHA-256 of the name's bytes, read as a big-endian integer, modulo `count`, plus
  /// 1. The name is an entry's `shardName`; its bytes are `PathName.bytes` (no Unicode
  /// normalisation), less any leading `./` (so `find . -name '*.jpg'` lists the names `-r .`
  /// walks). A photo's shard depends on its name alone: adding photos moves none of the others.
  ///
  ///     PhotoFolder.shard(of: "a.jpg", count: 4)   // 3, and always 3
  public static func shard(of name: String, count: Int) -> Int {
    precondition(count > 0, "a shard count must be positive")
    let bytes = PathName.bytes(name)
    var start = 0
    while bytes.count - start > 2, bytes[start] == UInt8(ascii: "."), bytes[start + 1] == UInt8(ascii: "/") {
      start += 2
    }
    let hex = SHA256.hex(Array(bytes[start...]))
    let value = UInt64(hex.prefix(16), radix: 16)!
    return Int(value % UInt64(count)) + 1
  }

  /// The format the regular file `path` is in when it is a photo format photoedit does not read
  /// (`UnreadablePhotoFormat`), from its name and its first bytes, else nil. At most
  /// `UnreadablePhotoFormat.signatureLength` bytes are read, and only from a regular file: the
  /// path is looked at first and opened without blocking (`FileSystem.readPrefix`), so a pipe
  /// or a device is never opened; a link is followed to its file, as a walk follows links to
  /// photos. A file that cannot be read is known by its name alone.
  public static func unreadableFormat(of path: String) -> String? {
    let head =
      (try? FileSystem.readPrefix(path, count: UnreadablePhotoFormat.signatureLength, followingLinks: true))
      ?? []
    return UnreadablePhotoFormat.name(of: path, firstBytes: head)
  }

  /// True when the name ends in a photo extension.
  static func isPhotoName(_ name: String) -> Bool {
    guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return false }
    let ext = String(name[name.index(after: dot)...]).lowercased()
    return !ext.contains("/") && photoExtensions.contains(ext)
  }
}
