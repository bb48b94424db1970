import Codecs
import PhotoCore
import Recipe

/// How a command opens a photo (`EditStore.opened(_:for:_:)`).
enum PhotoAccess {
  /// To read it, without a lock: the photo (or its sidecar, or a journal) must exist; a commit
  /// another photoedit has under way is waited for (about two seconds at most), and a journal
  /// still there after that is an interrupted edit, which the photo's state reports.
  case reading
  /// To change it: the photo (or its sidecar, or a journal) must exist; its lock is taken and
  /// what a crash left is finished or cleaned up before anything is read. A dry run takes no
  /// lock and refuses an interrupted edit.
  case writing
  /// To render it again in place (`apply`, `edit`, `undo`, `redo`, `render`): as for writing, and
  /// a name that says no format photoedit writes is refused before the lock is taken.
  case rendering
  /// To write an output (`apply -o`, `render -o`): as for writing, except that the name need not
  /// exist yet; the command has refused it as an output's name already (`refuseStoreFile(_:output:)`,
  /// before anything is opened, so that the command line's names are refused in their order).
  case output
  /// For `check`: nothing is read; with `repair` (and not a dry run) the photo is locked and
  /// what a crash left is finished, the folder scanned for its temporary files even when no lock
  /// file was left.
  case checking(repair: Bool)
}

/// One photo, opened by `EditStore.opened(_:for:_:)`: its folder held (every file of the
/// photo is reached through the one descriptor, `PhotoPaths`), its lock held while writing, and
/// its state read once, when first asked for: the sidecar, the original the sidecar records
/// (read and verified against its size and checksum), the render's checksum. Later questions
/// get the bytes that were verified, never a second read of a file that may have changed since.
///
/// Why the sidecar or the original cannot be used is kept with the photo rather than thrown at
/// the open, so each command decides what it means to it: most refuse the photo, `revert
/// --force` puts the preserved original back anyway, `status` reports the photo damaged.
final class OpenedPhoto {
  let paths: PhotoPaths
  /// The format the photo's name says; never nil for a photo opened for rendering.
  let format: ImageFormat?
  /// What recovery finished or cleaned up before anything was read (writing only).
  let recovery: CrashRecovery
  private let store: EditStore
  private let access: PhotoAccess
  /// Reading: an interrupted edit's journal was there once no commit was under way.
  private let interrupted: Bool
  private var sidecarRead: Result<AdjustmentData.ReadResult, StoreError>??
  private var editRead: Result<EditStore.Edited, StoreError>?

  fileprivate init(_ paths: PhotoPaths, store: EditStore, access: PhotoAccess, recovery: CrashRecovery) {
    (self.paths, self.store, self.access, self.recovery) = (paths, store, access, recovery)
    format = ImageFormat(pathExtension: paths.photo)
    if case .reading = access { interrupted = paths.exists(paths.journalName) } else { interrupted = false }
  }

  /// The sidecar as read and checked: nil when the photo has none (unedited); a failure when it
  /// cannot be used. Read once.
  var sidecar: Result<AdjustmentData.ReadResult, StoreError>? {
    if let sidecarRead { return sidecarRead }
    let read: Result<AdjustmentData.ReadResult, StoreError>?
    do throws(StoreError) { read = try store.loadSidecar(paths).map { .success($0) } } catch {
      read = .failure(error)
    }
    sidecarRead = .some(read)
    return read
  }

  /// True when the photo's preserved original (`PHOTO.original`) is there.
  var hasPreservedOriginal: Bool { paths.exists(paths.originalName) }

  /// The photo's recipe as its sidecar says it; nil for a photo without one.
  ///
  /// - Throws: `.interrupted` (reading an interrupted edit), why the sidecar cannot be used, or
  ///   `.strayOriginal` for a preserved original that no sidecar explains.
  func recipe() throws(StoreError) -> AdjustmentData.ReadResult? {
    if interrupted { throw .interrupted }
    guard let sidecar else {
      if hasPreservedOriginal { throw .strayOriginal(original: paths.original) }
      return nil
    }
    return try sidecar.get()
  }

