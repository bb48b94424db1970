import Dispatch
import Foundation
import Synchronization
@_exported import TestSupport
import Testing

@testable import PhotoEditCLI

/// Text a captured stream received.
final class TextBuffer: Sendable {
  private let storage = Mutex("")
  func append(_ s: String) { storage.withLock { $0 += s } }
  var text: String { storage.withLock { $0 } }
}

/// Runs photoedit in-process and returns (status, stdout, stderr).
func runCLI(_ arguments: [String], input: String = "") -> (status: Int32, out: String, err: String) {
  let (out, err) = (TextBuffer(), TextBuffer())
  let bytes = [UInt8](input.utf8)
  let console = Console(out: { out.append($0) }, err: { err.append($0) }, readInput: { bytes })
  let status = PhotoEditCLI.run(arguments: arguments, console: console)
  return (status, out.text, err.text)
}

/// The built `photoedit` executable beside the test bundle.
let photoeditBinary: URL = {
  let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  var dir = exe.deletingLastPathComponent()
  // Inside an .xctest bundle directory on some layouts.
  while dir.path != "/" {
    let candidate = dir.appendingPathComponent("photoedit")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    dir = dir.deletingLastPathComponent()
  }
  return exe.deletingLastPathComponent().appendingPathComponent("photoedit")
}()

/// A launched process that did not end before its deadline (it was killed).
struct Hung: Error, CustomStringConvertible {
  var arguments: [String]
  var description: String { "photoedit \(arguments.joined(separator: " ")) did not end in time" }
}

/// Launches the real `photoedit` and waits for it, at most `deadline` seconds: a process still
/// running then is killed and the call throws `Hung` (a bound on hanging, not a timing test).
func launch(
  _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
  in directory: URL? = nil, executable: String? = nil, deadline: Double = 120
) throws -> (status: Int32, out: String, err: String) {
  let process = Process()
  process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? photoeditBinary
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = directory }
  var env = ProcessInfo.processInfo.environment
  for (k, v) in environment { env[k] = v }
  process.environment = env
  let outPipe = Pipe()
  let errPipe = Pipe()
  let inPipe = Pipe()
  process.standardOutput = outPipe
  process.standardError = errPipe
  process.standardInput = inPipe
  let ended = DispatchSemaphore(value: 0)
  process.terminationHandler = { _ in ended.signal() }
  try process.run()
  if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
  try inPipe.fileHandleForWriting.close()
  // Both pipes drain while the process runs, so a chatty process never blocks on a full pipe.
  let drained = DispatchGroup()
  let output = Mutex((out: Data(), err: Data()))
  DispatchQueue.global().async(group: drained) {
    let data = outPipe.fileHandleForReading.readDataToEndOfFile()
    output.withLock { $0.out = data }
  }
  DispatchQueue.global().async(group: drained) {
    let data = errPipe.fileHandleForReading.readDataToEndOfFile()
    output.withLock { $0.err = data }
  }
  let hung = ended.wait(timeout: .now() + deadline) == .timedOut
  if hung { kill(process.processIdentifier, SIGKILL) }
  drained.wait()
  process.waitUntilExit()
  let (out, err) = output.withLock { $0 }
  if hung { throw Hung(arguments: arguments) }
  return (
    process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)
  )
}

/// Applies `filter` with `--strip-identifying` to the photo `name` in `folder`, in place: the run
/// exits 0, the render holds none of `IdentifyingFixture.secrets`, and `audit` passes it.
func expectStrippedInPlace(
  _ name: String, in folder: TemporaryFolder, filter: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let photo = folder.path(name)
  let run = try launch(["apply", "-f", filter, "--strip-identifying", photo])
  #expect(run.status == 0, "\(run.err)", sourceLocation: sourceLocation)
  let render = try #require(folder.read(name), sourceLocation: sourceLocation)
  for secret in IdentifyingFixture.secrets {
    #expect(!render.containsText(secret), "\(secret)", sourceLocation: sourceLocation)
  }
  let audit = try launch(["audit", photo])
  #expect(audit.status == 0, "\(audit.out)\(audit.err)", sourceLocation: sourceLocation)
}
