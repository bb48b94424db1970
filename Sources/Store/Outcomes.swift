import Codecs
import PhotoCore
import Recipe

/// What the store's commands did, as facts; the command line words them (text and JSON), and
/// any other caller can read them the same way.

/// What cleaning up after a crash did before a command's own work.
public struct CrashRecovery: Sendable, Equatable {
  /// A journal of an interrupted edit was found and its edit finished.
  public var finishedEdit = false
  /// Temporary files a crash left were removed.
  public var removedTemporaryFiles = 0
  public init() {}
}

/// `apply`: steps appended and the photo re-rendered.
public struct ApplyOutcome: Sendable {
  /// True when an output was already this request's render of this original: nothing was done.
  public var current = false
  /// Where the render went, when not in place.
  public var output: String?
  /// The new steps, as stored (faceblur's with the faces it found).
  public var added: [Step]
  /// The recipe's steps after the change.
  public var stepCount: Int
  public var renderSHA256: SHA256Digest
  public var dryRun: Bool
  public var recovery: CrashRecovery
  /// Harmless decoder warnings about the original.
  public var warnings: [String]
}

/// `undo` or `redo`.
public struct HistoryOutcome: Sendable {
  /// True for undo, false for redo.
  public var undid: Bool
  /// The change taken back or made again.
  public var change: Change
  public var stepCount: Int
  public var undoneCount: Int
  public var renderSHA256: SHA256Digest
  public var dryRun: Bool
  public var recovery: CrashRecovery
  public var warnings: [String]
  /// True when the render strips identifying metadata: with no step left it is then the
  /// original's pixels without it, not the original's exact bytes.
  public var stripsIdentifying = false
}

/// `edit`: one step changed, removed or moved.
public struct EditOutcome: Sendable {
  public var change: Change
  /// What the change could not carry over (an exclusion whose face is not found again).
  public var notes: [RevisionNote]
  /// The later steps made again because the image entering them changed, with what each could
  /// not carry over.
  public var refreshed: [Refreshed]
  public var stepCount: Int
  public var renderSHA256: SHA256Digest
  public var dryRun: Bool
  public var recovery: CrashRecovery
  public var warnings: [String]
  /// True when the step already was what the edit asks (a move to its own place, values it
  /// already has): nothing was written, and there is nothing to undo.
  public var unchanged = false
  /// True when the step already was what the edit asks but the command line asked something new
  /// of the render (`--strip-identifying`, `--quality`): only the render was made again, and
  /// the history has no new entry.
  public var renderedOnly = false
  /// As `HistoryOutcome.stripsIdentifying`.
  public var stripsIdentifying = false
  /// For an edit asked to record a review state with it: the sidecar's record after it (nil
  /// for none), or why the state was not recorded; nil when none was asked, or nothing was
  /// written (`unchanged`).
  public var review: Result<ReviewRecord?, CorrectionsError.ReviewRefusal>? = nil
}

extension EditOutcome {
  /// A later step made again (step `step`, counting from 1 in the recipe after the change).
  public struct Refreshed: Sendable, Equatable {
    public var step: Int
    public var filter: String
    public var notes: [RevisionNote]
  }
}

/// `revert`.
public struct RevertOutcome: Sendable {
  /// False when the photo was not edited (nothing to do).
  public var reverted: Bool
  /// The original's checksum, when reverted.
  public var originalSHA256: SHA256Digest?
  /// Where the original's bytes came from.
  public var originalPath: String?
  /// Set when an output named for another format than its original got the original encoded in
  /// that format: (the format written, the original's format).
  public var conversion: (written: ImageFormat, original: ImageFormat)?
  /// Set when the sidecar could not be read and `force` put the preserved original back without
  /// verifying it: its size in bytes and modification time (seconds since 1970).
  public var unverified: (bytes: Int, modified: Int)?
  /// The store files removed, by name.
  public var removed: [String] = []
  public var dryRun: Bool
  public var recovery: CrashRecovery
}

/// `render` in place.
public struct RenderOutcome: Sendable {
  /// False when the render was already current (nothing was written).
  public var changed: Bool
  public var renderSHA256: SHA256Digest
  public var stepCount: Int
  public var dryRun: Bool
  public var recovery: CrashRecovery
  public var warnings: [String]
}

/// `render -o`: an export with no sidecar.
public struct ExportOutcome: Sendable {
  public var output: String
  public var width: Int, height: Int
  public var renderSHA256: SHA256Digest
  public var dryRun: Bool
  public var recovery: CrashRecovery
  public var warnings: [String]
  /// True when the output already held exactly this render: nothing was written.
  public var current = false
  /// True when the photo has no edit: the export is the photo as it is.
  public var unedited = false
}

/// A photo's state without changing anything (`status`, `show`, `check`).
public struct PhotoStatus: Sendable {
  public var state: PhotoState
  public var problem: Problem?
  /// The sidecar's data, when it could be read.
  public var data: AdjustmentData?
  /// The version the sidecar had, when it was older.
  public var migratedFrom: Int?
}

/// `check`.
public struct CheckOutcome: Sendable {
  public var state: PhotoState
  /// The recipe's steps, for an edited photo.
  public var stepCount: Int?
  public var recovery: CrashRecovery
  /// The re-render `--repair` made of a stale render.
  public var rerendered: RenderOutcome?
  /// True when repairing left no photo at all (an interrupted first edit of a missing photo).
  public var absent: Bool
}

/// `detect`.
public struct DetectOutcome: Sendable {
  /// The size of the image searched (upright).
  public var width: Int, height: Int
  /// The faces, in the detector's reading order: face #K is faceblur's `exclude=K`.
  public var faces: [Face]
  /// For an edited photo, the original that was searched (not the render), else nil.
  public var searchedOriginal: String?
  /// The detector that searched (`haar`, `centerface`, `centerface+haar`, ...).
  public var detector: String
  public var warnings: [String]
}
