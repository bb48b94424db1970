import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// Appends steps made of `requests` to the photo's recipe (in place) or to `output`'s (with the
  /// photo as the untouched original), and re-renders from the original.
  ///
  /// - Parameters:
  ///   - requests: filter requests, or a recipe's portable steps, in order.
  ///   - photo: the photo to edit in place, or, with `output`, the original to read.
  ///   - output: where the render and its sidecar go; the input is then left untouched. An
  ///     existing output is made again when it is photoedit's output of the same original and
  ///     request, and otherwise replaced only with `settings.force`.
  public func apply(_ requests: [StepRequest], to photo: String, output: String?) throws(StoreError)
    -> ApplyOutcome
  {
    if let output {
      try Self.refuseStoreFile(output, output: true)
      guard let format = ImageFormat(pathExtension: output) else { throw .unsupportedOutput(path: output) }
      return try apply(requests, input: photo, output: output, format: format)
    }
    return try opened(photo, for: .rendering) { opened throws(StoreError) in
      let paths = opened.paths
      // Preserving a link would keep the link, not the bytes it points to.
      if (try? paths.info(paths.name, followingLinks: false))?.isLink == true,
        (try? paths.info(paths.name, followingLinks: true))?.isRegular == true
      {
        throw .isSymbolicLink
      }
      let base = try opened.edited()?.data
      let originalBytes = try opened.originalBytes()
      var made = try newRecipe(
        requests, base: base, originalBytes: originalBytes,
        originalPath: paths.name + PhotoPaths.originalSuffix, format: opened.format!)
      // The render replaces this name only: another name of the same file (a hard link) goes on
      // showing the photo as it was.
      if base == nil, let links = (try? paths.info(paths.name, followingLinks: true))?.links, links > 1 {
        made.warnings.append(
          links == 2
            ? "the photo has another name (a hard link), which still shows it as it was"
            : "the photo has \(links - 1) other names (hard links), which still show it as it was")
      }
      if !settings.dryRun {
        try commitEdit(
          paths, data: made.data, render: made.bytes, preserve: base == nil,
          access: Self.access(of: paths.name, in: paths))
      }
      return outcome(made, output: nil, recovery: opened.recovery)
    }
  }

  /// `apply -o OUT`: the input is the original; OUT gets the render of the input with exactly
  /// these steps, and the sidecar. Running the same command again gives the same bytes and a
  /// one-step recipe: an OUT that is photoedit's own output of this input and this request is
  /// made again (never appended to), or left as it is when it is already this request's render
  /// (`current`). Anything else at OUT, another request's output of this input included, needs
  /// `settings.force`.
  private func apply(_ requests: [StepRequest], input: String, output: String, format: ImageFormat)
    throws(StoreError) -> ApplyOutcome
  {
    if PhotoFolder.kind(of: output) == .directory { throw .outputIsFolder(path: output) }
    let inputBytes = try opened(input, for: .reading) { input throws(StoreError) in
      if input.paths.exists(input.paths.sidecarName) {
        // Its pixels are a render: taking them as the original would hide the recipe behind them
        // and cost a generation.
        throw .alreadyEdited(sidecar: input.paths.sidecar)
      }
      try refuseSameFile(input.paths.photo, output)
      return try input.photoBytes()
    }
    let inputSHA = SHA256Digest(of: inputBytes)
    let request = requestKey(requests, format: format)
    return try opened(output, for: .output) { opened throws(StoreError) in
      let paths = opened.paths
      let existingSidecar = paths.exists(paths.sidecarName)
      // A preserved original beside OUT makes it a photo edited in place (of a copy of these
      // bytes, perhaps), never an output of this input: it is refused, even with --force.
      let editedInPlace = opened.hasPreservedOriginal
      if existingSidecar, !editedInPlace, let read = try? opened.recipe(),
        read.data.original?.sha256 == inputSHA, let edited = try opened.edited()
      {
        // OUT is photoedit's own output of this same original (read and verified, its render
        // not changed outside photoedit unless --force).
        if read.data.request == request, !edited.migrated, edited.renderSHA256 == edited.render.sha256 {
          var outcome = ApplyOutcome(
            output: output, added: [], stepCount: read.data.steps.count, renderSHA256: edited.render.sha256,
            dryRun: settings.dryRun, recovery: opened.recovery, warnings: [])
          outcome.current = true
          return outcome
        }
        // Another request over the same original: replacing it could publish what it hid (a
        // faceblur run, then a sepia run), so it takes --force, like any other file there. A
        // migrated recipe of the same request is made again without it.
        if read.data.request != request, !settings.force {
          throw .outputMadeOtherwise(path: output, made: read.data.steps, requested: requests.map(\.filter))
        }
      } else if editedInPlace {
        throw .outputEditedInPlace(path: output, original: paths.original)
      } else if paths.exists(paths.name) || existingSidecar {
        if !settings.force { throw .outputExists(path: output) }
      }
      // The original is recorded as the file itself (a link resolved): it is read later without
      // following links.
      let real = FileSystem.realPath(input) ?? input
      var made = try newRecipe(
        requests, base: nil, originalBytes: inputBytes,
        originalPath: Path.relative(real, from: paths.directory), format: format)
      made.data.request = request
      if !settings.dryRun {
        try commitEdit(
          paths, data: made.data, render: made.bytes, preserve: false,
          access: Self.access(of: paths.name, in: paths, fallback: input))
      }
      return outcome(made, output: output, recovery: opened.recovery)
    }
  }

  private struct NewRecipe {
    var data: AdjustmentData
    var bytes: [UInt8]
    var added: [Step]
    var warnings: [String]
  }

  /// The new recipe and its render's bytes.
  private func newRecipe(
    _ requests: [StepRequest], base: AdjustmentData?, originalBytes: [UInt8], originalPath: String,
    format: ImageFormat
  ) throws(StoreError) -> NewRecipe {
    let (rendered, bytes, record) = try renderEncoded(
      original: originalBytes, steps: base?.steps ?? [], adding: requests, as: format, existing: base?.render)
    let original =
      base?.original
      ?? AdjustmentData.Original(
        path: originalPath, sha256: SHA256Digest(of: originalBytes), bytes: originalBytes.count,
        width: rendered.details.fullWidth, height: rendered.details.fullHeight,
        orientation: rendered.details.orientation)
    // The change is remembered for undo; a new change starts a new branch of history (what was
    // undone can no longer be redone).
    var data = (base ?? AdjustmentData(original: original, render: nil, steps: [])).making(
      .apply(added: rendered.added))!
    data.render = record
    return NewRecipe(data: data, bytes: bytes, added: rendered.added, warnings: rendered.details.warnings)
  }

  private func outcome(_ made: NewRecipe, output: String?, recovery: CrashRecovery) -> ApplyOutcome {
    ApplyOutcome(
      output: output, added: made.added, stepCount: made.data.steps.count,
      renderSHA256: made.data.render!.sha256,
      dryRun: settings.dryRun, recovery: recovery, warnings: made.warnings)
  }

  /// The SHA-256 of what an export is asked for: the requests, the encoding settings and the
  /// output's format. Stripped metadata is part of it (kept, the default, is not written, so
  /// earlier outputs keep their keys).
  func requestKey(_ requests: [StepRequest], format: ImageFormat) -> SHA256Digest {
    var settingsObject: [String: JSONValue] = [
      "format": .string(format.rawValue),
      "quality": settings.quality.map { .number(Double($0)) } ?? .null,
      "subsampling": settings.subsampling.map { .string($0.rawValue) } ?? .null,
    ]
    if settings.metadata == .stripped { settingsObject["metadata"] = .string("stripped") }
    let settingsJSON: JSONValue = .object(settingsObject)
    return SHA256Digest(of: JSONCoding.encode(JSONValue.array(requests.map(\.canonical) + [settingsJSON])))
  }

  /// Refuses an output that is the input itself, or one of the input's store files.
  func refuseSameFile(_ input: String, _ output: String) throws(StoreError) {
    let a = Path.absolute(input)
    let b = Path.absolute(output)
    // Compared as bytes: names that differ only in Unicode normalisation are different files.
    if a.utf8.elementsEqual(b.utf8) || PhotoPaths.isStoreFile(output) && b.utf8.starts(with: a.utf8) {
      throw .outputIsInput(path: output)
    }
    if let i = try? FileSystem.info(input), let o = try? FileSystem.info(output), i.isSameFile(as: o) {
      throw .outputIsInput(path: output)
    }
    // Never write over the input's own preserved original or sidecar either.
    let inputPaths = PhotoPaths(input)
    if b == Path.absolute(inputPaths.original) || b == Path.absolute(inputPaths.sidecar) {
      throw .outputIsInput(path: output)
    }
  }
}
