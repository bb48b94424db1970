import Dispatch
import PhotoCore
import Recipe
import Store
import Synchronization

/// What one file's work produced.
struct FileResult: Sendable {
  /// Extra fields for the file's `--json` line.
  var fields: [String: JSONValue] = [:]
  /// Lines for standard output without `--json`.
  var lines: [String] = []
  /// Harmless problems worth knowing, printed on standard error as `photoedit: FILE: warning: ...`.
  var warnings: [String] = []
  /// Print the file's name on every line, not only the first (`check --repair`).
  var everyLineNamed = false
  /// True when the file was already as asked (an export whose output is this render, a render
  /// that is current): nothing was written. Counted apart in the summary; `"current": true` in
  /// JSON.
  var current = false
  /// True when the file was searched for faces and none was found (faceblur, detect): counted
  /// in the summary, so that a script can look at those photos.
  var noFaceFound = false
  /// True when `audit` found something in the file: counted in the summary.
  var flagged = false

  init(fields: [String: JSONValue] = [:], lines: [String] = [], warnings: [String] = []) {
    (self.fields, self.lines, self.warnings) = (fields, lines, warnings)
  }

  /// A file that was already as asked (nothing to undo, an unedited photo rendered): success,
  /// with `line` said and `"current": true` in JSON.
  static func current(_ line: String) -> FileResult {
    var result = FileResult(lines: [line])
    result.current = true
    return result
  }
}

/// Runs one command's work over many files: in parallel, in input order on output, with a
/// progress bar, `--json` lines, one error line per failed file, a summary, and DESIGN.md's exit
/// statuses. With `--shard K/N`, only the photos of that part are worked on; the others print
/// nothing.
struct BatchRunner {
  var arguments: ParsedArguments
  var console: Console
  /// The `--json` fields that a later mention of a file already in the list (done once) repeats
  /// from the first mention's result: facts about the file that a reader reports (status's
  /// `state`), never what a writer did.
  var repeatedForDuplicates: [String] = []
  /// True for a command that changes the photos it names in place: a second name of a photo (a
  /// hard link) then still shows the photo as it was, so it fails instead of being done once.
  var editsInPlace = false
  /// Where the results go, for a command that can write elsewhere: its `--output-dir` is never
  /// walked, and one photo reached under two names makes two outputs.
  var output: OutputTarget? = nil
  /// True for `audit`: a walk lists every file a copy of the folder would publish (hidden ones
  /// and the store's own files too).
  var publishing = false
  /// True for `audit`: a photo a walk skipped for its format (which the run could not check)
  /// makes the run exit 1, as a file that cannot be read does.
  var skippedFails = false

  init(arguments: ParsedArguments, console: Console, editsInPlace: Bool = false, output: OutputTarget? = nil)
  {
    (self.arguments, self.console) = (arguments, console)
    self.output = output
    self.editsInPlace = editsInPlace && output?.isInPlace != false
  }

  /// Expands the operands, runs `work` on each file, prints, and returns the exit status.
  /// `check` sees the whole list first (every shard's photos, so that all N tasks refuse the same
  /// list) and may refuse it before any file is touched.
  func run(
    check: ([PhotoFolder.Entry]) throws(UsageError) -> Void = { _ in },
    _ work: @escaping @Sendable (String) throws -> FileResult
  ) throws(UsageError) -> Int32 {
    try run(check: check) { (entry: PhotoFolder.Entry) in try work(entry.path) }
  }

  /// `run(check:_:)` for work that needs the whole entry (where a walk found it).
  func run(
    check: ([PhotoFolder.Entry]) throws(UsageError) -> Void = { _ in },
    _ work: @escaping @Sendable (PhotoFolder.Entry) throws -> FileResult
  ) throws(UsageError) -> Int32 {
    let jobs = arguments[CommonOptions.jobs] ?? Parallel.workerCount
    let skipping = output?.folder.flatMap(PhotoFolder.identity(of:)).map { Set([$0]) } ?? []
    let entries = FileList.expand(
      arguments.operands, recursive: arguments[CommonOptions.recursive],
      nulSeparated: arguments[CommonOptions.null], skipping: skipping, publishing: publishing,
      console: console)
    guard !entries.isEmpty else {
      if arguments.operands.isEmpty { throw UsageError("no files given", command: arguments.command) }
      // Folders with no photo in them (or an empty list on standard input): xargs' convention.
      if !arguments[CommonOptions.quiet] { console.printError("photoedit: nothing to do: no photos found") }
      return ExitStatus.success
    }
    try check(entries)
    return try run(entries: entries, jobs: jobs, work)
  }

