import Recipe
import Store

/// Turns a command's operands into the list of photos to work on.
///
/// `-` reads names from standard input (one per line, or NUL-separated with `-0`). With `-r`, a
/// folder stands for every photo of a format photoedit reads (.jpg, .jpeg, .png, .heic, .heif, .hif, .avif, .webp, .tif, .tiff) below it (`PhotoFolder`). Without `-r`, a folder
/// is an error for that entry, reported like any other failed file. A walk also lists the photos
/// in formats photoedit does not read, marked `unsupported`, for the run to count as skipped.
enum FileList {
  /// The entries `operands` name, in order, standard input's read once.
  ///
  /// With `listingFolders` (`status`), a folder, named as an operand or on standard input alike,
  /// stands for the photos in it (below it too when `recursive`), photos whose render is
  /// missing included; otherwise a folder is walked only when `recursive`.
  ///
  /// A folder in `skipping` (the run's `--output-dir`) is never walked into. With `publishing`
  /// (`audit`), a walk lists every file a copy of the folder would publish (`PhotoFolder.photos`).
  static func expand(
    _ operands: [String], recursive: Bool, nulSeparated: Bool, listingFolders: Bool = false,
    skipping: Set<PhotoFolder.Identity> = [], publishing: Bool = false, console: Console
  ) -> [PhotoFolder.Entry] {
    func named(_ name: String) -> [PhotoFolder.Entry] {
      guard listingFolders, PhotoFolder.kind(of: name) == .directory else {
        return PhotoFolder.entries(
          for: name, recursive: recursive, skipping: skipping, publishing: publishing)
      }
      return PhotoFolder.photos(
        in: name, recursive: recursive, includingEditsWithoutRender: true, skipping: skipping)
    }
    var entries: [PhotoFolder.Entry] = []
    var readStandardInput = false
    for operand in operands {
      if operand == "-" {
        guard !readStandardInput else { continue }
        readStandardInput = true
        let separator: UInt8 = nulSeparated ? 0 : UInt8(ascii: "\n")
        for name in console.readInput().split(separator: separator, omittingEmptySubsequences: true) {
          if name.contains(0) {
            // `find -print0` without -0: never cut the name at the NUL (that names another file).
            let shown = PathName.display(PathName.string(Array(name))).replacing(
              "\0", with: "\\x00")
            entries.append(PhotoFolder.Entry(path: shown, problem: .nameHoldsNUL))
            continue
          }
          var text = PathName.string(Array(name))
          if !nulSeparated, text.hasSuffix("\r") { text.removeLast() }
          if !text.isEmpty { entries += named(text) }
        }
      } else {
        entries += named(operand)
      }
    }
    return entries
  }
}
