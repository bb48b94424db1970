import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// Large fresh buffers made present in memory on another core while the caller fills them.
///
/// The first write to each 4 KiB page of a fresh allocation traps into the kernel, which finds,
/// zeroes and maps a page: about 60 ms for the 96 MB of a 24 MP RGBA image, all of it on the
/// thread that fills the buffer (the decoder). A helper asks the kernel to map the pages ahead
/// (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14), which changes no byte: a page the filler has
/// already written stays as it is, so the two never race over the contents. Where the kernel
/// lacks it, the call fails and the pages fault as before.
public enum PageFaults {
  /// Buffers smaller than this are filled without a helper.
  static let minimumBytes = 8 << 20

  /// `body`'s result; while it runs, a helper maps the pages of `buffer` (which `body` fills).
  public static func populating<R, E: Error>(
    _ buffer: UnsafeMutableRawBufferPointer, _ body: () throws(E) -> R
  ) throws(E) -> R {
    #if os(Linux)
      guard buffer.count >= minimumBytes, Parallel.workerCount > 1, let base = buffer.baseAddress else {
        return try body()
      }
      let page = Int(sysconf(Int32(_SC_PAGESIZE)))
      let start = (Int(bitPattern: base) + page - 1) / page * page
      let end = (Int(bitPattern: base) + buffer.count) / page * page
      guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return try body() }
      let done = DispatchSemaphore(value: 0)
      let length = end - start
      let address = UncheckedSendable(first)
      DispatchQueue.global().async {
        _ = madvise(address.value, length, 23)  // MADV_POPULATE_WRITE
        done.signal()
      }
      // The helper must be done with the pages before the caller may let the buffer go.
      defer { done.wait() }
      return try body()
    #else
      return try body()
    #endif
  }
}