  /// Runs `work` on the entries (those of `--shard`'s part only), prints, and returns the exit
  /// status: with one file given, that file's; else 0 when all succeeded and 1 when any failed.
  func run(
    entries given: [PhotoFolder.Entry], jobs: Int, _ work: @escaping @Sendable (String) throws -> FileResult
  )
    throws(UsageError) -> Int32
  {
    try run(entries: given, jobs: jobs) { (entry: PhotoFolder.Entry) in try work(entry.path) }
  }

  func run(
    entries listed: [PhotoFolder.Entry], jobs: Int,
    _ work: @escaping @Sendable (PhotoFolder.Entry) throws -> FileResult
  ) throws(UsageError) -> Int32 {
    let shard = arguments[CommonOptions.shard]
    let quiet = arguments[CommonOptions.quiet]
    let (given, allDuplicates) = Self.duplicates(listed, output: output)
    let entries = shard.map { part in given.filter(part.contains) } ?? given
    if entries.isEmpty {
      if !quiet, let shard {
        console.printError(
          "photoedit: nothing to do: shard \(shard.description) holds none of the "
            + FileResult.count(given.count, "file"))
      }
      return ExitStatus.success
    }
    let json = arguments[CommonOptions.json]
    let progress = Progress(
      total: entries.count, console: console,
      enabled: console.errorIsTerminal && !quiet && entries.count > 1)
    // Within the shard's part (a photo's names may fall into different shards: each is then
    // done where it falls).
    let duplicates = shard == nil ? allDuplicates : Self.duplicates(entries, output: output).duplicates
    let printer = OrderedPrinter(duplicates: duplicates.map { $0?.index }, repeating: repeatedForDuplicates) {
      index, outcome in
      progress.clear()
      self.report(entries[index].path, outcome, json: json)
    }
    Self.forEachRetryingSharedRefusals(
      entries.count, workers: max(1, min(jobs, entries.count)),
      attempt: { index in
        duplicates[index].map { duplicate in
          if editsInPlace && !duplicate.sameName {
            return Outcome(
              status: ExitStatus.cannotCreate,
              error: ErrorText.hardLink(of: entries[duplicate.index].path), seconds: 0)
          }
          return Outcome(
            status: ExitStatus.success, duplicateOf: (entries[duplicate.index].path, duplicate.index),
            seconds: 0)
        }
          ?? Self.perform(entries[index], work)
      },
      failed: { $0.status != ExitStatus.success },
      deliver: { index, outcome in
        progress.tick()
        printer.deliver(index, outcome)
      })
    progress.finish()
    let tally = printer.tally
    // A skipped photo is always told of, even alone: its faces were not hidden.
    if !quiet && (given.count > 1 || shard != nil || !tally.skipped.isEmpty) {
      console.printError(summary(tally, of: given.count, shard: shard))
    }
    if skippedFails && !tally.skipped.isEmpty { return ExitStatus.someFailed }
    if given.count == 1 { return printer.firstStatus }
    return tally.failed > 0 ? ExitStatus.someFailed : ExitStatus.success
  }

