import Recipe

/// The fault-injection switch: `PHOTOEDIT_CRASH_AT=<point>` makes photoedit kill itself with
/// SIGKILL, as `kill -9` would, when a command reaches that point. Used by the crash tests; each
/// point is a distinct on-disk state the next command must handle.
enum CrashPoint: String, CaseIterable, Sendable {
  /// The photo's lock is held; nothing written yet.
  case afterLock = "after-lock"
  /// Half of the first temporary file is written, not yet synced.
  case midTemp = "mid-temp"
  /// Every new file is written and synced as a temporary file; no journal yet.
  case afterTemps = "after-temps"
  /// The journal is in place (the commit point); no file replaced yet.
  case afterJournal = "after-journal"
  /// The original is preserved (first edit), or removed (revert).
  case afterOriginal = "after-original"
  /// The sidecar is replaced (or removed, by revert).
  case afterSidecar = "after-sidecar"
  /// The render (or, by revert, the original's bytes) is in place.
  case afterRender = "after-render"
  /// The journal is removed; the lock is still held.
  case afterCommit = "after-commit"

  /// The environment variable that names the point.
  static let variable = "PHOTOEDIT_CRASH_AT"

  /// The point named by the environment, read once; only in test builds (compiled with
  /// `-DPHOTOEDIT_TEST_HOOKS`, as `make test` does): the product never kills itself on request.
  #if PHOTOEDIT_TEST_HOOKS
    static let armed: CrashPoint? = FileSystem.environment(variable).flatMap(CrashPoint.init(rawValue:))
  #else
    static let armed: CrashPoint? = nil
  #endif

  /// Kills the process if `self` is the armed point; tells a test watching `directory`.
  func reached(in directory: String) {
    if CrashPoint.armed == self { FileSystem.killSelf() }
    TestHooks.crashPointReached(self, in: directory)
  }
}