  /// The photo's edit, its original read and verified once; nil for a photo without a sidecar.
  ///
  /// - Throws: as `recipe()`, then why the original cannot be used, and, when the photo is
  ///   opened for writing (or as an output) without `--force`, `.renderModified` for a render
  ///   changed outside photoedit.
  func edited() throws(StoreError) -> EditStore.Edited? {
    guard let read = try recipe() else { return nil }
    if editRead == nil {
      do throws(StoreError) { editRead = .success(try store.loadEdited(paths, read)) } catch {
        editRead = .failure(error)
      }
    }
    let edited = try editRead!.get()
    switch access {
    case .writing, .rendering, .output:
      if edited.isModified && !store.settings.force { throw .renderModified }
    case .reading, .checking: break
    }
    return edited
  }

  /// The bytes every render starts from: the edit's verified original, or, for a photo without
  /// a sidecar, the photo's own file.
  func originalBytes() throws(StoreError) -> [UInt8] {
    if let edited = try edited() { return edited.originalBytes }
    return try photoBytes()
  }

  /// The photo's own file (a link followed), within the photo size limit.
  func photoBytes() throws(StoreError) -> [UInt8] {
    do { return try paths.read(paths.name, limit: FileLimits.photoBytes, followingLinks: true) } catch {
      throw StoreError(reading: paths.photo, error, data: false)
    }
  }

  /// What a reader makes of the photo: unedited, edited (its edit and recipe), or damaged (why,
  /// and the recipe when it could be read).
  enum State {
    case unedited
    case edited(EditStore.Edited, AdjustmentData.ReadResult)
    case damaged(StoreError, AdjustmentData.ReadResult?)
  }

  var state: State {
    let read: AdjustmentData.ReadResult?
    do { read = try recipe() } catch { return .damaged(error, nil) }
    guard let read else {
      return paths.exists(paths.name) ? .unedited : .damaged(.missing(path: paths.photo), nil)
    }
    do {
      guard let edited = try edited() else { return .unedited }
      return .edited(edited, read)
    } catch {
      return .damaged(error, read)
    }
  }
}

extension EditStore {
  /// Opens a photo for `access` and runs `body` with it: the one way a command reaches a photo's
  /// files. The name is refused when it is one of the store's own files; the photo's folder is
  /// opened once and held; for writing the lock is taken and a crash's leftovers finished or
  /// cleaned up first, and released when `body` returns.
  func opened<T>(_ photo: String, for access: PhotoAccess, _ body: (OpenedPhoto) throws(StoreError) -> T)
    throws(StoreError) -> T
  {
    let paths = PhotoPaths(photo)
    func opening(_ recovery: CrashRecovery) -> OpenedPhoto {
      OpenedPhoto(paths, store: self, access: access, recovery: recovery)
    }
    switch access {
    case .reading:
      try Self.refuseStoreFile(photo)
      if !paths.anythingExists { throw .missing(path: photo) }
      Self.waitWhileAnotherCommandCommits(paths)
      return try body(opening(CrashRecovery()))
    case .writing, .rendering:
      try Self.refuseStoreFile(photo)
      if !paths.anythingExists { throw .missing(path: photo) }
      if case .rendering = access, ImageFormat(pathExtension: photo) == nil {
        throw .unsupportedOutput(path: photo)
      }
      return try locked(paths) { recovery throws(StoreError) in try body(opening(recovery)) }
    case .output:
      return try locked(paths) { recovery throws(StoreError) in try body(opening(recovery)) }
    case .checking(let repair):
      try Self.refuseStoreFile(photo)
      guard repair && !settings.dryRun else { return try body(opening(CrashRecovery())) }
      return try locked(paths, scanFolder: true) { recovery throws(StoreError) in try body(opening(recovery))
      }
    }
  }

  /// Waits (up to about two seconds) while a journal is present and its writer is still alive.
  static func waitWhileAnotherCommandCommits(_ paths: PhotoPaths) {
    for _ in 0..<100 {
      guard paths.exists(paths.journalName), paths.isLocked else { return }
      FileSystem.sleep(microseconds: 20_000)
    }
  }

