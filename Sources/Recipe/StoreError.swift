/// Why the edit store refused or failed a command on one photo.
///
/// Each case carries the facts; `description` is one line without the photo's own name (the CLI
/// prefixes `photoedit: FILE: `), and `status` is the exit status DESIGN.md assigns to it.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
  // Missing input (66)
  /// The photo (or another input file) does not exist.
  case missing(path: String)
  /// A file could not be read.
  case cannotRead(path: String, reason: String)
  /// The photo has a sidecar but the original it names is gone.
  case originalMissing(original: String)

  // Bad data (65)
  /// The file named is photoedit's preserved original, not a photo to edit.
  case isPreservedOriginal(photo: String)
  /// The file named is a sidecar, not a photo.
  case isSidecar(photo: String)
  /// The file named is one of photoedit's temporary, lock or journal files.
  case isStoreFile
  /// The sidecar or recipe is not valid JSON.
  case invalidJSON(detail: String)
  /// The sidecar's `formatIdentifier` is another tool's.
  case foreignFormat(identifier: String)
  /// The sidecar was written by a newer photoedit.
  case newerFormat(found: Int, supported: Int)
  /// The sidecar names a filter this photoedit does not have.
  case unknownFilter(name: String)
  /// The sidecar or recipe is JSON of the right format but a required field is missing or wrong.
  case invalidRecipe(detail: String)
  /// A filter refused an operation or its parameters.
  case filter(String)
  /// An image could not be decoded or encoded.
  case codec(String)
  /// The preserved original's bytes no longer match the sidecar's checksum.
  case originalChanged(original: String)
  /// A `.original` file exists without a sidecar naming it.
  case strayOriginal(original: String)
  /// A crash left an edit half done; `check --repair` finishes it.
  case interrupted
  /// The store's files disagree in a way no automatic repair may decide.
  case damaged(String)
  /// `undo` with no operation, `redo` with nothing undone.
  case nothingToUndo, nothingToRedo
  /// `render` without `-o` on a photo that has no sidecar.
  case notEdited
  /// The output's extension names no format photoedit writes.
  case unsupportedOutput(path: String)
  /// `render --max-size` without `-o`: a preview never replaces the render.
  case maxSizeNeedsOutput
  /// `check` found a problem it did not (or may not) repair.
  case checkFailed(String)
  /// The output would be the input itself or one of its store files.
  case outputIsInput(path: String)

  // Cannot write (73)
  /// The render was changed by another program since photoedit wrote it.
  case renderModified
  /// The output exists and is not photoedit's own edit of the same original.
  case outputExists(path: String)
  /// `render -o` would replace an existing file (an export never appends to anything).
  case exportExists(path: String)
  /// Another photoedit holds this photo's lock.
  case busy
  /// A write, rename, link, unlink or sync failed; nothing was changed.
  case cannotWrite(path: String, reason: String)

  /// The exit status for this error: 65 bad data, 66 input missing, 73 cannot write.
  public var status: Int32 {
    switch self {
    case .missing, .cannotRead, .originalMissing: 66
    case .renderModified, .outputExists, .exportExists, .busy, .cannotWrite: 73
    default: 65
    }
  }

  public var description: String {
    switch self {
    case .missing: "no such file"
    case .cannotRead(let path, let reason): "cannot read '\(path)': \(reason)"
    case .originalMissing(let original):
      "its original '\(original)' is missing; restore it from a backup, or delete the sidecar to keep the render as a new unedited photo"
    case .isPreservedOriginal(let photo):
      "this is photoedit's preserved original of '\(photo)'; edit '\(photo)' instead, or copy this file under another name"
    case .isSidecar(let photo):
      "this is photoedit's sidecar of '\(photo)'; name the photo '\(photo)' instead"
    case .isStoreFile: "this is one of photoedit's temporary files; name the photo instead"
    case .invalidJSON(let detail): "the sidecar is not valid JSON: \(detail)"
    case .foreignFormat(let identifier):
      "the sidecar's format '\(identifier)' is not photoedit's (org.photoedit.adjustments)"
    case .newerFormat(let found, let supported):
      "the sidecar has format version \(found), newer than this photoedit's \(supported); upgrade photoedit"
    case .unknownFilter(let name): "the recipe uses the unknown filter '\(name)'"
    case .invalidRecipe(let detail): "the recipe is invalid: \(detail)"
    case .filter(let message): message
    case .codec(let message): message
    case .originalChanged(let original):
      "the original '\(original)' no longer matches the sidecar's checksum; run 'photoedit check' and restore it from a backup"
    case .strayOriginal(let original):
      "'\(original)' exists but no sidecar names it; move it away before editing this photo"
    case .interrupted:
      "an interrupted edit was left here; run 'photoedit check --repair' on this photo"
    case .damaged(let reason): "damaged: \(reason)"
    case .nothingToUndo: "nothing to undo"
    case .nothingToRedo: "nothing to redo"
    case .notEdited: "not edited, so there is no render to refresh; give -o FILE to export it"
    case .unsupportedOutput(let path):
      "'\(path)' does not end in .jpg, .jpeg or .png, so its format is unknown"
    case .maxSizeNeedsOutput: "--max-size makes a preview and needs -o FILE"
    case .checkFailed(let reason): reason
    case .outputIsInput(let path): "the output '\(path)' is the input or one of its store files"
    case .renderModified:
      "the render was modified by another program since photoedit wrote it; use --force to overwrite it"
    case .exportExists(let path): "'\(path)' exists; use --force to replace it"
    case .outputExists(let path):
      "'\(path)' exists and is not photoedit's edit of this original; use --force to replace it"
    case .busy: "busy: another photoedit is editing this photo; try again when it is done"
    case .cannotWrite(let path, let reason): "cannot write '\(path)': \(reason); nothing was changed"
    }
  }
}
