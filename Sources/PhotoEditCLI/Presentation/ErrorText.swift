import Codecs
import PhotoCore
import Recipe
import Store

/// The one place that turns an error's facts into words and an exit status.
///
/// A message is one line without the file's name (the batch runner prefixes `photoedit: FILE: `).
enum ErrorText {
  /// The exit status and the message for any error a file's work throws.
  static func describe(_ error: any Error) -> (status: Int32, message: String) {
    switch error {
    case let e as StoreError: (ExitStatus.of(e), message(e))
    case let e as FilterWordError: (ExitStatus.usage, message(e))
    case let e as FilterError: (ExitStatus.dataError, message(e))
    case let e as CodecError: (ExitStatus.dataError, message(e))
    case let e as UsageError: (ExitStatus.usage, e.description)
    case let e as CorrectionsError: (ExitStatus.of(e), message(e))
    case let e as ReviewOutput.Failure: (ExitStatus.cannotCreate, message(e))
    default: (ExitStatus.dataError, "\(error)")
    }
  }

  // MARK: The store

  static func message(_ error: StoreError) -> String {
    switch error {
    case .missing: "no such file"
    case .cannotRead(let path, let e): "cannot read '\(path)': \(e.reason)"
    case .originalMissing(let original):
      "its original '\(original)' is missing; restore it from a backup, or delete the sidecar to keep the render as a new unedited photo"
    case .isPreservedOriginal(let photo):
      "this is photoedit's preserved original of '\(photo)'; edit '\(photo)' instead, or copy this file under another name"
    case .isSidecar(let photo): "this is photoedit's sidecar of '\(photo)'; name the photo '\(photo)' instead"
    case .isStoreFile: "this is one of photoedit's temporary files; name the photo instead"
    case .isFolder: "is a folder (use -r to walk it)"
    case .notRegularFile(let path):
      EditStore.isStoreFile(path)
        ? "'\(path)' is not a regular file (a folder, link, pipe or device where photoedit's own file belongs); remove it"
        : "not a regular file (a device, pipe or socket)"
    case .originalNotRegular(let original):
      "its original '\(original)' is not a regular file (a folder, device, pipe, socket or link), so it is never read; put the original back there as a file"
    case .fileTooLarge(let path, let size, let limit, let data):
      "'\(path)' is \(size) bytes, more than the limit of \(limit)"
        + (data ? " (raise it with --max-file-size MB)" : " for a photo file")
    case .isSymbolicLink:
      "is a symbolic link; edit the file it points to, or write the edit elsewhere with -o"
    case .alreadyEdited(let sidecar):
      "this photo is already edited (its recipe is \(sidecar)); apply in place, or export it with 'photoedit render \(String(sidecar.dropLast(".photoedit.json".count))) -o OUT'"
    case .nameHoldsNUL: "the name holds a NUL byte (give -0 for NUL-separated names)"
    case .invalidJSON(let detail, let kind):
      if let kind {
        "this is \(contentName(kind)), not a JSON recipe"
      } else {
        "the sidecar is not valid JSON" + (detail.isEmpty ? "" : ": \(detail)")
      }
    case .foreignFormat(let identifier):
      "the sidecar's format '\(identifier)' is not photoedit's (\(AdjustmentData.identifier))"
    case .newerFormat(let found, let supported):
      "the sidecar has format version \(found), newer than this photoedit's \(supported); upgrade photoedit"
    case .tooOldFormat(let found): "the sidecar's format version \(found) is too old to migrate"
    case .invalidRecipe(let problem): "the recipe is invalid: \(message(problem))"
    case .emptyRecipe: "the recipe has no steps, so there is nothing to apply"
    case .step(_, .unknownFilter(let name)): "the recipe uses the unknown filter '\(name)'"
    case .step(let index?, let e): "step \(index + 1): \(message(e))"
    case .step(nil, let e): message(e)
    case .codec(let e): message(e)
    case .detector(let e): message(e)
    case .detection(let e): message(e)
    case .sidecarUnusable(let e, let original):
      message(e)
        + (original.map {
          "; 'photoedit revert --force' puts its preserved original \($0) back as it is (unverified: nothing can check it without the sidecar)"
        } ?? "")
    case .outputOriginalMissing(let original):
      "its original cannot be found at the recorded path '\(original)' (was it moved?); put it back there, or delete the sidecar to keep this output as a new unedited photo"
    case .noSuchStep(let step, let count):
      count == 0
        ? "has no recipe, so there is no step \(step)"
        : "has no step \(step): its recipe has \(count) step\(count == 1 ? "" : "s") (numbered from 1, as 'photoedit show' lists them)"
    case .badStepValue(let step, let filter, let key, let text, let kind):
      "step \(step) (\(filter)): \(key)='\(text)' is not \(ValueText.expected(kind))"
    case .originalChanged(let original):
      "the original '\(original)' no longer matches the sidecar's checksum; run 'photoedit check' and restore it from a backup"
    case .strayOriginal(let original):
      "'\(original)' exists but no sidecar names it; move it away before editing this photo"
    case .interrupted: "an interrupted edit was left here; run 'photoedit check --repair' on this photo"
    case .damaged(let damage): "damaged: \(message(damage))"
    case .nothingToUndo: "nothing to undo"
    case .nothingToRedo: "nothing to redo"
    case .notEdited: "not edited, so there is no render to refresh; give -o FILE to export it"
    case .unreadableFormat(_, let format): CodecError.unreadableFormat(format).description
    case .unsupportedOutput(let path):
      "'\(path)' does not end in \(FormatRegistry.writableExtensions), so its format is unknown"
    case .checkFailed(let state, let problem): "\(state.rawValue): \(problem.map(message) ?? "")"
    case .outputIsInput(let path): "the output '\(path)' is the input or one of its store files"
    case .outputIsFolder(let path): "the output '\(path)' is a folder"
    case .renderModified:
      "the render was modified by another program since photoedit wrote it; use --force to overwrite it"
    case .exportExists(let path): "'\(path)' exists; use --force to replace it"
    case .outputExists(let path):
      "'\(path)' exists and is not photoedit's edit of this original; use --force to replace it"
    case .outputMadeOtherwise(let path, let made, let requested):
      madeOtherwise(path, made: made, requested: requested)
    case .outputEditedInPlace(let path, let original):
      "'\(path)' is a photo edited in place (its original is '\(original)'); 'photoedit revert' it first, or choose another output"
    case .busy: "busy: another photoedit is editing this photo; try again when it is done"
    case .cannotWrite(let path, let e): "cannot write '\(path)': \(e.reason); nothing was changed"
    case .cannotCreateFolder(let path): "cannot create the output folder '\(path)'"
    }
  }

