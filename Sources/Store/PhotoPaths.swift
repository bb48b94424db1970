import Recipe

/// The names of one photo's files in the store, all in the photo's own folder and all starting
/// with the photo's full name, so `mv beach.jpg* dir/` moves an edit as a whole and `*.jpg`
/// matches none of them.
struct PhotoPaths: Sendable {
  /// The photo (the render, once edited) as the user named it.
  let photo: String
  /// Its folder ("." for a bare name) and its name within the folder.
  let directory: String, name: String
  /// The folder, held open from its first use on: every file operation on the photo's files goes
  /// through it (`FileSystem+Photo.swift`). Copies of these paths share it.
  let held: FileSystem.HeldFolder

  static let sidecarSuffix = ".photoedit.json"
  static let originalSuffix = ".original"
  static let lockSuffix = ".photoedit.lock"
  static let journalSuffix = ".photoedit.journal"
  /// Temporary files are `NAME.photoedit-tmp-<16 hex digits>`.
  static let tempMarker = ".photoedit-tmp-"

  init(_ photo: String) {
    self.photo = photo
    // The last "/" byte: a Character search would miss a slash followed by a combining mark.
    if let slash = photo.utf8.lastIndex(of: UInt8(ascii: "/")) {
      let dir = String(photo[..<slash])
      directory = dir.isEmpty ? "/" : dir
      name = String(photo[photo.index(after: slash)...])
    } else {
      (directory, name) = (".", photo)
    }
    held = FileSystem.HeldFolder(directory)
  }

  var sidecar: String { photo + Self.sidecarSuffix }
  var original: String { photo + Self.originalSuffix }
  var lock: String { photo + Self.lockSuffix }
  var journal: String { photo + Self.journalSuffix }
  var tempPrefix: String { name + Self.tempMarker }

  /// The photo, its sidecar or an interrupted edit's journal exists.
  var anythingExists: Bool {
    exists(name) || exists(sidecarName) || exists(journalName)
  }

  /// A path in the photo's folder.
  func inFolder(_ entry: String) -> String { directory == "." ? entry : Path.join(directory, entry) }

  /// A fresh temporary file name in the photo's folder (the name only).
  func newTempName() -> String {
    let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    return tempPrefix + String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// True when `name` is one of this photo's temporary file names: `NAME.photoedit-tmp-` and 16
  /// lowercase hexadecimal digits, with no folder.
  func isTempName(_ candidate: String) -> Bool {
    guard candidate.hasPrefix(tempPrefix) else { return false }
    let digits = candidate.utf8.dropFirst(tempPrefix.utf8.count)
    return digits.count == 16
      && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// True for a sidecar, a preserved original, or a temporary, lock or journal file.
  static func isStoreFile(_ path: String) -> Bool {
    let name = PhotoPaths(path).name
    return name.hasSuffix(sidecarSuffix) || name.hasSuffix(originalSuffix) || name.hasSuffix(lockSuffix)
      || name.hasSuffix(journalSuffix) || name.contains(tempMarker)
  }
}

/// Path arithmetic on strings (no file system access besides the working folder).
package enum Path {
  package static func join(_ a: String, _ b: String) -> String {
    if b.hasPrefix("/") { return b }
    return a.hasSuffix("/") ? a + b : a + "/" + b
  }

  /// `path` made absolute against the working folder, with "." and ".." and double slashes removed.
  package static func absolute(_ path: String) -> String {
    normalized(path.hasPrefix("/") ? path : join(FileSystem.currentDirectory(), path))
  }

  /// The parts between "/" bytes, none empty. File names are bytes: a split on Characters would
  /// miss a slash followed by a combining mark, and `==` on Strings would take a name in NFC and
  /// the same name in NFD for one file (so parts are compared by their UTF-8).
  package static func components(_ path: String) -> [Substring] {
    path.unicodeScalars.split(separator: "/").map { Substring($0) }
  }

  package static func normalized(_ path: String) -> String {
    var parts: [Substring] = []
    for part in components(path) {
      if part == "." { continue }
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(part)
    }
    return "/" + parts.joined(separator: "/")
  }

  /// `path` made absolute against the working folder as written: single slashes, no trailing
  /// one, "." and ".." kept (a link followed by ".." is the kernel's to resolve).
  package static func anchored(_ path: String) -> String {
    "/"
      + components(path.hasPrefix("/") ? path : join(FileSystem.currentDirectory(), path)).joined(
        separator: "/")
  }

  /// The folder an absolute path is in (`/` for `/` and its entries), split at the last "/" byte.
  package static func parent(_ path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  /// The last name of a path, after its last "/" byte.
  package static func lastName(_ path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// The path of `target` relative to the folder `directory` (both made absolute first).
  static func relative(_ target: String, from directory: String) -> String {
    let to = components(absolute(target))
    let from = components(absolute(directory))
    var common = 0
    while common < to.count, common < from.count, to[common].utf8.elementsEqual(from[common].utf8) {
      common += 1
    }
    let ups = Array(repeating: "..", count: from.count - common)
    let rest = to[common...].map(String.init)
    return (ups + rest).joined(separator: "/")
  }
}
