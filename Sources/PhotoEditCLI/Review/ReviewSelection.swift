import Recipe
import Store

/// The photos a review covers, each with the name the page and its corrections know it by.
struct ReviewSelection: Sendable {
  struct Photo: Sendable {
    /// The path to read it by.
    var path: String
    /// Its name on the page (`data-photo`) and in the corrections: the path relative to the
    /// folder given, or the path as given.
    var name: String
    /// Why it cannot be reviewed at all (a pipe named like a photo), when so.
    var problem: StoreError?
  }

  var photos: [Photo]
  /// The folder the names are relative to, for `apply --corrections FILE FOLDER`: the folder
  /// given when the operands are one folder, else the current folder.
  var folder: String
  /// How many photos the operands hold, in every shard.
  var total = 0
  /// The format of each photo a walk found that photoedit does not read (in this shard), in
  /// order: not on the page, counted on standard error.
  var skipped: [String] = []

  /// The operands' photos: a folder stands for every photo below it, walked as `status -r` walks
  /// one (no need for `-r`); a file stands for itself. Duplicates (one file named twice) are
  /// kept once.
  ///
  /// With a shard, only the photos of that part (`--shard K/N`, by the names `apply -r` would
  /// shard them by); `total` counts them all.
  ///
  /// - Throws: `UsageError` when two photos would have the same name on the page.
  init(_ operands: [String], shard: Shard? = nil) throws(UsageError) {
    let single = operands.count == 1 && PhotoFolder.kind(of: operands[0]) == .directory
    folder = single ? operands[0] : "."
    photos = []
    var seen: Set<PhotoFolder.Identity> = []
    var names: [String: String] = [:]
    func add(_ entry: PhotoFolder.Entry, name: String) throws(UsageError) {
      if let format = entry.unsupported {
        if shard?.contains(entry) ?? true { skipped.append(format) }
        return
      }
      total += 1
      if let shard, !shard.contains(entry) { return }
      if entry.problem == nil, let id = PhotoFolder.identity(of: entry.path) {
        guard seen.insert(id).inserted else { return }
      }
      let key = PathName.bytes(name).map { String($0, radix: 16) }.joined(separator: ",")
      if let other = names[key] {
        throw UsageError(
          "'\(other)' and '\(entry.path)' would both be '\(name)' on the page; review them separately",
          command: "review")
      }
      names[key] = entry.path
      photos.append(Photo(path: entry.path, name: name, problem: entry.problem))
    }
    for operand in operands {
      if PhotoFolder.kind(of: operand) == .directory {
        for entry in PhotoFolder.photos(in: operand, recursive: true) {
          try add(entry, name: single ? Self.relative(entry.path, to: operand) : entry.path)
        }
      } else {
        for entry in PhotoFolder.entries(for: operand, recursive: false) { try add(entry, name: entry.path) }
      }
    }
  }

  /// `path` without the leading `folder/` a walk of `folder` put on it.
  static func relative(_ path: String, to folder: String) -> String {
    if folder == "." { return path }
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
  }
}