  /// Refuses a sidecar, a preserved original, or a temporary, lock or journal file as a photo
  /// (`output`: as an output's name, which need not exist). `opened` refuses the photos it opens;
  /// commands call it themselves only for names they check before opening anything (an output,
  /// a link before it is resolved).
  static func refuseStoreFile(_ photo: String, output: Bool = false) throws(StoreError) {
    let name = PhotoPaths(photo).name
    // An input that is not there is missing (66), whatever its name says it would be.
    if !output && PhotoPaths.isStoreFile(photo) && !FileSystem.exists(photo) { throw .missing(path: photo) }
    if name.hasSuffix(PhotoPaths.sidecarSuffix) {
      throw .isSidecar(photo: String(photo.dropLast(PhotoPaths.sidecarSuffix.count)))
    }
    if name.hasSuffix(PhotoPaths.originalSuffix) {
      throw .isPreservedOriginal(photo: String(photo.dropLast(PhotoPaths.originalSuffix.count)))
    }
    if PhotoPaths.isStoreFile(photo) { throw .isStoreFile }
  }

  /// Takes the photo's lock, finishes or cleans up what a crash left, and runs `body`.
  ///
  /// A dry run takes no lock and changes nothing; it refuses a photo with an interrupted edit.
  ///
  /// - Parameter scanFolder: look for a crash's temporary files even when no lock file was left
  ///   (`check --repair`); otherwise the folder is listed only after a crash, so a batch over a
  ///   folder of thousands of photos does not list it once per photo.
  private func locked<T>(
    _ paths: PhotoPaths, scanFolder: Bool = false, _ body: (CrashRecovery) throws(StoreError) -> T
  ) throws(StoreError) -> T {
    if settings.dryRun {
      if paths.exists(paths.journalName) { throw .interrupted }
      return try body(CrashRecovery())
    }
    let lock: FileSystem.Lock
    do {
      lock = try paths.lock(timeout: settings.lockTimeoutSeconds)
    } catch {
      switch error {
      case .busy: throw .busy
      case .notRegular: throw .notRegularFile(path: paths.lock)
      case .system(let e): throw .cannotWrite(path: paths.directory, e.system)
      }
    }
    defer { lock.release() }
    CrashPoint.afterLock.reached(in: paths.directory)
    let recovery = try Recovery.recover(paths, scanForTemporaryFiles: lock.foundLeftover || scanFolder)
    return try body(recovery)
  }

  // MARK: Reading the store

  /// The photo's sidecar, read and checked, or nil when the photo has none (unedited).
  ///
  /// - Throws: `.sidecarUnusable` wrapping why it cannot be used, naming the preserved original
  ///   when there is one (`revert --force` puts it back).
  func loadSidecar(_ paths: PhotoPaths) throws(StoreError) -> AdjustmentData.ReadResult? {
    let bytes: [UInt8]
    do {
      bytes = try paths.read(paths.sidecarName, limit: settings.maxFileBytes, followingLinks: false)
    } catch {
      if error.isNotFound { return nil }
      // A folder where the sidecar belongs is as foreign as a link or a pipe there (65).
      if error.notAStoreFile { throw .notRegularFile(path: paths.sidecar) }
      throw StoreError(reading: paths.sidecar, error, data: true)
    }
    do { return try AdjustmentData.read(bytes, registry: settings.registry) } catch {
      throw .sidecarUnusable(error, original: paths.exists(paths.originalName) ? paths.original : nil)
    }
  }

