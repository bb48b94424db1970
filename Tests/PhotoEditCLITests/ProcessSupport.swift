import Foundation
import Synchronization
import Testing

/// A finished child process: its exit status (128 + the signal when a signal ended it), what it
/// wrote, and its peak resident memory in bytes.
struct MeasuredRun {
  var status: Int32
  var out: String
  var err: String
  var peakBytes: Int
}

/// Runs photoedit with `arguments`, measuring its peak resident memory, and kills it if it has
/// not ended after `deadline` seconds (then throws `Hung`: a bound on hanging, not a timing
/// test).
///
/// The peak is GNU time's `%M` when /usr/bin/time exists: the child's own `ru_maxrss`, in a
/// process started by a small one. (A child this large test process starts itself would not
/// do: posix_spawn shares the parent's memory until exec, and Linux counts the parent's peak in
/// the child's `ru_maxrss`.) Without it, the child's `VmHWM` (its peak, in /proc) is sampled
/// every 2 ms while it runs.
func launchMeasured(_ arguments: [String], deadline: Double = 120) throws -> MeasuredRun {
  let folder = try TemporaryFolder()
  let (outPath, errPath, peakPath) = (folder.path("out"), folder.path("err"), folder.path("peak"))
  let timed = access("/usr/bin/time", X_OK) == 0
  let executable = timed ? "/usr/bin/time" : photoeditBinary.path
  let argv = (timed ? ["-f", "%M", "-o", peakPath, photoeditBinary.path] : []) + arguments
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  let cArguments: [UnsafeMutablePointer<CChar>?] = ([executable] + argv).map { strdup($0) } + [nil]
  defer { for p in cArguments { free(p) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, executable, &actions, nil, cArguments, environ)
  guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
  var status: Int32 = 0
  var sampledKB = 0
  let end = Date().addingTimeInterval(deadline)
  var hung = false
  while true {
    if !timed, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
    {
      sampledKB = max(sampledKB, kb)
    }
    let r = waitpid(pid, &status, WNOHANG)
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
  let errText = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
  let peakKB =
    timed
    ? Int((try? String(contentsOfFile: peakPath, encoding: .utf8))?.split(separator: "\n").last ?? "") ?? Int.max
    : sampledKB
  return MeasuredRun(
    status: signal == 0 ? (status >> 8) & 0xff : 128 + signal,
    out: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "", err: errText,
    peakBytes: peakKB == Int.max ? Int.max : peakKB * 1024)
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