  /// A second name (a hard link) of a photo edited in place under its first name in this run.
  static func hardLink(of edited: String) -> String {
    "not edited: a hard link to '\(TextEscaping.controls(edited))' (one photo, two names), which was edited there; this name still shows the photo as it was. Remove this name, or make it a copy, and run again"
  }

  /// `'out/x.jpg' was made with faceblur (5 faces hidden); this request has no faceblur; use
  /// --force to replace it`: what replacing another request's output would drop, or, when the
  /// same filters are asked for with other settings, that it was made otherwise.
  static func madeOtherwise(_ path: String, made: [Step], requested: [String]) -> String {
    let steps = made.map { step in
      FileResult.facesHidden(step).map { "\(step.filter) (\(FileResult.count($0.hidden, "face")) hidden)" }
        ?? step.filter
    }
    var dropped: [String] = []
    for step in made where !requested.contains(step.filter) && !dropped.contains(step.filter) {
      dropped.append(step.filter)
    }
    let was = steps.isEmpty ? "no edit" : steps.joined(separator: ", ")
    let differs =
      dropped.isEmpty
      ? "this request's settings differ" : "this request has no \(dropped.joined(separator: " and "))"
    return "'\(path)' was made with \(was); \(differs); use --force to replace it"
  }

  /// Why a photo is stale, modified or damaged, with what to do.
  static func message(_ problem: Problem) -> String {
    switch problem {
    case .renderMissing: "the render is missing; 'photoedit render' recreates it"
    case .renderModified:
      "the render was modified by another program; 'photoedit render --force' replaces it, 'photoedit revert --force' restores the original"
    case .olderFormat(let version): "the sidecar has format version \(version); 'photoedit render' updates it"
    case .olderStepVersion: "an operation has an older filter version; 'photoedit render' updates it"
    case .error(let e): message(e)
    }
  }

