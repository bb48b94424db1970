import Recipe

extension StoreError {
  /// The error of reading `path`: missing, not a regular file, too large, or the system's.
  init(reading path: String, _ error: FileSystem.FileError, data: Bool) {
    if error.isNotFound {
      self = .missing(path: path)
    } else if error.notRegular {
      self = .notRegularFile(path: path)
    } else if let size = error.size, let limit = error.limit {
      self = .fileTooLarge(path: path, size: size, limit: limit, data: data)
    } else {
      self = .cannotRead(path: path, error.system)
    }
  }
}
