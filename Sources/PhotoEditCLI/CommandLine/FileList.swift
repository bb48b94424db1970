import Foundation
import Recipe

/// Turns a command's operands into the list of photos to work on.
///
/// `-` reads names from standard input (one per line, or NUL-separated with `-0`). With `-r`, a
/// folder stands for every .jpg, .jpeg and .png below it, sorted, skipping photoedit's own files
/// (sidecars, preserved originals, temporary and lock files). Without `-r`, a folder is an error
/// for that entry, reported like any other failed file.
enum FileList {
  static let photoExtensions: Set<String> = ["jpg", "jpeg", "png"]
  static let sidecarSuffix = ".photoedit.json"

  struct Entry: Sendable {
    var path: String
    /// Set when the entry cannot be worked on at all (a folder without -r).
    var failure: (status: Int32, message: String)?
  }

  static func expand(_ operands: [String], recursive: Bool, nulSeparated: Bool, console: Console)
    -> [Entry]
  {
    var entries: [Entry] = []
    var readStandardInput = false
    for operand in operands {
      if operand == "-" {
        guard !readStandardInput else { continue }
        readStandardInput = true
        let bytes = console.readInput()
        let separator: UInt8 = nulSeparated ? 0 : UInt8(ascii: "\n")
        for name in bytes.split(separator: separator, omittingEmptySubsequences: true) {
          if name.contains(0) {
            // `find -print0` without -0: never cut the name at the NUL (that names another file).
            let shown = PathName.display(PathName.string(Array(name))).replacingOccurrences(
              of: "\0", with: "\\x00")
            entries.append(
              Entry(
                path: shown,
                failure: (ExitStatus.noInput, "the name holds a NUL byte (give -0 for NUL-separated names)")))
            continue
          }
          var text = PathName.string(Array(name))
          if !nulSeparated, text.hasSuffix("\r") { text.removeLast() }
          if !text.isEmpty { entries += expandPath(text, recursive: recursive) }
        }
      } else {
        entries += expandPath(operand, recursive: recursive)
      }
    }
    return entries
  }

  private static func expandPath(_ path: String, recursive: Bool) -> [Entry] {
    switch kind(of: path) {
    case .missing, .regular:
      return [Entry(path: path)]
    case .other:
      return [Entry(path: path, failure: notRegular)]
    case .directory:
      guard recursive else {
        return [Entry(path: path, failure: (ExitStatus.noInput, "is a folder (use -r to walk it)"))]
      }
      return photos(in: path, recursive: true)
    }
  }

  static let notRegular: (status: Int32, message: String) = (
    ExitStatus.dataError, "not a regular file (a device, pipe or socket)"
  )

  enum Kind { case missing, regular, directory, other }

  /// What `path` is, following symbolic links unless `followingLinks` is false (then a link
  /// is `.other`).
  static func kind(of path: String, followingLinks: Bool = true) -> Kind {
    var info = stat()
    let status = PathName.withCString(path) { followingLinks ? stat($0, &info) : lstat($0, &info) }
    guard status == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR: return .directory
    default: return .other
    }
  }

  /// The photos in a folder, sorted by path; below it too when `recursive`. Hidden files and
  /// folders (names starting with `.`) are skipped, and so are links to folders (a link loop
  /// would otherwise list one photo many times); links to photos are followed. A photo-named
  /// entry that is not a regular file comes back as a failure. With
  /// `includingEditsWithoutRender`, a sidecar whose photo is missing stands for that photo (so
  /// `status` reports it).
  static func photos(in folder: String, recursive: Bool, includingEditsWithoutRender: Bool = false) -> [Entry]
  {
    var found: [Entry] = []
    var pending = [folder]
    while let dir = pending.popLast() {
      guard let names = try? FileSystem.list(dir) else { continue }
      for name in names where !name.hasPrefix(".") {
        let path = dir == "." && folder == "." ? name : (dir as NSString).appendingPathComponent(name)
        let isPhotoName = photoExtensions.contains((name as NSString).pathExtension.lowercased())
        switch kind(of: path) {
        case .directory:
          if recursive && kind(of: path, followingLinks: false) == .directory { pending.append(path) }
        case .regular:
          if isPhotoName && !EditStore.isStoreFile(path) { found.append(Entry(path: path)) }
        case .other:
          if isPhotoName { found.append(Entry(path: path, failure: notRegular)) }
        case .missing:
          if includingEditsWithoutRender, name.hasSuffix(sidecarSuffix) {
            // A dangling link named like a sidecar: nothing to report.
            continue
          }
        }
        if includingEditsWithoutRender, name.hasSuffix(sidecarSuffix) {
          let photo = String(path.dropLast(sidecarSuffix.count))
          if kind(of: photo) == .missing,
            photoExtensions.contains((photo as NSString).pathExtension.lowercased())
          {
            found.append(Entry(path: photo))
          }
        }
      }
    }
    return found.sorted { $0.path < $1.path }
  }
}