  static func message(_ problem: RecipeProblem) -> String {
    switch problem {
    case .missing(let field) where !field.contains(".") && !field.contains("["): "no '\(field)'"
    case .missing(let field): "'\(field)' is missing"
    case .wrongType(let field): "'\(field)' has the wrong type"
    case .badValue("formatVersion", _): "'formatVersion' is not an integer"
    case .badValue("render.quality", let v):
      "'render.quality' is \(v.map(jsonText) ?? "missing"), not a quality in \(EncodeOptions.qualityRange.lowerBound)...\(EncodeOptions.qualityRange.upperBound)"
    case .badValue(let field, let v): "'\(field)' cannot be \(v.map(jsonText) ?? "missing")"
    }
  }

  static func message(_ damage: Damage) -> String {
    switch damage {
    case .unreadableJournal(let path):
      "the journal '\(path)' is unreadable; inspect the photo's files by hand"
    case .unexpectedFile(let path): "'\(path)' is neither the old nor the new version"
    case .originalChangedBeforePreserving(let path): "'\(path)' changed before its original was preserved"
    case .photoIsNotTheOriginal(let path): "'\(path)' does not hold the original's bytes"
    case .stagedFileVanished(let path): "the staged file for '\(path)' vanished"
    }
  }

  static func contentName(_ kind: ContentKind) -> String {
    switch kind {
    case .image(let format): "a \(format.displayName) image"
    case .xml: "an XML file (a cascade?)"
    case .binary: "a binary file"
    }
  }

  // MARK: Review pages

  /// Why a review page cannot be written; the message starts with the path it is about.
  static func message(_ error: ReviewOutput.Failure) -> String {
    switch error {
    case .notAPage(let path): "\(path): exists and is not a photoedit review page; use --force to replace it"
    case .notRegular(let path):
      "\(path): is not a regular file (a pipe, device or socket), so it is never opened; remove it or write the page elsewhere"
    case .notAPreviewsFolder(let path):
      "\(path): exists and is not a review's previews folder; move it away first"
    case .cannotWrite(let path, let reason): "cannot write '\(path)': \(reason); the old page was kept"
    }
  }

  // MARK: Review corrections

