import PhotoCore
import Recipe

extension EditStore {
  /// The portable steps of a sidecar or a recipe file, as requests for other photos (`apply
  /// --recipe`). Derived state (face boxes) is dropped, so faces are found afresh on each photo.
  ///
  /// - Throws: `.emptyRecipe` for a recipe with no steps (a sidecar whose every change was
  ///   undone, say), besides the refusals of reading it.
  public static func recipe(from path: String, limit: Int = FileLimits.defaultDataFileBytes)
    throws(StoreError)
    -> [StepRequest]
  {
    let requests = try AdjustmentData.portableRequests(
      read(path, limit: limit, followingLinks: true, data: true), registry: Filters.all)
    if requests.isEmpty { throw .emptyRecipe }
    return requests
  }

  /// Reads a whole regular file the user named (a brush's strokes file), of at most `limit`
  /// bytes.
  public static func readFile(_ path: String, limit: Int = FileLimits.defaultDataFileBytes) throws(StoreError)
    -> [UInt8]
  {
    if PhotoFolder.kind(of: path) == .directory { throw .isFolder }
    return try read(path, limit: limit, followingLinks: true, data: true)
  }

  /// True for the store's own files (sidecars, preserved originals, temporary, lock and journal
  /// files).
  public static func isStoreFile(_ path: String) -> Bool { PhotoPaths.isStoreFile(path) }

  /// Makes a folder and its missing parents (`--output-dir`); an existing folder is fine.
  ///
  /// - Parameter made: gets each folder this call made, parents first, also when it throws (for
  ///   ``removeFolderIfEmpty(_:)`` to take back); never one that already existed.
  public static func createFolder(_ path: String, made: inout [String]) throws(StoreError) {
    if PhotoFolder.kind(of: path) == .directory { return }
    do {
      try FileSystem.createDirectories(path, made: &made)
    } catch {
      // Another worker may have made it meanwhile.
      if PhotoFolder.kind(of: path) == .directory { return }
      throw .cannotCreateFolder(path: path)
    }
  }

  /// Makes `base` as ``createFolder(_:made:)`` does, then, inside it, the folders that hold the
  /// file `relative` (`a/b` for `a/b/x.jpg`: a walked photo's path, mirrored below
  /// `--output-dir`). Those are photoedit's own: each must be a real folder, so a link planted
  /// there (to another place) is refused, not followed.
  public static func createFolder(_ base: String, for relative: String?, made: inout [String]) throws(StoreError) {
    try createFolder(base, made: &made)
    guard let relative else { return }
    var folder = base
    for part in Path.components(relative).dropLast() {
      folder = Path.join(folder, String(part))
      if PhotoFolder.kind(of: folder, followingLinks: false) == .directory { continue }
      do throws(FileSystem.FileError) {
        try FileSystem.createDirectory(folder)
        made.append(folder)
      } catch {
        // Made by another worker meanwhile is fine; anything else there (a file, a link) is not.
        if PhotoFolder.kind(of: folder, followingLinks: false) == .directory { continue }
        throw .cannotCreateFolder(path: folder)
      }
    }
  }

  /// Removes a folder if it is empty (rmdir(2): a folder with anything in it stays, whoever put
  /// it there); true when it is gone.
  @discardableResult public static func removeFolderIfEmpty(_ path: String) -> Bool {
    FileSystem.removeEmptyDirectory(path)
  }
}
