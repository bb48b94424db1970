import Recipe
import Synchronization

/// Hooks for the store's tests, keyed by folder so that tests running in parallel in one process
/// do not see each other's. Empty (and a single atomic load) in normal use.
enum TestHooks {
  private struct State {
    /// Called at each crash point reached in the folder (the tests copy the folder there: the
    /// state a kill at that instant would leave).
    var observers: [String: @Sendable (CrashPoint) -> Void] = [:]
    /// Folders where link(2) fails as on a file system without hard links.
    var foldersWithoutHardLinks: Set<String> = []
  }

  private static let active = Atomic<Bool>(false)
  private static let state = Mutex(State())

  static func observe(_ folder: String, _ observer: (@Sendable (CrashPoint) -> Void)?) {
    state.withLock { $0.observers[Path.normalized(folder)] = observer }
    active.store(true, ordering: .sequentiallyConsistent)
  }

  static func setHardLinksUnsupported(_ unsupported: Bool, in folder: String) {
    state.withLock {
      if unsupported {
        $0.foldersWithoutHardLinks.insert(Path.normalized(folder))
      } else {
        $0.foldersWithoutHardLinks.remove(Path.normalized(folder))
      }
    }
    active.store(true, ordering: .sequentiallyConsistent)
  }

  static func crashPointReached(_ point: CrashPoint, in directory: String) {
    guard active.load(ordering: .relaxed) else { return }
    let key = Path.normalized(directory)
    if let observer = state.withLock({ $0.observers[key] }) { observer(point) }
  }

  static func hardLinksUnsupported(for path: String) -> Bool {
    guard active.load(ordering: .relaxed) else { return false }
    let key = Path.normalized(PhotoPaths(path).directory)
    return state.withLock { $0.foldersWithoutHardLinks.contains(key) }
  }
}