  static func message(_ error: CorrectionsError) -> String {
    func field(_ f: String, _ p: CorrectionsError.FieldProblem) -> String {
      switch p {
      case .missing: "'\(f)' is missing"
      case .wrongType: "'\(f)' has the wrong type"
      case .outOfRange(let allowed): "'\(f)' is out of range (allowed: \(allowed))"
      case .tooMany(let limit): "'\(f)' has more than \(limit) entries"
      }
    }
    switch error {
    case .unreadable(let e): return message(e)
    case .invalidJSON(let detail): return "this is not a corrections file: \(detail)"
    case .foreignFormat(let identifier?):
      return "the format '\(identifier)' is not a review's corrections (\(Corrections.identifier))"
    case .foreignFormat(nil):
      return "not a review's corrections file (no formatIdentifier \(Corrections.identifier))"
    case .newerFormat(let found, let supported):
      return
        "the corrections have format version \(found), newer than this photoedit's \(supported); upgrade photoedit"
    case .badField(let f, let p): return "the corrections are invalid: \(field(f, p))"
    case .duplicatePhoto(let photo): return "photo '\(photo)' is named twice"
    case .notUnderFolder(let photo, let folder):
      return "photo '\(photo)' is not a photo under the reviewed folder '\(folder)'"
    case .notFound(let photo, let folder, let recorded):
      return "no photo '\(photo)' under '\(folder)'"
        + (recorded.map { $0 != folder ? " (the page reviewed '\($0)': give that folder)" : "" } ?? "")
    case .photo(let photo, let e): return "photo '\(photo)': \(message(e))"
    case .noFaceblurStep(let photo, let step, let filter?, _):
      return "photo '\(photo)': step \(step) is \(filter), not faceblur"
    case .noFaceblurStep(let photo, let step, nil, let count):
      return count == 0
        ? "photo '\(photo)' has no recipe, so there is no faceblur step \(step)"
        : "photo '\(photo)' has no step \(step): its recipe has \(FileResult.count(count, "step"))"
    case .facesChanged(let photo, let step, let reviewed, let now):
      return
        "photo '\(photo)': step \(step)'s faces are not the ones reviewed (\(reviewed) then, \(now) found now): it was edited since; review it again"
    case .noSuchFace(let photo, let step, let face, let count):
      return
        "photo '\(photo)': step \(step) has no face \(face) (it will have \(FileResult.count(count, "face")), numbered from 0)"
    case .reviewNotRecorded(let photo, let state, let why):
      let what = state == .unreviewed ? "its return to unreviewed" : "its \(state.rawValue) state"
      return switch why {
      case .unedited:
        "photo '\(photo)' is not edited (it has no sidecar), so \(what) is not recorded"
      case .changedSince:
        "photo '\(photo)' was edited since the page was made (its render is not the one reviewed), so \(what) is not recorded; review it again"
      case .renderNotNamed:
        "photo '\(photo)': the page does not say which render it showed (it was made by an older photoedit), so \(what) is not recorded; make the page again"
      case .olderFormat:
        "photo '\(photo)': its sidecar or a step is in an older format, so \(what) is not recorded; run 'photoedit render' on it, then review it again"
      }
    }
  }

  // MARK: Faces

  static func message(_ error: DetectorError) -> String {
    func hint(_ isDefault: Bool) -> String {
      isDefault
        ? "install Debian's opencv-data (apt-get install opencv-data), or name a cascade with --cascade FILE or PHOTOEDIT_CASCADE"
        : "name an OpenCV Haar cascade XML with --cascade FILE or PHOTOEDIT_CASCADE"
    }
    switch error {
    case .cascadeMissing(let path, let isDefault): return "face cascade \(path) not found: \(hint(isDefault))"
    case .cascadeUnreadable(let path, let e, let isDefault):
      return "cannot read face cascade \(path) (\(e.reason)): \(hint(isDefault))"
    case .cascadeInvalid(let path, let e, let isDefault):
      return "face cascade \(path) is not usable: \(e); \(hint(isDefault))"
    case .modelMissing(let searched, let named):
      return named
        ? "CenterFace model \(searched.first ?? "") not found; \(modelSources), where it is found without --model"
        : "CenterFace model not found (looked in \(searched.joined(separator: ", "))): \(modelSources), or name the file with --model FILE or PHOTOEDIT_CENTERFACE"
    case .modelUnreadable(let path, let e):
      return
        "cannot read CenterFace model \(path) (\(e.reason)); name another with --model FILE or PHOTOEDIT_CENTERFACE"
    case .modelInvalid(let path, let why):
      return "\(path) is not CenterFace's model: \(why); \(modelSources)"
    }
  }

  /// Where a user gets the model, with or without photoedit's source.
  private static let modelSources =
    "'make model' in photoedit's source folder fetches it into ~/.cache/photoedit ('make install' also into PREFIX/share/photoedit; without the source, 'man photoedit' under FILES says how)"

  /// A codec's words, with how to raise the memory budget when it is that.
  static func message(_ error: CodecError) -> String {
    switch error {
    case .memoryBudgetExceeded: budgetAdvice(error.description, shared: false)
    case .memoryBudgetShared(let exceeded): budgetAdvice(exceeded)
    default: error.description
    }
  }

  /// A refusal by the memory budget, with how to raise it (and, when other photos held part of
  /// it, how to run fewer at once).
  static func budgetAdvice(_ text: String, shared: Bool) -> String {
    text + "; raise it with --max-memory MB" + (shared ? " or run fewer photos at once with -j" : "")
  }

