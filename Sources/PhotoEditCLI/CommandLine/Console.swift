import Recipe
import Store
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Where a command's output goes. The real program writes to the process's streams; tests
/// capture them.
public final class Console: Sendable {
  private let writeOut: @Sendable (String) -> Void
  private let writeErr: @Sendable (String) -> Void
  private let readIn: @Sendable () -> [UInt8]
  /// True when standard error is a terminal (progress bars are drawn only then).
  public let errorIsTerminal: Bool
  private let lock = Mutex(())

  public init(
    out: @escaping @Sendable (String) -> Void,
    err: @escaping @Sendable (String) -> Void,
    readInput: @escaping @Sendable () -> [UInt8] = { [] },
    errorIsTerminal: Bool = false
  ) {
    (writeOut, writeErr, readIn, self.errorIsTerminal) = (out, err, readInput, errorIsTerminal)
  }

  /// The process's own standard streams.
  public static let standard = Console(
    out: { s in try? FileSystem.writeAll(Array(s.utf8), to: 1) },
    err: { s in try? FileSystem.writeAll(Array(s.utf8), to: 2) },
    readInput: { (try? FileSystem.readToEnd(0)) ?? [] },
    errorIsTerminal: isatty(2) == 1)

  // Every text goes out through `PathName.terminalSafe`, so a file name's bytes that are not
  // UTF-8 show as \xHH in messages and JSON alike, and no control character (a terminal's
  // escape sequence) goes out raw. The progress bar's line control is the one escape written.

  /// Writes one line (a newline is added) to standard output.
  public func print(_ line: String) { lock.withLock { _ in writeOut(PathName.terminalSafe(line) + "\n") } }
  /// Writes one line (a newline is added) to standard error.
  public func printError(_ line: String) {
    lock.withLock { _ in writeErr(PathName.terminalSafe(line) + "\n") }
  }
  /// Redraws the line standard error's cursor is on (the progress bar): a carriage return and
  /// the terminal's erase-line, then `text`, without a newline.
  public func redrawErrorLine(_ text: String) {
    lock.withLock { _ in writeErr("\r\u{1B}[K" + PathName.terminalSafe(text)) }
  }
  /// Everything on standard input.
  public func readInput() -> [UInt8] { readIn() }
}
