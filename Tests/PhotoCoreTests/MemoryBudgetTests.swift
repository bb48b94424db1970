import Dispatch
import Glibc
import Synchronization
import Testing

@testable import PhotoCore

/// The process's memory budget (`--max-memory`): what fits is granted, what cannot fit alone is
/// refused at once, what waits for other photos is granted when they give memory back, and no
/// two photos wait for each other.
@Suite struct MemoryBudgetTests {
  /// Runs `body` on a thread of its own (its own account) and returns when it is done.
  final class Worker: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<MemoryBudget.Reservation, MemoryBudget.Exceeded>?>(nil)
    init(_ body: @escaping @Sendable () throws(MemoryBudget.Exceeded) -> MemoryBudget.Reservation) {
      Thread.start { [self] in
        let r = Result { () throws(MemoryBudget.Exceeded) in try body() }
        result.withLock { $0 = r }
        done.signal()
      }
    }
    /// The reservation, or the refusal; fails the test after a minute (only a hang gets there).
    func wait() -> Result<MemoryBudget.Reservation, MemoryBudget.Exceeded>? {
      guard done.wait(timeout: .now() + 60) == .success else { return nil }
      return result.withLock { $0 }
    }
  }

  enum Thread {
    static func start(_ body: @escaping @Sendable () -> Void) {
      DispatchQueue.global().async(execute: body)
    }
  }

  /// Waits (up to a minute, a hang's bound) until `budget` has `count` requests waiting.
  func waitUntil(_ budget: MemoryBudget, hasWaiting count: Int) -> Bool {
    for _ in 0..<60_000 {
      if budget.waitingRequests == count { return true }
      usleep(1000)
    }
    return false
  }

  @Test func whatFitsIsGrantedAndGivenBack() throws {
    let budget = MemoryBudget(limit: 100)
    let a = try budget.reserve(60, for: "decoding")
    let b = try budget.reserve(40, for: "decoding")
    #expect(budget.inUse == 100)
    a.shrink(to: 10)
    #expect(budget.inUse == 50)
    b.release()
    b.release()
    #expect(budget.inUse == 10)
    _ = a
    a.release()
    #expect(budget.inUse == 0)
    #expect(budget.peak == 100)
  }

  @Test func aReservationIsGivenBackWhenItGoes() throws {
    let budget = MemoryBudget(limit: 100)
    do { _ = try budget.reserve(70, for: "decoding") }
    #expect(budget.inUse == 0)
  }

  @Test func tooMuchAloneIsRefusedAtOnce() throws {
    let budget = MemoryBudget(limit: 100 << 20)
    #expect(throws: MemoryBudget.Exceeded(needed: 101 << 20, limit: 100 << 20, purpose: "decoding")) {
      try budget.reserve(101 << 20, for: "decoding")
    }
    let held = try budget.reserve(60 << 20, for: "decoding")
    let refusal = MemoryBudget.Exceeded(
      needed: 50 << 20, limit: 100 << 20, heldByAsker: 60 << 20, purpose: "face detection (Haar)")
    #expect(throws: refusal) { try budget.reserve(50 << 20, for: "face detection (Haar)") }
    #expect(
      refusal.description
        == "face detection (Haar) needs about 50 MiB beside the 60 MiB this photo holds, more than the memory budget of 100 MiB"
    )
    #expect(!budget.takeSharedRefusal())
    _ = held
  }

  /// A request that fits once another photo gives its memory back waits for it.
  @Test func aRequestWaitsForAnotherPhoto() throws {
    let budget = MemoryBudget(limit: 100)
    let held = try budget.reserve(70, for: "decoding")
    let other = Worker { () throws(MemoryBudget.Exceeded) in try budget.reserve(50, for: "decoding") }
    #expect(waitUntil(budget, hasWaiting: 1))
    #expect(budget.inUse == 70)
    held.release()
    let granted = try #require(other.wait()).get()
    #expect(granted.bytes == 50 && budget.inUse == 50 && budget.peak == 70)
  }

  /// Two photos that each hold part of the budget and each need more than is left: the one
  /// that would wait for a photo that is itself waiting is refused (and told so), and the other
  /// goes on when it gives back.
  @Test func twoPhotosNeverWaitForEachOther() throws {
    let budget = MemoryBudget(limit: 100)
    let mine = try budget.reserve(60, for: "decoding")
    let otherHeld = Mutex<MemoryBudget.Reservation?>(nil)
    let other = Worker { () throws(MemoryBudget.Exceeded) in
      otherHeld.withLock { $0 = try? budget.reserve(30, for: "decoding") }
      return try budget.reserve(30, for: "face detection (CenterFace)")
    }
    #expect(waitUntil(budget, hasWaiting: 1))
    #expect(budget.inUse == 90)
    #expect(
      throws: MemoryBudget.Exceeded(
        needed: 20, limit: 100, heldByOthers: 30, heldByAsker: 60, purpose: "face detection (CenterFace)")
    ) { try budget.reserve(20, for: "face detection (CenterFace)") }
    #expect(budget.takeSharedRefusal())
    #expect(!budget.takeSharedRefusal())
    mine.release()
    let granted = try #require(other.wait()).get()
    #expect(granted.bytes == 30 && budget.inUse == 60)
    otherHeld.withLock { $0 = nil }
  }

  /// A photo's workers (`Parallel.forEach`) draw on its account: a worker's request that cannot
  /// fit beside what its own photo holds is refused instead of waiting for a photo that waits
  /// for the worker.
  @Test func workersDrawOnTheirPhotosAccount() throws {
    guard Parallel.workerCount > 1 else { return }
    let budget = MemoryBudget(limit: 100)
    let held = try budget.reserve(60, for: "decoding")
    let refusals = Mutex(0)
    Parallel.forEach(4) { _ in
      do throws(MemoryBudget.Exceeded) {
        _ = try budget.reserve(50, for: "face detection (CenterFace)")
      } catch {
        #expect(error.heldByAsker == 60 && error.heldByOthers == 0)
        refusals.withLock { $0 += 1 }
      }
    }
    #expect(refusals.withLock { $0 } == 4)
    #expect(budget.inUse == 60)
    _ = held
  }
}
