import Codecs
import PhotoCore

/// Why the edit store refused or failed a command on one photo: the fact, with what it is about.
/// Codec, filter and detector errors are wrapped as they are. The words and the exit status are
/// the caller's (the command line's `ErrorText` and `ExitStatus`).
public enum StoreError: Error, Equatable, Sendable {
  // An input is missing.
  /// The photo (or another input file) does not exist.
  case missing(path: String)
  /// A file could not be read.
  case cannotRead(path: String, SystemError)
  /// The photo has a sidecar but the original it names is gone.
  case originalMissing(original: String)

  // The photo or its store files are not what they should be.
  /// The file named is photoedit's preserved original, not a photo to edit.
  case isPreservedOriginal(photo: String)
  /// The file named is a sidecar, not a photo.
  case isSidecar(photo: String)
  /// The file named is one of the store's temporary, lock or journal files.
  case isStoreFile
  /// The path is a folder, and folders are walked only when asked.
  case isFolder
  /// A device, pipe or socket where a photo or a store file should be (or a symbolic link where
  /// a store file should be).
  case notRegularFile(path: String)
  /// The original a sidecar names is a device, pipe, socket or link: it is never read.
  case originalNotRegular(original: String)
  /// A file larger than its limit (`size` and `limit` in bytes); nothing was allocated.
  case fileTooLarge(path: String, size: Int, limit: Int, data: Bool)
  /// An in-place edit of a symbolic link (its preserved original would be the link).
  case isSymbolicLink
  /// An export of a photo that is itself edited (its pixels are a render).
  case alreadyEdited(sidecar: String)
  /// A name read from a list that holds a NUL byte.
  case nameHoldsNUL
  /// The sidecar or recipe is not valid JSON; `looksLike` says what it seems to be instead.
  case invalidJSON(detail: String, looksLike: ContentKind?)
  /// The sidecar's `formatIdentifier` is another tool's.
  case foreignFormat(identifier: String)
  /// The sidecar was written by a newer photoedit.
  case newerFormat(found: Int, supported: Int)
  /// The sidecar's format version is older than any this photoedit migrates.
  case tooOldFormat(found: Int)
  /// The sidecar or recipe is JSON of the right format, but a field is missing or wrong.
  case invalidRecipe(RecipeProblem)
  /// A recipe given to apply (`apply --recipe`) has no steps: there is nothing to apply.
  case emptyRecipe
  /// A stored step (the `index`-th of `operations`, from 0, when known) or a requested one was
  /// refused.
  case step(index: Int?, FilterError)
  /// An image could not be decoded or encoded.
  case codec(CodecError)
  /// The face detector could not be loaded.
  case detector(DetectorError)
  /// The face search failed.
  case detection(DetectionError)
  /// The sidecar cannot be used (`reason`); `original` names the preserved original beside the
  /// photo that `revert --force` can put back unverified, when there is one.
  indirect case sidecarUnusable(StoreError, original: String?)
  /// The original of an output made elsewhere is not at the path its sidecar records (moved).
  case outputOriginalMissing(original: String)
  /// The original's bytes no longer match the sidecar's checksum.
  case originalChanged(original: String)
  /// A `.original` file exists without a sidecar naming it.
  case strayOriginal(original: String)
  /// A crash left an edit half done.
  case interrupted
  /// The store's files disagree in a way no automatic repair may decide.
  case damaged(Damage)
  /// `undo` with no change to take back, `redo` with nothing undone.
  case nothingToUndo, nothingToRedo
  /// `edit` names a step the recipe does not have (steps count from 1).
  case noSuchStep(step: Int, count: Int)
  /// `edit --set` gives a value that is not of the kind of step `step`'s parameter.
  case badStepValue(step: Int, filter: String, key: String, text: String, expected: ParameterKind)
  /// A re-render in place of a photo that has no sidecar.
  case notEdited
  /// The output's extension names no format photoedit writes.
  case unsupportedOutput(path: String)
  /// A photo named directly in a format photoedit does not read (GIF, BMP, JPEG XL, a camera
  /// raw: `UnreadablePhotoFormat`), known by its signature or its name.
  case unreadableFormat(path: String, format: String)
  /// `check` found the photo in a state other than unedited or edited.
  indirect case checkFailed(PhotoState, Problem?)
  /// The output would be the input itself or one of its store files.
  case outputIsInput(path: String)
  /// The output path is a folder.
  case outputIsFolder(path: String)

  // An output cannot be written.
  /// The render was changed by another program since photoedit wrote it.
  case renderModified
  /// The output exists and is not photoedit's own edit of the same original.
  case outputExists(path: String)
  /// The output is photoedit's own output of the same original, made by another request (its
  /// active steps, and the filters this request asks for): replacing it could drop what it hid.
  case outputMadeOtherwise(path: String, made: [Step], requested: [String])
  /// The output is a photo edited in place (its preserved original beside it): writing an
  /// output there would orphan that original, so not even `--force` does it.
  case outputEditedInPlace(path: String, original: String)
  /// An export would replace an existing file (an export never appends to anything).
  case exportExists(path: String)
  /// Another photoedit holds this photo's lock.
  case busy
  /// A write, rename, link, unlink or sync failed; nothing was changed.
  case cannotWrite(path: String, SystemError)
  /// An output folder could not be made.
  case cannotCreateFolder(path: String)
}

/// A failed system call's errno, with the system's words for it.
public struct SystemError: Error, Equatable, Sendable {
  public var code: Int32
  /// strerror's text, e.g. "Permission denied".
  public var reason: String

  package init(code: Int32, reason: String) { (self.code, self.reason) = (code, reason) }
}

/// What is wrong with a sidecar or recipe that is JSON of the right format.
public enum RecipeProblem: Equatable, Sendable {
  /// A required field is absent (`original`, `operations[2].filter`).
  case missing(field: String)
  /// A field holds a value of the wrong type.
  case wrongType(field: String)
  /// A field holds a value it may not hold (`render.quality` 500).
  case badValue(field: String, value: JSONValue?)
}

/// Files of the store that disagree in a way no automatic repair may decide.
public enum Damage: Equatable, Sendable {
  /// The journal of an interrupted edit cannot be read.
  case unreadableJournal(path: String)
  /// A journal step found a file that is neither the old nor the new version.
  case unexpectedFile(path: String)
  /// The file the journal would preserve as the original changed before it was preserved.
  case originalChangedBeforePreserving(path: String)
  /// A removal's guard found that the photo does not hold the original's bytes.
  case photoIsNotTheOriginal(path: String)
  /// The staged file of a step vanished before the step ran.
  case stagedFileVanished(path: String)
}

/// Why the face detector could not be loaded.
public enum DetectorError: Error, Equatable, Sendable {
  /// The cascade file does not exist; `isDefault` when it is the default path (opencv-data).
  case cascadeMissing(path: String, isDefault: Bool)
  /// The cascade file could not be read.
  case cascadeUnreadable(path: String, SystemError, isDefault: Bool)
  /// The cascade file is not a usable cascade.
  case cascadeInvalid(path: String, CascadeError, isDefault: Bool)
  /// No CenterFace model at any of the paths `searched` (`named` when the user named the one).
  case modelMissing(searched: [String], named: Bool)
  /// The model file could not be read.
  case modelUnreadable(path: String, SystemError)
  /// The model file is not CenterFace's model (the reason).
  case modelInvalid(path: String, String)
}
