import Foundation
import Synchronization
import Testing

/// A finished child process: its exit status (128 + the signal when a signal ended it), what it
/// wrote, and its peak resident memory in bytes (getrusage's `ru_maxrss` of that one child, from
/// wait4(2)).
struct MeasuredRun {
  var status: Int32
  var out: String
  var err: String
  var peakBytes: Int
}

/// Runs `executable` with `arguments` (photoedit by default), waits for it with wait4(2) so that
/// its own peak memory is known, and kills it if it has not ended after `deadline` seconds (then
/// throws `Hung`: a bound on hanging, not a timing test).
func launchMeasured(
  _ arguments: [String], executable: String = photoeditBinary.path, deadline: Double = 120
) throws -> MeasuredRun {
  let folder = try TemporaryFolder()
  let (outPath, errPath) = (folder.path("out"), folder.path("err"))
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
  defer { for p in argv { free(p) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
  guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
  var status: Int32 = 0
  var usage = rusage()
  let end = Date().addingTimeInterval(deadline)
  var hung = false
  while true {
    let r = wait4(pid, &status, WNOHANG, &usage)
    if r == pid { break }
    if r < 0 && errno != EINTR { throw POSIXError(.ECHILD) }
    if !hung && Date() > end {
      hung = true
      kill(pid, SIGKILL)
    }
    usleep(2000)
  }
  if hung { throw Hung(arguments: arguments) }
  let signal = status & 0x7f
  return MeasuredRun(
    status: signal == 0 ? (status >> 8) & 0xff : 128 + signal,
    out: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
    err: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
    peakBytes: Int(usage.ru_maxrss) * 1024)
}

/// A writer blocked opening a FIFO, as a program waiting for a reader is: the open returns (and
/// `isBlocked` turns false) only when someone opens the FIFO for reading.
final class BlockedFIFOWriter: Sendable {
  let path: String
  private let opened = Mutex(false)

  init(_ path: String) {
    self.path = path
    Thread.detachNewThread { [self] in
      let fd = open(path, O_WRONLY | O_CLOEXEC)
      opened.withLock { $0 = true }
      if fd >= 0 { close(fd) }
    }
  }

  /// True while the writer's open has not returned: nothing opened the FIFO for reading. Looks
  /// without opening anything (a probe that opened the FIFO would itself release the writer).
  var isBlocked: Bool {
    usleep(200_000)  // a released writer's thread sets the flag at once; give it time to run
    return opened.withLock { !$0 }
  }

  /// Releases the writer (opens the FIFO for reading) and waits for its thread.
  func release() {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    for _ in 0..<500 where opened.withLock({ !$0 }) { usleep(10_000) }
    if fd >= 0 { close(fd) }
  }
}
