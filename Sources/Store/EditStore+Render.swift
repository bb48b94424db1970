import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// Re-renders an edited photo in place.
  public func render(_ photo: String) throws(StoreError) -> RenderOutcome {
    try opened(photo, for: .rendering) { opened throws(StoreError) in
      guard let edited = try opened.edited() else { throw .notEdited }
      let (paths, format) = (opened.paths, opened.format!)
      var data = edited.data
      let (bytes, warnings) = try rerender(&data, original: edited.originalBytes, format: format)
      let unchanged = edited.renderSHA256 == data.render!.sha256 && data == edited.data && !edited.migrated
      if !settings.dryRun && !unchanged {
        try commitEdit(
          paths, data: data, render: bytes, preserve: false, access: Self.access(of: paths.name, in: paths))
      }
      return RenderOutcome(
        changed: !unchanged, renderSHA256: data.render!.sha256, stepCount: data.steps.count,
        dryRun: settings.dryRun, recovery: opened.recovery, warnings: warnings)
    }
  }

  /// `render -o OUT`: original + recipe (or the unedited photo) exported to `output`, with no
  /// sidecar. An output that already holds exactly these bytes is left alone (`current`: a
  /// re-run changes nothing, since renders are deterministic); any other existing file needs
  /// `settings.force`.
  ///
  /// Without a sidecar nothing records what an export was made from, so the proof that it is
  /// current is the render itself: a re-run renders again and compares bytes, and saves only
  /// the write.
  ///
  /// - Parameter maxSize: the longest side of the export in pixels (a DCT-scaled decode, then a
  ///   resample).
  public func export(_ named: String, to output: String, maxSize: Int?) throws(StoreError) -> ExportOutcome {
    // The name as given, before a link is resolved: a link named as a store file is refused too.
    try Self.refuseStoreFile(named)
    // A link to a photo exports that photo: its own sidecar says whether it is edited.
    let isLink = PhotoFolder.kind(of: named, followingLinks: false) == .other
    let photo =
      isLink && PhotoFolder.kind(of: named) == .regular ? PhotoFolder.realPath(named) ?? named : named
    try Self.refuseStoreFile(output, output: true)
    if PhotoFolder.kind(of: output) == .directory { throw .outputIsFolder(path: output) }
    guard let format = ImageFormat(pathExtension: output) else { throw .unsupportedOutput(path: output) }
    try refuseSameFile(photo, output)
    var source: [UInt8] = []
    let (steps, existing) = try opened(photo, for: .reading) {
      opened throws(StoreError) -> ([Step], RenderRecord?) in
      guard let edited = try opened.edited() else {
        source = try opened.photoBytes()
        return ([], nil)
      }
      source = edited.originalBytes
      return (edited.data.steps, edited.data.render)
    }
    return try opened(output, for: .output) { opened throws(StoreError) in
      let outPaths = opened.paths
      let exists = outPaths.exists(outPaths.name)
      // Only a regular file can be this render (and reading a pipe there would block).
      let present =
        exists
        ? (try? outPaths.info(outPaths.name, followingLinks: true)).flatMap { $0.isRegular ? $0 : nil } : nil
      if exists && present == nil && !settings.force { throw .exportExists(path: output) }
      let (rendered, bytes, record) = try renderEncoded(
        original: source, steps: steps, maxSize: maxSize, as: format, existing: existing)
      source = []
      var outcome = ExportOutcome(
        output: output, width: rendered.width, height: rendered.height, renderSHA256: record.sha256,
        dryRun: settings.dryRun, recovery: opened.recovery, warnings: rendered.details.warnings)
      outcome.unedited = steps.isEmpty
      if let present, present.size == bytes.count,
        (try? outPaths.read(outPaths.name, limit: bytes.count, followingLinks: false)) == bytes
      {
        outcome.current = true
        return outcome
      }
      if exists && !settings.force { throw .exportExists(path: output) }
      if !settings.dryRun {
        var transaction = Transaction(outPaths)
        let temp = try transaction.stage(
          bytes, access: Self.access(of: outPaths.name, in: outPaths, fallback: photo))
        transaction.add(.replace(temp: temp, role: .render, sha256: record.sha256))
        try transaction.commit()
      }
      return outcome
    }
  }
}