  /// Works on `0..<count` on `workers` threads, each index once, and hands each result to
  /// `deliver`. An index whose result `failed` says failed after the process's memory budget
  /// refused it memory that other photos held is worked on again alone once the others are done
  /// (it may fit then), and only that second result is delivered.
  static func forEachRetryingSharedRefusals<T>(
    _ count: Int, workers: Int, attempt: @Sendable (Int) -> T, failed: @Sendable (T) -> Bool,
    deliver: @Sendable (Int, T) -> Void
  ) {
    let next = Atomic<Int>(0)
    let again = Mutex<[Int]>([])
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < count else { break }
        _ = MemoryBudget.process.takeSharedRefusal()
        let result = attempt(index)
        if workers > 1 && failed(result) && MemoryBudget.process.takeSharedRefusal() {
          again.withLock { $0.append(index) }
          continue
        }
        deliver(index, result)
      }
    }
    // Each alone now, with the whole budget: it fits, or it is refused for its own size.
    for index in again.withLock({ $0.sorted() }) { deliver(index, attempt(index)) }
  }

  /// How a run's files ended.
  struct Tally: Sendable {
    /// Worked on (or, in a dry run, would be).
    var done = 0
    /// Already as asked: nothing to write.
    var current = 0
    var failed = 0
    /// Later mentions of a file already in the list: done once, with the first.
    var duplicates = 0
    /// Files searched for faces where none was found (not failed).
    var noFaceFound = 0
    /// Files with findings (`audit`).
    var flagged = 0
    /// The format of each photo a walk skipped because photoedit does not read it, in order.
    var skipped: [String] = []
    var total: Int { done + current + failed + duplicates + skipped.count }
  }

  /// `photoedit: shard 2/4: 251 of 1000 files: 240 done, 9 current, 2 failed`, then what else
  /// was counted: `; 2 photos skipped: format not supported (GIF, CR2)` (each format once, in
  /// the order the walk found them).
  func summary(_ tally: Tally, of given: Int, shard: Shard?) -> String {
    var line = "photoedit: "
    if let shard {
      line += "shard \(shard.description): \(tally.total) of \(FileResult.count(given, "file"))"
    } else {
      line += FileResult.count(given, "file")
    }
    let done = arguments[CommonOptions.dryRun] ? "to do" : "done"
    return line + ": \(tally.done) \(done), \(tally.current) current, \(tally.failed) failed"
      + (tally.duplicates > 0 ? ", \(FileResult.count(tally.duplicates, "duplicate"))" : "")
      + (tally.noFaceFound > 0 ? "; \(FileResult.count(tally.noFaceFound, "photo")) with no face found" : "")
      + (tally.flagged > 0 ? "; \(FileResult.count(tally.flagged, "file")) with findings" : "")
      + (tally.skipped.isEmpty
        ? ""
        : "; \(FileResult.count(tally.skipped.count, "photo")) skipped: \(Self.skippedReason) ("
          + Self.distinct(tally.skipped).joined(separator: ", ") + ")")
  }

  /// Why a walk skips a photo: the summary's words and `--json`'s `reason`.
  static let skippedReason = "format not supported"

  /// The names in their first order, each once.
  static func distinct(_ names: [String]) -> [String] {
    var seen: Set<String> = []
    return names.filter { seen.insert($0).inserted }
  }

  struct Outcome: Sendable {
    var status: Int32
    var result: FileResult?
    var error: String?
    /// Set for a later mention of a file already in the list (the first mention's name and
    /// index): it is done once.
    var duplicateOf: (name: String, index: Int)? = nil
    /// Set for a photo a walk found in a format photoedit does not read: its format's name.
    /// Nothing was done to it.
    var skipped: String? = nil
    var seconds: Double
  }

  /// A later mention of a file already in the list: the index of the mention that is worked on,
  /// and whether both are one name (`a.jpg`, `./a.jpg`, a symbolic link to it, a path through a
  /// linked folder) or two names of one file (hard links).
  struct Duplicate: Equatable {
    var index: Int
    var sameName: Bool
  }

  /// The entries, each file's mentions after the first marked as its duplicates (same device and
  /// inode). The mention worked on is the file's own name, never a symbolic link to it: it takes
  /// the place of the file's first mention in the list, so a link that sorts first cannot make
  /// the photo itself "done once" when the link is refused. With `--output-dir`, mentions that
  /// go to different outputs are not duplicates (each output is made).
  static func duplicates(_ listed: [PhotoFolder.Entry], output: OutputTarget? = nil)
    -> (entries: [PhotoFolder.Entry], duplicates: [Duplicate?])
  {
    struct Key: Hashable {
      var file: PhotoFolder.Identity
      var output: [UInt8]
    }
    var entries = listed
    var groups: [Key: [Int]] = [:]
    for i in entries.indices where entries[i].problem == nil && entries[i].unsupported == nil {
      guard let id = PhotoFolder.identity(of: entries[i].path) else { continue }
      let out = output?.folder == nil ? [] : PathName.bytes(output?.path(for: entries[i]) ?? "")
      groups[Key(file: id, output: out), default: []].append(i)
    }
    var duplicates = [Duplicate?](repeating: nil, count: entries.count)
    for indices in groups.values where indices.count > 1 {
      let first = indices[0]
      if let own = indices.first(where: { !entries[$0].isLink }), own != first { entries.swapAt(first, own) }
      let real = PhotoFolder.realPath(entries[first].path)
      for i in indices.dropFirst() {
        let same =
          real != nil && PhotoFolder.realPath(entries[i].path).map(PathName.bytes) == real.map(PathName.bytes)
        duplicates[i] = Duplicate(index: first, sameName: same)
      }
    }
    return (entries, duplicates)
  }

  static func perform(
    _ entry: PhotoFolder.Entry, _ work: @Sendable (PhotoFolder.Entry) throws -> FileResult
  ) -> Outcome {
    if let problem = entry.problem {
      let (status, message) = ErrorText.describe(problem)
      return Outcome(status: status, error: message, seconds: 0)
    }
    if let format = entry.unsupported {
      return Outcome(status: ExitStatus.success, skipped: format, seconds: 0)
    }
    let start = DispatchTime.now().uptimeNanoseconds
    func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    do {
      let result = try work(entry)
      return Outcome(status: ExitStatus.success, result: result, seconds: elapsed())
    } catch {
      let (status, message) = ErrorText.describe(error)
      return Outcome(status: status, error: message, seconds: elapsed())
    }
  }

  private func report(_ file: String, _ outcome: Outcome, json: Bool) {
    // In text, a name's control characters are shown escaped (`\n`, `\x1B`), as JSON does.
    let shown = TextEscaping.controls(file)
    for warning in outcome.result?.warnings ?? [] {
      console.printError("photoedit: \(shown): warning: \(warning)")
    }
    if let error = outcome.error {
      console.printError("photoedit: \(shown): \(error)")
    }
    if let earlier = outcome.duplicateOf, !arguments[CommonOptions.quiet] {
      console.printError(
        "photoedit: \(shown): warning: the same file as \(TextEscaping.controls(earlier.name)), done once")
    }
    if json {
      var fields = outcome.result?.fields ?? [:]
      fields["file"] = .string(file)
      fields["status"] = .string(outcome.error != nil ? "error" : outcome.skipped != nil ? "skipped" : "ok")
      if let format = outcome.skipped {
        fields["reason"] = .string(Self.skippedReason)
        fields["format"] = .string(format)
      }
      if let error = outcome.error {
        fields["error"] = .string(error)
        fields["exit"] = .number(Double(outcome.status))
      }
      if outcome.result?.current == true { fields["current"] = .bool(true) }
      if let earlier = outcome.duplicateOf { fields["duplicateOf"] = .string(earlier.name) }
      fields["seconds"] = .number((outcome.seconds * 1000).rounded() / 1000)
      console.print(JSONLine.encode(fields))
    } else if let result = outcome.result {
      // Each file's report starts with its name; further lines are details.
      for (n, line) in result.lines.enumerated() {
        console.print(n == 0 || result.everyLineNamed ? "\(shown): \(line)" : line)
      }
    }
  }
}

