import PhotoCore

extension EditStore {
  /// The portable steps of a sidecar or a recipe file, as requests for other photos (`apply
  /// --recipe`). Derived state (face boxes) is dropped, so faces are found afresh on each photo.
  public static func recipe(from path: String) throws(StoreError) -> [StepRequest] {
    try AdjustmentData.portableRequests(readBytes(path), registry: Filters.all)
  }

  /// Reads a whole regular file the user named (a brush's strokes file).
  public static func readFile(_ path: String) throws(StoreError) -> [UInt8] {
    switch PhotoFolder.kind(of: path) {
    case .other: throw .notRegularFile(path: path)
    case .directory: throw .isFolder
    case .missing, .regular: return try readBytes(path)
    }
  }

  /// Makes a folder and its missing parents (`--output-dir`); an existing folder is fine.
  public static func createFolder(_ path: String) throws(StoreError) {
    if PhotoFolder.kind(of: path) == .directory { return }
    do {
      try FileSystem.createDirectories(path)
    } catch {
      // Another worker may have made it meanwhile.
      if PhotoFolder.kind(of: path) == .directory { return }
      throw .cannotCreateFolder(path: path)
    }
  }
}
