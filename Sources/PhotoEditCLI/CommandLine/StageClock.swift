import Dispatch

/// Times named stages and, with `--timings`, prints `timing: STAGE 1.234s (FILE)` on standard error.
struct StageClock: Sendable {
  var console: Console
  var file: String
  var enabled: Bool

  func time<T, E: Error>(_ stage: String, _ body: () throws(E) -> T) throws(E) -> T {
    let start = DispatchTime.now().uptimeNanoseconds
    let value = try body()
    record(stage, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    return value
  }

  func record(_ stage: String, _ seconds: Double) {
    guard enabled else { return }
    console.printError("timing: \(stage) \(cFormat("%.3f", seconds))s (\(file))")
  }
}
