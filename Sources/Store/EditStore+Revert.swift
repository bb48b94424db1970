import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// Puts the original's bytes back and removes the sidecar (and, in place, the preserved copy).
  /// An unedited photo is left as it is (a success).
  ///
  /// With `settings.force`, a sidecar that cannot be read (damaged, foreign, newer) does not
  /// block the way back: the preserved `PHOTO.original` beside the photo is put back as it is,
  /// unverified (nothing can verify it without the sidecar), and the store files are removed.
  public func revert(_ photo: String) throws(StoreError) -> RevertOutcome {
    try opened(photo, for: .writing) { opened throws(StoreError) in
      let (paths, recovery) = (opened.paths, opened.recovery)
      let found: Edited?
      do throws(StoreError) { found = try opened.edited() } catch {
        // A sidecar that cannot be used (or names another original beside the preserved one).
        guard settings.force, case .sidecarUnusable(_, let original?) = error else { throw error }
        return try revertUnverified(paths, original: original, recovery: recovery)
      }
      guard let edited = found else {
        return RevertOutcome(reverted: false, dryRun: settings.dryRun, recovery: recovery)
      }
      let originalSHA = edited.original.sha256
      let conversion = try revertConversion(edited, output: photo)
      if !settings.dryRun {
        var transaction = Transaction(paths)
        if edited.originalIsPreserved {
          // The preserved original's own inode goes back under the photo's name.
          let temp = try transaction.stageCopy(
            of: paths.originalName, bytes: edited.originalBytes,
            access: Self.access(of: paths.originalName, in: paths))
          transaction.add(.replace(temp: temp, role: .render, sha256: originalSHA))
          transaction.add(.remove(role: .sidecar, guardSHA256: nil))
          transaction.add(
            .remove(role: .original, guardSHA256: originalSHA))
        } else {
          // An -o output: a copy of the original's bytes, never a link to the input; or, for an
          // output named for another format than the original's, the unedited original encoded
          // in the format its name says (the output's format follows its extension).
          let bytes = conversion?.bytes ?? edited.originalBytes
          let temp = try transaction.stage(
            bytes, access: Self.access(of: paths.name, in: paths, fallback: edited.originalPath))
          transaction.add(
            .replace(temp: temp, role: .render, sha256: conversion?.record.sha256 ?? originalSHA)
          )
          transaction.add(.remove(role: .sidecar, guardSHA256: nil))
        }
        try transaction.commit()
      }
      var outcome = RevertOutcome(
        reverted: true, originalSHA256: originalSHA, originalPath: edited.originalPath,
        dryRun: settings.dryRun,
        recovery: recovery)
      if let conversion { outcome.conversion = (conversion.record.format, conversion.originalFormat) }
      return outcome
    }
  }

  /// Puts `PHOTO.original` back under the photo's name as it is and removes the sidecar.
  private func revertUnverified(_ paths: PhotoPaths, original: String, recovery: CrashRecovery)
    throws(StoreError) -> RevertOutcome
  {
    // `original` is the photo's own preserved original (`PHOTO.original`), read in its folder.
    let entry = paths.originalName
    guard let info = try? paths.info(entry, followingLinks: false), info.isRegular else {
      throw .notRegularFile(path: original)
    }
    let bytes: [UInt8]
    do throws(FileSystem.FileError) {
      bytes = try paths.read(entry, limit: FileLimits.photoBytes, followingLinks: false)
    } catch {
      throw StoreError(reading: original, error, data: false)
    }
    let sha = SHA256Digest(of: bytes)
    let originalName = paths.name + PhotoPaths.originalSuffix
    let sidecarName = paths.name + PhotoPaths.sidecarSuffix
    if !settings.dryRun {
      var transaction = Transaction(paths)
      let temp = try transaction.stageCopy(of: entry, bytes: bytes, access: Self.access(of: entry, in: paths))
      transaction.add(.replace(temp: temp, role: .render, sha256: sha))
      transaction.add(.remove(role: .sidecar, guardSHA256: nil))
      transaction.add(.remove(role: .original, guardSHA256: sha))
      try transaction.commit()
    }
    var outcome = RevertOutcome(
      reverted: true, originalSHA256: sha, originalPath: original, dryRun: settings.dryRun, recovery: recovery
    )
    outcome.unverified = (bytes.count, info.modified)
    outcome.removed = [sidecarName, originalName]
    return outcome
  }

  /// For an -o output whose name says another format than its original's (`apply -o out.png
  /// in.jpg`), the unedited original encoded as the name says: reverting must not leave JPEG
  /// bytes under a .png name. Nil when the original's bytes can go back as they are.
  private func revertConversion(_ edited: Edited, output: String) throws(StoreError)
    -> (bytes: [UInt8], record: RenderRecord, originalFormat: ImageFormat)?
  {
    guard !edited.originalIsPreserved, let wanted = ImageFormat(pathExtension: output),
      let originalFormat = try? ImageCodec.format(of: edited.originalBytes), originalFormat != wanted
    else { return nil }
    let (_, bytes, record) = try renderEncoded(
      original: edited.originalBytes, steps: [], as: wanted, existing: edited.data.render)
    return (bytes, record, originalFormat)
  }
}
