import Dispatch

/// Row-parallel work over all cores.
public enum Parallel {
  /// The number of workers kernels split their rows over.
  public static let workerCount = max(1, System.activeProcessorCount)

  /// Calls `body` with disjoint, ordered row ranges that together cover `0..<rows`, on all cores.
  ///
  /// Small jobs (fewer than `minimumRows` rows per worker) run on the calling thread.
  public static func forEachRowRange(
    _ rows: Int, minimumRows: Int = 16, _ body: (Range<Int>) -> Void
  ) {
    guard rows > 0 else { return }
    let chunks = min(workerCount * 4, max(1, rows / minimumRows))
    if chunks <= 1 {
      body(0..<rows)
      return
    }
    // The caller's closure writes disjoint rows, so sharing it across workers is safe.
    forEach(chunks) { i in
      let start = rows * i / chunks
      let end = rows * (i + 1) / chunks
      if start < end { body(start..<end) }
    }
  }

  /// Calls `body` once for each of `0..<count`, on all cores, and returns when all are done.
  /// `body` must write only what its index owns.
  public static func forEach(_ count: Int, _ body: (Int) -> Void) {
    guard count > 1, workerCount > 1 else {
      for i in 0..<max(0, count) { body(i) }
      return
    }
    // Workers draw memory on the caller's account (see `MemoryBudget`).
    let account = MemoryBudget.currentAccount
    withoutActuallyEscaping(body) { body in
      let shared = UncheckedSendable(body)
      DispatchQueue.concurrentPerform(iterations: count) { i in
        MemoryBudget.withAccount(account) { shared.value(i) }
      }
    }
  }
}

/// Carries a value across a concurrency boundary the compiler cannot check.
package struct UncheckedSendable<Value>: @unchecked Sendable {
  package let value: Value
  package init(_ value: Value) { self.value = value }
}

/// The processor count, read without Foundation.
enum System {
  static var activeProcessorCount: Int {
    #if canImport(Glibc)
      return Int(sysconfCPUs())
    #else
      return 1
    #endif
  }
}

#if canImport(Glibc)
  import Glibc
  private func sysconfCPUs() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
#endif
