import Codecs
import PhotoCore

extension Store {
  // MARK: apply

  /// Appends `steps` to the photo's recipe (in place) or to `output`'s (with the photo as the
  /// untouched original), and re-renders from the original.
  func apply(_ steps: [NewStep], to photo: String, output: String?) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let target = output ?? photo
    if let output { try Self.refuseStoreFile(output) }
    guard let format = ImageFormat(pathExtension: target) else { throw .unsupportedOutput(path: target) }
    if let output { return try apply(steps, input: photo, output: output, format: format) }

    let paths = PhotoPaths(photo)
    if !paths.anythingExists { throw .missing(path: photo) }
    return try locked(paths) { outcome throws(StoreError) in
      var base: AdjustmentData? = nil
      let originalBytes: [UInt8]
      if let read = try loadSidecar(paths) {
        let edited = try loadEdited(paths, read)
        try refuseModified(edited)
        base = edited.data
        originalBytes = edited.originalBytes
      } else {
        if FileSystem.exists(paths.original) { throw .strayOriginal(original: paths.original) }
        originalBytes = try Self.readBytes(photo)
      }
      let data = try newRecipe(
        steps, base: base, originalBytes: originalBytes,
        originalPath: paths.name + PhotoPaths.originalSuffix, format: format)
      if !settings.dryRun {
        try commitEdit(
          paths, data: data.0, render: data.1, preserve: base == nil, mode: Self.mode(of: photo))
      }
      var report = applyReport(data.0, added: steps.count, output: nil, outcome: outcome)
      report.warnings = data.2
      return report
    }
  }

  /// `apply -o OUT`: the input is the original; OUT gets the render and the sidecar.
  private func apply(_ steps: [NewStep], input: String, output: String, format: ImageFormat)
    throws(StoreError) -> PhotoReport
  {
    try refuseSameFile(input, output)
    let inputBytes = try Self.readBytes(input)
    let inputSHA = SHA256.hex(inputBytes)
    let paths = PhotoPaths(output)
    return try locked(paths) { outcome throws(StoreError) in
      var base: AdjustmentData? = nil
      let existingSidecar = FileSystem.exists(paths.sidecar)
      if existingSidecar, let read = try? loadSidecar(paths), read.data.original?.sha256 == inputSHA {
        // OUT is photoedit's own edit of this same original: append, exactly as in place.
        let edited = try loadEdited(paths, read)
        try refuseModified(edited)
        base = edited.data
      } else if FileSystem.exists(output) || existingSidecar {
        if !settings.force || FileSystem.exists(paths.original) { throw .outputExists(path: output) }
      }
      let data = try newRecipe(
        steps, base: base, originalBytes: inputBytes,
        originalPath: Path.relative(input, from: paths.directory), format: format)
      if !settings.dryRun {
        try commitEdit(
          paths, data: data.0, render: data.1, preserve: false, mode: Self.mode(of: output, fallback: input))
      }
      var report = applyReport(data.0, added: steps.count, output: output, outcome: outcome)
      report.warnings = data.2
      return report
    }
  }

  /// The new recipe and its render's bytes.
  private func newRecipe(
    _ steps: [NewStep], base: AdjustmentData?, originalBytes: [UInt8], originalPath: String,
    format: ImageFormat
  ) throws(StoreError) -> (AdjustmentData, [UInt8], [String]) {
    let (rendered, bytes, renderInfo) = try renderEncoded(
      original: originalBytes, operations: base?.operations ?? [], adding: steps, as: format,
      existing: base?.render)
    let operations = (base?.operations ?? []) + rendered.added
    let original =
      base?.original
      ?? AdjustmentData.Original(
        path: originalPath, sha256: SHA256.hex(originalBytes), bytes: originalBytes.count,
        width: rendered.decoded.fullWidth, height: rendered.decoded.fullHeight,
        orientation: rendered.decoded.orientation)
    // A new edit starts a new branch of history: what was undone can no longer be redone.
    let data = AdjustmentData(original: original, render: renderInfo, operations: operations, undone: [])
    return (data, bytes, rendered.decoded.warnings)
  }

  private func refuseSameFile(_ input: String, _ output: String) throws(StoreError) {
    let a = Path.absolute(input)
    let b = Path.absolute(output)
    // Compared as bytes: names that differ only in Unicode normalisation are different files.
    if a.utf8.elementsEqual(b.utf8) || PhotoPaths.isStoreFile(output) && b.utf8.starts(with: a.utf8) {
      throw .outputIsInput(path: output)
    }
    if let i = try? FileSystem.info(input), let o = try? FileSystem.info(output),
      i.device == o.device && i.inode == o.inode
    {
      throw .outputIsInput(path: output)
    }
    // Never write over the input's own preserved original or sidecar either.
    let inputPaths = PhotoPaths(input)
    if b == Path.absolute(inputPaths.original) || b == Path.absolute(inputPaths.sidecar) {
      throw .outputIsInput(path: output)
    }
  }

  private func applyReport(
    _ data: AdjustmentData, added: Int, output: String?, outcome: Recovery.Outcome
  ) -> PhotoReport {
    var report = PhotoReport(fields: [
      "operations": .number(Double(data.operations.count)),
      "added": .array(data.operations.suffix(added).map { .string($0.filter) }),
      "render": .string(data.render!.sha256),
    ])
    if let output { report.fields["output"] = .string(output) }
    if settings.dryRun { report.fields["dryRun"] = .bool(true) }
    report.lines += outcome.lines
    let names = data.operations.suffix(added).map(\.filter).joined(separator: ", ")
    let verb = settings.dryRun ? "would apply" : "applied"
    report.lines.append(
      "\(verb) \(names)\(output.map { " to \($0)" } ?? "") (\(Self.count(data.operations.count, "operation")))"
    )
    return report
  }

  static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

  // MARK: undo, redo

  /// Moves the last operation to `undone` (undo) or back (redo), and re-renders.
  func step(_ photo: String, undo: Bool) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    if !paths.anythingExists { throw .missing(path: photo) }
    guard let format = ImageFormat(pathExtension: photo) else { throw .unsupportedOutput(path: photo) }
    return try locked(paths) { outcome throws(StoreError) in
      guard let read = try loadSidecar(paths) else { throw undo ? .nothingToUndo : .nothingToRedo }
      let edited = try loadEdited(paths, read)
      try refuseModified(edited)
      var data = edited.data
      let moved: Operation
      if undo {
        guard let last = data.operations.popLast() else { throw .nothingToUndo }
        data.undone.append(last)
        moved = last
      } else {
        guard let last = data.undone.popLast() else { throw .nothingToRedo }
        data.operations.append(last)
        moved = last
      }
      let (bytes, warnings) = try rerender(&data, original: edited.originalBytes, format: format)
      if !settings.dryRun {
        try commitEdit(paths, data: data, render: bytes, preserve: false, mode: Self.mode(of: photo))
      }
      var report = PhotoReport(fields: [
        "operations": .number(Double(data.operations.count)),
        "undone": .number(Double(data.undone.count)),
        (undo ? "removed" : "restored"): .string(moved.filter),
        "render": .string(data.render!.sha256),
      ])
      report.lines = outcome.lines
      report.warnings = warnings
      let verb = settings.dryRun ? (undo ? "would undo" : "would redo") : (undo ? "undid" : "redid")
      report.lines.append(
        "\(verb) \(moved.filter) (\(Self.count(data.operations.count, "operation")), \(data.undone.count) undone)"
      )
      return report
    }
  }

  /// Renders `data`'s operations from the original and records the new render in `data`.
  private func rerender(_ data: inout AdjustmentData, original: [UInt8], format: ImageFormat)
    throws(StoreError) -> (bytes: [UInt8], warnings: [String])
  {
    let (rendered, bytes, info) = try renderEncoded(
      original: original, operations: data.operations, as: format, existing: data.render)
    data.render = info
    return (bytes, rendered.decoded.warnings)
  }

  // MARK: revert

  /// Puts the original's bytes back and removes the sidecar (and, in place, the preserved copy).
  func revert(_ photo: String) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    if !paths.anythingExists { throw .missing(path: photo) }
    return try locked(paths) { outcome throws(StoreError) in
      guard let read = try loadSidecar(paths) else {
        if FileSystem.exists(paths.original) { throw .strayOriginal(original: paths.original) }
        var report = PhotoReport(fields: ["reverted": .bool(false)], lines: outcome.lines)
        report.lines.append("unedited; nothing to revert")
        return report
      }
      let edited = try loadEdited(paths, read)
      try refuseModified(edited)
      let originalSHA = edited.original.sha256
      let conversion = try revertConversion(edited, output: photo)
      if !settings.dryRun {
        var transaction = Transaction(paths)
        let sidecarName = paths.name + PhotoPaths.sidecarSuffix
        if edited.originalIsPreserved {
          // The preserved original's own inode goes back under the photo's name.
          let originalName = paths.name + PhotoPaths.originalSuffix
          let temp = try transaction.stageCopy(
            of: paths.original, bytes: edited.originalBytes, mode: Self.mode(of: paths.original))
          transaction.add(.replace(temp: temp, target: paths.name, sha256: originalSHA, role: .render))
          transaction.add(.remove(target: sidecarName, guardPath: nil, guardSHA256: nil, role: .sidecar))
          transaction.add(
            .remove(target: originalName, guardPath: paths.name, guardSHA256: originalSHA, role: .original))
        } else if let conversion {
          // An -o output named for another format than the original's: the unedited original,
          // encoded in the format its name says (the output's format follows its extension).
          let temp = try transaction.stage(
            conversion.bytes, mode: Self.mode(of: photo, fallback: edited.originalPath))
          transaction.add(
            .replace(temp: temp, target: paths.name, sha256: conversion.info.sha256, role: .render))
          transaction.add(.remove(target: sidecarName, guardPath: nil, guardSHA256: nil, role: .sidecar))
        } else {
          // An -o output: a copy of the original's bytes, never a link to the input.
          let temp = try transaction.stage(
            edited.originalBytes, mode: Self.mode(of: photo, fallback: edited.originalPath))
          transaction.add(.replace(temp: temp, target: paths.name, sha256: originalSHA, role: .render))
          transaction.add(.remove(target: sidecarName, guardPath: nil, guardSHA256: nil, role: .sidecar))
        }
        try transaction.commit()
      }
      var report = PhotoReport(
        fields: ["reverted": .bool(true), "original": .string(originalSHA)], lines: outcome.lines)
      if let conversion {
        report.fields["converted"] = .string(conversion.info.format)
        report.lines.append(
          "\(settings.dryRun ? "would revert" : "reverted") to the original, re-encoded as "
            + "\(conversion.info.format.uppercased()) for this name (the original, \(edited.originalPath), is "
            + "a \(conversion.originalFormat.rawValue.uppercased()))")
      } else {
        report.lines.append(
          settings.dryRun
            ? "would revert to the original" : "reverted to the original (sha256 \(originalSHA.prefix(12)))")
      }
      return report
    }
  }

  /// For an -o output whose name says another format than its original's (`apply -o out.png
  /// in.jpg`), the unedited original encoded as the name says: reverting must not leave JPEG
  /// bytes under a .png name. Nil when the original's bytes can go back as they are.
  private func revertConversion(_ edited: Edited, output: String) throws(StoreError)
    -> (bytes: [UInt8], info: AdjustmentData.Render, originalFormat: ImageFormat)?
  {
    guard !edited.originalIsPreserved, let wanted = ImageFormat(pathExtension: output),
      let originalFormat = try? ImageCodec.format(of: edited.originalBytes), originalFormat != wanted
    else { return nil }
    let (_, bytes, info) = try renderEncoded(
      original: edited.originalBytes, operations: [], as: wanted, existing: edited.data.render)
    return (bytes, info, originalFormat)
  }

  // MARK: render

  /// Re-renders an edited photo in place, or exports any photo to `output`.
  func render(_ photo: String, output: String?, maxSize: Int?) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    if let output { return try export(photo, output: output, maxSize: maxSize) }
    if maxSize != nil { throw .maxSizeNeedsOutput }
    if !paths.anythingExists { throw .missing(path: photo) }
    guard let format = ImageFormat(pathExtension: photo) else { throw .unsupportedOutput(path: photo) }
    return try locked(paths) { outcome throws(StoreError) in
      guard let read = try loadSidecar(paths) else {
        if FileSystem.exists(paths.original) { throw .strayOriginal(original: paths.original) }
        throw .notEdited
      }
      let edited = try loadEdited(paths, read)
      try refuseModified(edited)
      var data = edited.data
      let (bytes, warnings) = try rerender(&data, original: edited.originalBytes, format: format)
      let unchanged = edited.renderSHA256 == data.render!.sha256 && data == edited.data && !edited.migrated
      if !settings.dryRun && !unchanged {
        try commitEdit(paths, data: data, render: bytes, preserve: false, mode: Self.mode(of: photo))
      }
      var report = PhotoReport(
        fields: ["render": .string(data.render!.sha256), "changed": .bool(!unchanged)], lines: outcome.lines,
        warnings: warnings)
      report.lines.append(
        unchanged
          ? "render is current"
          : "\(settings.dryRun ? "would re-render" : "re-rendered") (\(Self.count(data.operations.count, "operation")))"
      )
      return report
    }
  }

  /// `render -o OUT`: original + recipe (or the unedited photo) exported, with no sidecar.
  private func export(_ photo: String, output: String, maxSize: Int?) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(output)
    guard let format = ImageFormat(pathExtension: output) else { throw .unsupportedOutput(path: output) }
    try refuseSameFile(photo, output)
    let paths = PhotoPaths(photo)
    Self.waitWhileAnotherCommandCommits(paths)
    if FileSystem.exists(paths.journal) { throw .interrupted }
    var source: [UInt8]
    var operations: [Operation] = []
    var existing: AdjustmentData.Render? = nil
    if let read = try loadSidecar(paths) {
      let edited = try loadEdited(paths, read)
      (source, operations, existing) = (edited.originalBytes, edited.data.operations, edited.data.render)
    } else {
      if FileSystem.exists(paths.original) { throw .strayOriginal(original: paths.original) }
      source = try Self.readBytes(photo)
    }
    let outPaths = PhotoPaths(output)
    return try locked(outPaths) { outcome throws(StoreError) in
      if FileSystem.exists(output) && !settings.force { throw .exportExists(path: output) }
      let (rendered, bytes, info) = try renderEncoded(
        original: source, operations: operations, maxSize: maxSize, as: format, existing: existing)
      source = []
      if !settings.dryRun {
        var transaction = Transaction(outPaths)
        let temp = try transaction.stage(bytes, mode: Self.mode(of: output, fallback: photo))
        transaction.add(.replace(temp: temp, target: outPaths.name, sha256: info.sha256, role: .render))
        try transaction.commit()
      }
      var report = PhotoReport(
        fields: [
          "output": .string(output), "width": .number(Double(rendered.width)),
          "height": .number(Double(rendered.height)), "render": .string(info.sha256),
        ], lines: outcome.lines, warnings: rendered.decoded.warnings)
      report.lines.append(
        "\(settings.dryRun ? "would export" : "exported") \(output) (\(rendered.width)x\(rendered.height))"
      )
      return report
    }
  }
}

extension Recovery.Outcome {
  /// What recovery did, as report lines.
  var lines: [String] {
    var lines: [String] = []
    if finishedEdit { lines.append("finished an edit that a crash had interrupted") }
    if removedTemporaryFiles > 0 {
      lines.append("removed \(Store.count(removedTemporaryFiles, "temporary file")) a crash left behind")
    }
    return lines
  }
}
