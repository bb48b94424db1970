/// What `status` says about a photo.
public enum PhotoState: String, Sendable {
  /// No sidecar, or one whose every change was undone: the photo is as it came (the original's
  /// bytes), and `redo` may still put changes back.
  case unedited
  /// Sidecar, original and render all agree.
  case edited
  /// The render is missing, or was made from an older recipe format: a re-render refreshes it.
  case stale
  /// The render's checksum differs from the sidecar's: another program changed it.
  case modified
  /// The sidecar is unreadable or refused, the original is missing or changed, or an edit was
  /// interrupted.
  case damaged
}

/// Why a photo is stale, modified or damaged.
public indirect enum Problem: Equatable, Sendable {
  /// The render file is missing.
  case renderMissing
  /// Another program changed the render.
  case renderModified
  /// The sidecar has an older format version.
  case olderFormat(version: Int)
  /// A step has an older filter version.
  case olderStepVersion
  /// The photo is damaged: what reading it found.
  case error(StoreError)
}
