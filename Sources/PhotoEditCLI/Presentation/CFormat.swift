#if canImport(Glibc)
  import Glibc
#endif

/// Numbers formatted as C's `printf` formats them (`%.3f`, `%02d`, `%.5g`): the program's text
/// never depends on a locale (Swift programs run in the C locale, so the decimal point is `.`).
/// Used for the few numbers shown with a fixed precision; everything else uses Swift's own text
/// of a number.
func cFormat(_ format: String, _ arguments: any CVarArg...) -> String {
  withVaList(arguments) { va in
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
      // Every format used is a number's: far shorter than the buffer.
      let n = vsnprintf(buffer.baseAddress!, buffer.count, format, va)
      guard n >= 0 else { return "" }
      return String(
        decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: min(Int(n), buffer.count - 1)),
        as: UTF8.self)
    }
  }
}
