import Glibc

/// The memory the whole process may hold for photos' large buffers (`--max-memory`), shared by
/// every photo a batch works on at once.
///
/// Decoding (the frame and the decoder's own buffers, or a band-by-band source's window) and face
/// detection (Haar's grey image and raw windows, CenterFace's network buffers and candidates)
/// draw from it: each asks for what it is about to allocate before allocating it and gives it
/// back when done. Reading a photo's file, encoding and small buffers are not counted. A request that does not
/// fit while other photos hold memory waits until they give enough back. A request refused is
/// one that can never fit: larger than the whole budget with nothing else held, or one that
/// would wait for photos that are themselves all waiting (two photos each holding part of the
/// budget and each needing more): then the later asker is refused, with what the others held.
///
///     let reservation = try MemoryBudget.process.reserve(frameBytes, for: "decoding")
///     defer { reservation.release() }
///
/// Small allocations (a row, a box list, metadata) are not counted: the budget bounds what
/// grows with a photo's size.
///
/// Memory is held by an account: a photo's work, which is its thread and the workers
/// `Parallel.forEach` runs for it (they inherit the caller's account), so that a worker of a
/// photo never waits for memory its own photo holds while that photo waits for the worker.
public final class MemoryBudget: @unchecked Sendable {
  /// The budget every photo of this process draws from.
  public static let process = MemoryBudget(limit: defaultLimit)
  /// The default limit: 2 GiB.
  public static let defaultLimit = 2 << 30

  /// What a refused request asked for, and what the budget was.
  public struct Exceeded: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes asked for.
    public var needed: Int
    /// The budget's limit in bytes.
    public var limit: Int
    /// The bytes other photos held when it was refused (0: it is over the budget on its own,
    /// with what the same photo already holds, `heldByAsker`).
    public var heldByOthers: Int
    /// The bytes the asking photo (its thread) already held.
    public var heldByAsker: Int
    /// What the memory was for: "decoding", "face detection (CenterFace)"...
    public var purpose: String

    public init(needed: Int, limit: Int, heldByOthers: Int = 0, heldByAsker: Int = 0, purpose: String) {
      (self.needed, self.limit, self.heldByOthers, self.heldByAsker, self.purpose) = (
        needed, limit, heldByOthers, heldByAsker, purpose
      )
    }

    public var description: String {
      let base =
        "\(purpose) needs about \(Self.mebibytes(needed)) MiB"
        + (heldByAsker > 0 ? " beside the \(Self.mebibytes(heldByAsker)) MiB this photo holds" : "")
      if heldByOthers > 0 {
        return base
          + " while other photos hold \(Self.mebibytes(heldByOthers)) MiB and wait for more, over the memory"
          + " budget of \(Self.mebibytes(limit)) MiB"
      }
      return base + ", more than the memory budget of \(Self.mebibytes(limit)) MiB"
    }