/// Prints results in input order although workers finish in any order; a later mention of a
/// file already in the list gets the `repeating` fields of the first mention's result (printed
/// before it).
final class OrderedPrinter: Sendable {
  private struct State {
    var pending: [Int: BatchRunner.Outcome] = [:]
    var nextToPrint = 0
    var tally = BatchRunner.Tally()
    var firstStatus: Int32 = ExitStatus.success
    /// The printed results that later mentions repeat from, by index.
    var firstMentions: [Int: FileResult] = [:]
    /// The indices printed as failed, with their statuses.
    var failed: Set<Int> = []
    var statuses: [Int: Int32] = [:]
  }
  private let state = Mutex(State())
  private let repeated: Set<Int>
  private let repeating: [String]
  private let emit: @Sendable (Int, BatchRunner.Outcome) -> Void

  /// - Parameter duplicates: for each entry, the index of the earlier one naming the same file.
  init(
    duplicates: [Int?], repeating: [String] = [], emit: @escaping @Sendable (Int, BatchRunner.Outcome) -> Void
  ) {
    repeated = repeating.isEmpty ? [] : Set(duplicates.compactMap { $0 })
    self.repeating = repeating
    self.emit = emit
  }

  func deliver(_ index: Int, _ outcome: BatchRunner.Outcome) {
    state.withLock { s in
      s.pending[index] = outcome
      // Counted when printed: a later mention's first mention is printed, and known, by then.
      while var ready = s.pending.removeValue(forKey: s.nextToPrint) {
        if repeated.contains(s.nextToPrint) { s.firstMentions[s.nextToPrint] = ready.result }
        if let first = ready.duplicateOf {
          if s.failed.contains(first.index) {
            // Never "done once" when that once failed.
            ready = BatchRunner.Outcome(
              status: s.statuses[first.index] ?? ExitStatus.dataError,
              error: "not done: the same file as \(TextEscaping.controls(first.name)), which failed",
              seconds: 0)
          } else if let result = s.firstMentions[first.index] {
            ready.result = FileResult(fields: result.fields.filter { repeating.contains($0.key) })
          }
        }
        Self.count(ready, at: s.nextToPrint, in: &s)
        emit(s.nextToPrint, ready)
        s.nextToPrint += 1
      }
    }
  }