  /// An edited photo: its sidecar, its verified original, and its current render's checksum.
  struct Edited {
    var paths: PhotoPaths
    var data: AdjustmentData
    var originalPath: String
    var originalBytes: [UInt8]
    /// The render's current checksum, or nil when the render file is missing.
    var renderSHA256: SHA256Digest?
    /// True when the sidecar was migrated in memory and should be written in today's format.
    var migrated: Bool
    var original: AdjustmentData.Original { data.original! }
    var render: RenderRecord { data.render! }
    var isModified: Bool { renderSHA256 != nil && renderSHA256 != render.sha256 }
    /// True when the original is the preserved `.original` beside the photo (in-place edit).
    var originalIsPreserved: Bool { Path.absolute(originalPath) == Path.absolute(paths.original) }
  }

  /// Where a sidecar's original path points, as a path usable from the working folder.
  private static func resolveOriginal(_ path: String, of paths: PhotoPaths) -> String {
    path.hasPrefix("/") ? path : paths.inFolder(path)
  }

  /// The photo's edit, with its original read and verified.
  ///
  /// The sidecar is untrusted, so the original it names is used only when it is this photo's own
  /// `PHOTO.original` (an edit in place), or, for an output made elsewhere, a regular file (no
  /// link, no pipe, no device, of bounded size) that is an image photoedit reads with the recorded size and
  /// checksum: a planted sidecar can only name bytes its author already knows, and only an image
  /// reaches the photo's files. A sidecar naming anything else beside a preserved original is
  /// damage.
  func loadEdited(_ paths: PhotoPaths, _ read: AdjustmentData.ReadResult) throws(StoreError)
    -> Edited
  {
    let data = read.data
    let expected = data.original!
    var originalPath = Self.resolveOriginal(expected.path, of: paths)
    let preserved = Path.absolute(originalPath) == Path.absolute(paths.original)
    if !preserved && paths.exists(paths.originalName) {
      throw .sidecarUnusable(
        .invalidRecipe(.badValue(field: "original.path", value: .string(expected.path))),
        original: paths.original)
    }
    func matches(_ bytes: [UInt8]) -> Bool {
      bytes.count == expected.bytes && SHA256Digest(of: bytes) == expected.sha256
        && engine.format(of: bytes) != nil
    }
    // The recorded size bounds the read: a file of another size is not the original, and is
    // refused from its size alone, before anything is allocated.
    let limit = min(max(expected.bytes, 0), FileLimits.photoBytes)
    var originalBytes: [UInt8]? = nil
    var failure: StoreError? = nil
    // Read in the held folder: the preserved original by its name, another one by the sidecar's
    // path (relative to the photo's folder, or absolute).
    let entry = preserved ? paths.originalName : expected.path
    do {
      let bytes = try paths.read(entry, limit: limit, followingLinks: false)
      if matches(bytes) {
        originalBytes = bytes
      } else {
        failure = .originalChanged(original: originalPath)
      }
    } catch {
      if error.size != nil || error.changed {
        failure = .originalChanged(original: originalPath)
      } else if error.notAStoreFile {
        failure = .originalNotRegular(original: originalPath)
      } else if !error.isNotFound {
        failure = StoreError(reading: originalPath, error, data: false)
      } else if preserved {
        failure = .originalMissing(original: originalPath)
      } else {
        failure = .outputOriginalMissing(original: originalPath)
      }
    }
    // An -o output's original may since have been edited in place itself: its bytes then live on
    // as that photo's preserved `.original`.
    if originalBytes == nil, !originalPath.hasSuffix(PhotoPaths.originalSuffix),
      let bytes = try? paths.read(entry + PhotoPaths.originalSuffix, limit: limit, followingLinks: false),
      matches(bytes)
    {
      originalPath += PhotoPaths.originalSuffix
      originalBytes = bytes
    }
    guard let originalBytes else { throw failure! }
    var renderSHA: SHA256Digest? = nil
    do {
      renderSHA = SHA256Digest(
        of: try paths.read(paths.name, limit: FileLimits.photoBytes, followingLinks: true))
    } catch {
      if !error.isNotFound { throw StoreError(reading: paths.photo, error, data: false) }
    }
    return Edited(
      paths: paths, data: data, originalPath: originalPath, originalBytes: originalBytes,
      renderSHA256: renderSHA, migrated: read.migratedFrom != nil || read.stepsMigrated)
  }
}