    /// Bytes in whole MiB, rounded up.
    public static func mebibytes(_ bytes: Int) -> Int {
      bytes / (1 << 20) + (bytes % (1 << 20) == 0 ? 0 : 1)
    }
  }

  /// Memory drawn from a budget; given back by `release()` or when the last reference goes.
  public final class Reservation: @unchecked Sendable {
    private let budget: MemoryBudget
    private let thread: UInt
    /// The bytes held now.
    public private(set) var bytes: Int

    fileprivate init(budget: MemoryBudget, thread: UInt, bytes: Int) {
      (self.budget, self.thread, self.bytes) = (budget, thread, bytes)
    }

    /// Gives back all but `bytes` (a decoder's buffers freed, its frame kept).
    public func shrink(to bytes: Int) {
      let kept = max(0, min(bytes, self.bytes))
      budget.giveBack(self.bytes - kept, thread: thread)
      self.bytes = kept
    }

    /// Gives everything back; calling it again does nothing.
    public func release() { shrink(to: 0) }

    deinit { budget.giveBack(bytes, thread: thread) }
  }

  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private let changed: UnsafeMutablePointer<pthread_cond_t>
  private var limitBytes: Int
  private var held: [UInt: Int] = [:]
  /// Accounts with a request waiting, and how many.
  private var waiting: [UInt: Int] = [:]
  /// Accounts refused while other photos held part of the budget, since they last asked.
  private var refusedSharing: Set<UInt> = []
  private var used = 0
  private var peakUsed = 0

  public init(limit: Int) {
    precondition(limit > 0, "a memory budget must be positive")
    limitBytes = limit
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
    changed = .allocate(capacity: 1)
    changed.initialize(to: pthread_cond_t())
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(lock)
    changed.deallocate()
    lock.deallocate()
  }

  private func locked<T>(_ body: () -> T) -> T {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return body()
  }

  /// The limit in bytes; a command sets it once from `--max-memory` before any photo's work.
  public var limit: Int {
    get { locked { limitBytes } }
    set {
      precondition(newValue > 0, "a memory budget must be positive")
      locked { limitBytes = newValue }
      pthread_cond_broadcast(changed)
    }
  }

  /// The bytes held now, by every photo.
  public var inUse: Int { locked { used } }

  /// The most bytes ever held at once (for tests and reports).
  public var peak: Int { locked { peakUsed } }

  /// Requests waiting now.
  var waitingRequests: Int { locked { waiting.values.reduce(0, +) } }

  /// Draws `bytes` for `purpose`, waiting while other photos hold what it needs.
  ///
  /// - Throws: `Exceeded` when the request can never be met (see the type's description).
  public func reserve(_ bytes: Int, for purpose: String) throws(Exceeded) -> Reservation {
    let bytes = max(0, bytes)
    let thread = Self.currentAccount
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while true {
      let own = held[thread, default: 0]
      let others = used - own
      if bytes <= limitBytes - used {
        held[thread, default: 0] += bytes
        used += bytes
        peakUsed = max(peakUsed, used)
        return Reservation(budget: self, thread: thread, bytes: bytes)
      }
      // Nothing another photo holds could make room, or every photo that holds memory is
      // waiting too (waiting here, holding memory, would wait for ever).
      let alone = others == 0 || bytes > limitBytes - own
      let othersRunning = held.contains { $0.key != thread && $0.value > 0 && waiting[$0.key] == nil }
      if alone || (own > 0 && !othersRunning) {
        if !alone { refusedSharing.insert(thread) }
        throw Exceeded(
          needed: bytes, limit: limitBytes, heldByOthers: alone ? 0 : others, heldByAsker: own,
          purpose: purpose)
      }
      waiting[thread, default: 0] += 1
      pthread_cond_wait(changed, lock)
      waiting[thread] = waiting[thread]! > 1 ? waiting[thread]! - 1 : nil
    }
  }

  /// True when this account was refused memory that other photos held (it may fit when they
  /// are done) since the last call; the flag is cleared. A batch runs such a photo again alone.
  public func takeSharedRefusal() -> Bool {
    let account = Self.currentAccount
    return locked { refusedSharing.remove(account) != nil }
  }

  // MARK: Accounts

  private static let accountKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key for the memory budget")
    return key
  }()

  /// The account this thread's requests draw on: the one `withAccount` set, else the thread's own.
  public static var currentAccount: UInt {
    if let set = pthread_getspecific(accountKey) { return UInt(bitPattern: set) }
    return UInt(bitPattern: Int(bitPattern: pthread_self()))
  }

  /// Runs `body` with this thread's requests drawn on `account` (a worker's, for the photo it
  /// works for).
  public static func withAccount<T>(_ account: UInt, _ body: () throws -> T) rethrows -> T {
    let before = pthread_getspecific(accountKey)
    pthread_setspecific(accountKey, UnsafeRawPointer(bitPattern: account))
    defer { pthread_setspecific(accountKey, before) }
    return try body()
  }

  fileprivate func giveBack(_ bytes: Int, thread: UInt) {
    guard bytes > 0 else { return }
    locked {
      used -= bytes
      let left = held[thread, default: 0] - bytes
      held[thread] = left > 0 ? left : nil
    }
    pthread_cond_broadcast(changed)
  }
}