  /// `budgetAdvice` for the budget's own refusal.
  static func budgetAdvice(_ exceeded: MemoryBudget.Exceeded) -> String {
    budgetAdvice(exceeded.description, shared: exceeded.heldByOthers > 0)
  }

  static func message(_ error: DetectionError) -> String {
    switch error {
    case .tooManyCandidates(let limit):
      "the cascade accepts more than \(limit) windows in this image, nearly all it sees: it is not a usable detector"
    case .tooManyFaceCandidates(let model, let limit):
      "the CenterFace model \(model.isEmpty ? "" : model + " ")finds more than \(limit) face candidates in this image, nearly everywhere it looks: it is not a usable model; 'make model' fetches the right one"
    case .overlapRemovalTooLong(let model, let limit):
      "removing the overlaps of the face candidates the CenterFace model \(model.isEmpty ? "" : model + " ")finds in this image takes more than \(limit) steps: it is not a usable model; 'make model' fetches the right one"
    case .tooManyFaces(let count, let limit):
      "\(count) faces, more than the \(limit) a step stores; nothing was hidden"
    case .memoryBudget(let exceeded): budgetAdvice(exceeded)
    }
  }

  // MARK: Filters

  static func message(_ error: FilterWordError) -> String {
    switch error {
    case .malformed(let filter, let text): "\(filter): expected key=value, got '\(text)'"
    case .duplicate(let filter, let key): "\(filter): parameter '\(key)' is given twice"
    case .badValue(let filter, let key, let text, let kind):
      "\(filter): \(key)='\(text)' is not \(ValueText.expected(kind))"
    case .unreadableFile(let filter, let key, let path, let e):
      "\(filter): \(key) file '\(path)': \(message(e))"
    case .badFile(let filter, let key, let path, let reason): "\(filter): \(key) file '\(path)': \(reason)"
    case .request(.unknownFilter(let name)): "unknown filter '\(name)' (see 'photoedit filters')"
    case .request(let e): message(e)
    }
  }

  /// A filter's refusal; a filter named "" (a value checked against every filter's parameter of
  /// that name, `edit --set`) leaves the name out.
  static func message(_ error: FilterError) -> String {
    func named(_ filter: String) -> String { filter.isEmpty ? "" : "\(filter): " }
    return switch error {
    case .unknownFilter(let name): "unknown filter '\(name)'"
    case .unknownParameter(let filter, let key, let known):
      "\(filter): unknown parameter '\(key)' (known: \(known.joined(separator: ", ")))"
    case .badStoredValue(let filter, let key, let value, let kind):
      "\(filter): \(key)='\(jsonText(value))' is not \(ValueText.range(kind))"
    case .outOfRange(let filter, let key, let value, let kind, let image):
      "\(named(filter))\(key)=\(ValueText.value(value)) is out of range (allowed: \(ValueText.range(kind))"
        + (image.map { "; the image is \($0.width)x\($0.height)" } ?? "") + ")"
    case .strokeOutsideImage(let filter, let key, let file, let stroke, let point, let value, let image):
      "\(named(filter))\(key)\(file.map { " file '\(TextEscaping.controls($0))'" } ?? ""): "
        + "stroke \(stroke), point \(point) (\(ValueText.point(value))) is outside "
        + (image.map { "the \($0.width)x\($0.height) image" }
          ?? "the image (allowed: \(ValueText.range(.point)))")
    case .missingParameter(let filter, let keys) where keys.count == 1:
      "\(filter): parameter '\(keys[0])' is required"
    case .missingParameter(let filter, let keys):
      "\(filter): one of the parameters \(keys.dropLast().map { "'\($0)'" }.joined(separator: ", "))"
        + " or '\(keys.last!)' is required"
    case .conflictingParameters(let filter, let keys):
      "\(filter): parameters \(keys.map { "'\($0)'" }.joined(separator: " and ")) cannot be used together"
    case .newerVersion(let filter, let found, let supported):
      "\(filter): operation version \(found) is newer than this program supports (\(supported))"
    case .unsupportedVersion(let filter, let found):
      "\(filter): operation version \(found) is not one this program reads"
    case .badDerivedState(let filter, let key):
      "\(filter): stored derived state '\(key)' is missing or malformed"
    case .regionOutsideImage(let filter, let b, let image):
      "\(filter): rectangle x=\(ValueText.length(b.x)),y=\(ValueText.length(b.y)),width=\(ValueText.length(b.width)),height=\(ValueText.length(b.height)) leaves the \(image.width)x\(image.height) image"
    case .detection(_, let e): message(e)
    case .noSuchFace(let filter, let face, let found, let added):
      "\(filter): exclude=\(face) names no face "
        + "(the step has \(FileResult.count(found + added, "face")), numbered from 0"
        + (added == 0 ? ")" : ": \(found) found, then \(added) added)")
    case .weakerThanSafe(let filter, let key, let value, let safe):
      "\(named(filter))\(key)=\(ValueText.value(value)) would hide faces too weakly: "
        + (key == "blocks"
          ? "a mosaic finer than \(ValueText.value(safe)) blocks across a face is a thumbnail of it, which a detector still finds"
          : "blocks smaller than \(ValueText.value(safe)) pixels leave small faces as they were")
        + " (allowed: \(key == "blocks" ? "1 to" : "at least") \(ValueText.value(safe)); docs/faces.md)"
    case .faceStillFound(let filter, let face, let finding, let level, let canStrengthen):
      "\(filter): face #\(face) is not hidden: "
        + {
          switch finding {
          case .unchanged(let changed, let pixels):
            "only \(changed) of the \(pixels) pixels at its centre changed"
          case .found(let score):
            "CenterFace still finds it (score \(ValueText.number((score * 1000).rounded() / 1000)))"
          }
        }()
        + (canStrengthen
          ? " at the strongest hiding (level \(level)); hide it with style=solid, a larger scale, or exclude it"
          : " with the settings given (onFound=fail); leave onFound out to hide it more strongly")
    }
  }

