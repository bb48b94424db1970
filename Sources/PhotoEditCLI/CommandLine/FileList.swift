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
          var text = String(decoding: name, as: UTF8.self)
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
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
    else { return [Entry(path: path)] }
    guard recursive else {
      return [Entry(path: path, failure: (ExitStatus.noInput, "is a folder (use -r to walk it)"))]
    }
    return photos(in: path, recursive: true).map { Entry(path: $0) }
  }

  /// The photos in a folder, sorted by path; below it too when `recursive`. With
  /// `includingEditsWithoutRender`, a sidecar whose photo is missing stands for that photo (so
  /// `status` reports it).
  static func photos(in folder: String, recursive: Bool, includingEditsWithoutRender: Bool = false) -> [String] {
    let fm = FileManager.default
    var found: [String] = []
    var pending = [folder]
    while let dir = pending.popLast() {
      guard let names = try? fm.contentsOfDirectory(atPath: dir) else { continue }
      for name in names where !name.hasPrefix(".") {
        let path = dir == "." && folder == "." ? name : (dir as NSString).appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
        if isDirectory.boolValue {
          if recursive { pending.append(path) }
        } else if photoExtensions.contains((name as NSString).pathExtension.lowercased()),
          !EditStore.isStoreFile(path)
        {
          found.append(path)
        } else if includingEditsWithoutRender, name.hasSuffix(sidecarSuffix) {
          let photo = String(path.dropLast(sidecarSuffix.count))
          if !fm.fileExists(atPath: photo),
            photoExtensions.contains((photo as NSString).pathExtension.lowercased())
          {
            found.append(photo)
          }
        }
      }
    }
    return found.sorted()
  }
}