  private static func count(_ outcome: BatchRunner.Outcome, at index: Int, in s: inout State) {
    if outcome.error != nil {
      s.tally.failed += 1
      s.failed.insert(index)
      s.statuses[index] = outcome.status
    } else if let format = outcome.skipped {
      s.tally.skipped.append(format)
    } else if outcome.duplicateOf != nil {
      s.tally.duplicates += 1
    } else if outcome.result?.current == true {
      s.tally.current += 1
    } else {
      s.tally.done += 1
    }
    if outcome.error == nil, outcome.duplicateOf == nil, outcome.result?.noFaceFound == true {
      s.tally.noFaceFound += 1
    }
    if outcome.error == nil, outcome.duplicateOf == nil, outcome.result?.flagged == true {
      s.tally.flagged += 1
    }
    if index == 0 { s.firstStatus = outcome.status }
  }

  var tally: BatchRunner.Tally { state.withLock { $0.tally } }
  var firstStatus: Int32 { state.withLock { $0.firstStatus } }
}

/// A one-line progress bar on standard error: done/total, rate and time left.
final class Progress: Sendable {
  private struct State {
    var done = 0
    var lastDraw: UInt64 = 0
  }
  private let total: Int
  private let console: Console
  private let enabled: Bool
  private let start = DispatchTime.now().uptimeNanoseconds
  private let state = Mutex(State())

  init(total: Int, console: Console, enabled: Bool) {
    (self.total, self.console, self.enabled) = (total, console, enabled)
  }

  func tick() {
    guard enabled else { return }
    state.withLock { s in
      s.done += 1
      let now = DispatchTime.now().uptimeNanoseconds
      guard s.done == total || now - s.lastDraw > 100_000_000 else { return }
      s.lastDraw = now
      console.redrawErrorLine(line(done: s.done, seconds: Double(now - start) / 1e9))
    }
  }

  func finish() { clear() }

  /// Clears the bar, so that a result line is printed on a line of its own (it is drawn again at
  /// the next tick).
  func clear() {
    guard enabled else { return }
    state.withLock { _ in console.redrawErrorLine("") }
  }

  private func line(done: Int, seconds: Double) -> String {
    let width = 30
    let filled = total == 0 ? width : width * done / total
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let rate = seconds > 0 ? Double(done) / seconds : 0
    let left = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
    let eta = cFormat("%d:%02d", left / 60, left % 60)
    return "[\(bar)] \(done)/\(total)  \(cFormat("%.1f", rate))/s  ETA \(eta)"
  }
}