  /// Compact JSON text of a value, for messages.
  static func jsonText(_ j: JSONValue) -> String {
    switch j {
    case .null: "null"
    case .bool(let b): b ? "true" : "false"
    case .number(let n): ValueText.number(n)
    case .string(let s): "\"\(s)\""
    case .array(let a): "[" + a.map(jsonText).joined(separator: ",") + "]"
    case .object(let o):
      "{" + o.keys.sorted().map { "\"\($0)\":\(jsonText(o[$0]!))" }.joined(separator: ",") + "}"
    }
  }
}

extension ExitStatus {
  /// A corrections file's problem: the status of the file or photo that could not be read, else
  /// 65 (bad data).
  static func of(_ error: CorrectionsError) -> Int32 {
    switch error {
    case .unreadable(let e): of(e)
    // A file's step or photo that does not fit is bad data in the file, not a usage error.
    case .photo(_, let e): of(e) == usage ? dataError : of(e)
    case .notFound: noInput
    default: dataError
    }
  }

  /// The status DESIGN.md assigns to a store error's fact: 66 when an input is missing (the
  /// photo, its original, the face cascade), 73 when an output cannot be written, 64 for a
  /// request that cannot apply to this photo (a step it does not have, its own store file named
  /// as the photo, the input as the output), 65 for bad data.
  static func of(_ error: StoreError) -> Int32 {
    switch error {
    case .sidecarUnusable(let e, _): of(e)
    case .noSuchStep, .badStepValue, .outputIsInput, .isPreservedOriginal, .isSidecar, .isStoreFile: usage
    case .missing, .cannotRead, .originalMissing, .outputOriginalMissing, .isFolder, .nameHoldsNUL: noInput
    case .detector(.cascadeMissing), .detector(.cascadeUnreadable), .detector(.modelMissing),
      .detector(.modelUnreadable):
      noInput
    case .renderModified, .outputExists, .outputMadeOtherwise, .outputEditedInPlace, .exportExists, .busy,
      .cannotWrite,
      .outputIsFolder,
      .cannotCreateFolder:
      cannotCreate
    default: dataError
    }
  }
}
