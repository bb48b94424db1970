#if canImport(Glibc)
  import Glibc
#endif
import PhotoCore
import Recipe
import Store

/// `photoedit apply --corrections FILE DIR`: the corrections a review page exported, applied to
/// the photos under the reviewed folder DIR.
enum ApplyCorrections {
  static let option = Option.file(
    "corrections",
    help: "apply a review page's corrections file to the photos under the reviewed folder (the one operand)")
  static let allOrNothing = Flag(
    "all-or-nothing",
    help: "with --corrections: apply none of the file's corrections if any photo cannot take its own")

  /// The whole file is read first (its size bounded by --max-file-size): a file that is not a
  /// well-formed corrections file is refused with nothing changed. Then each entry is checked
  /// against its photo under DIR (it must exist, be edited, and have a faceblur step whose faces
  /// are the ones reviewed): an entry that does not fit is reported on its own line and skipped
  /// (the run then exits 1), the others are applied; with --all-or-nothing any such entry refuses
  /// the whole file. Each photo's faceblur step gets its new exclude= and add= as
  /// `edit --step N --set` would give them, through the store's safety protocol. Each `reviewed`
  /// state is checked likewise (the photo edited, its render the one the page showed) and
  /// recorded in the photo's sidecar: with its correction in the same store operation, else as
  /// a sidecar write of its own.
  static func run(_ file: String, _ args: ParsedArguments, console: Console) throws(UsageError) -> Int32 {
    if args.has(ApplyCommand.filter) || args.has(ApplyCommand.recipe) {
      throw UsageError("--corrections cannot be combined with --filter or --recipe", command: "apply")
    }
    if args.has(OutputTarget.output) || args.has(OutputTarget.outputDir) {
      throw UsageError(
        "--corrections edits the reviewed photos in place; -o and --output-dir do not apply", command: "apply"
      )
    }
    guard args.operands.count == 1, args.operands != ["-"] else {
      throw UsageError(
        "--corrections takes one operand: the folder that was reviewed (the one its page names)",
        command: "apply")
    }
    let folder = args.operands[0]
    switch PhotoFolder.kind(of: folder) {
    case .directory: break
    case .missing:
      console.printError("photoedit: \(TextEscaping.controls(folder)): no such folder; nothing was changed")
      return ExitStatus.noInput
    default:
      throw UsageError(
        "--corrections takes the folder that was reviewed, and '\(TextEscaping.controls(folder))' is not a folder",
        command: "apply")
    }
    let settings = try EditSettings(args)
    let store = EditStore(settings: settings.store(for: file, console: console))
    let checkedFile: EditStore.CheckedFile
    do throws(CorrectionsError) {
      checkedFile = try store.checkCorrectionsFile(file, in: folder)
    } catch {
      let (status, message) = ErrorText.describe(error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); nothing was changed")
      return status
    }
    // Each photo's correction and review state, by path.
    var jobs: [String: Job] = [:]
    var order: [String] = []
    func job(_ path: String) -> Job {
      if jobs[path] == nil { order.append(path) }
      return jobs[path] ?? Job()
    }
    var skipped: [(photo: String, error: CorrectionsError)] = []
    for result in checkedFile.entries {
      switch result.outcome {
      case .success(let c):
        var j = job(c.path)
        j.correction = (result.entry, c.done)
        jobs[c.path] = j
      case .failure(let error): skipped.append((result.entry.photo, error))
      }
    }
    let now = UTCTime(seconds: Int64(time(nil))) ?? UTCTime(seconds: 0)!
    for result in checkedFile.reviews {
      switch result.outcome {
      case .success(let c):
        var j = job(c.path)
        j.review = (ReviewMark(result.review, time: now), c.done)
        jobs[c.path] = j
      case .failure(let error): skipped.append((result.review.photo, error))
      }
    }
    let total = checkedFile.entries.count + checkedFile.reviews.count
    // Entries are counted as photos in a file without review states, else as entries (a photo
    // may have a correction and a review state).
    let plain = checkedFile.reviews.isEmpty
    let unit = { (n: Int) in plain ? FileResult.count(n, "photo") : n == 1 ? "1 entry" : "\(n) entries" }
    if args[allOrNothing], let first = skipped.first {
      let (status, message) = ErrorText.describe(first.error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); nothing was changed")
      return status
    }
    // Each entry that cannot be applied: one line naming the photo and why, before the others run.
    for (photo, error) in skipped {
      let (status, message) = ErrorText.describe(error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); skipped")
      if args[CommonOptions.json] {
        console.print(
          JSONLine.encode([
            "file": .string(file), "photo": .string(photo), "status": .string("error"),
            "error": .string(message + "; skipped"), "exit": .number(Double(status)),
          ]))
      }
    }
    let skippedLine =
      "photoedit: \(TextEscaping.controls(file)): \(skipped.count) of \(unit(total)) skipped (each said why above); the others were applied"
    if jobs.isEmpty {
      if !skipped.isEmpty {
        console.printError(
          "photoedit: \(TextEscaping.controls(file)): none of its \(unit(skipped.count)) could be \(plain ? "corrected" : "applied"); nothing was changed"
        )
        return ExitStatus.someFailed
      }
      if !args[CommonOptions.quiet] {
        console.printError("photoedit: nothing to do: the file holds no corrections")
      }
      return ExitStatus.success
    }
    let entries = order.map { PhotoFolder.Entry(path: $0) }
    let byPath = jobs
    let workers = args[CommonOptions.jobs] ?? Parallel.workerCount
    let status = try BatchRunner(arguments: args, console: console, editsInPlace: true).run(
      entries: entries, jobs: workers
    ) { path in
      try byPath[path]!.run(EditStore(settings: settings.store(for: path, console: console)), path)
    }
    if skipped.isEmpty { return status }
    if !args[CommonOptions.quiet] { console.printError(skippedLine) }
    return ExitStatus.someFailed
  }
}

extension ApplyCorrections {
  /// One photo's work: its correction and its review state, each checked, and whether each is
  /// already done.
  struct Job: Sendable {
    var correction: (entry: Corrections.Entry, done: Bool)?
    var review: (mark: ReviewMark, done: Bool)?

    /// Applies the correction, recording the review state in the same store operation when
    /// there is one; or records the review state alone.
    func run(_ store: EditStore, _ path: String) throws -> FileResult {
      var result = FileResult()
      var reviewPending = review.map { !$0.done } ?? false
      if let (entry, done) = correction {
        if done {
          result.fields["step"] = .number(Double(entry.step))
          result.lines.append("step \(entry.step) (faceblur) already has these corrections; nothing to do")
        } else {
          let outcome = try store.applyCorrection(entry, to: path, review: review?.mark)
          result = FileResult(outcome)
          switch outcome.review {
          case .success(let record)?:
            Self.describe(record, into: &result)
            reviewPending = false
          case .failure(let why)?:
            throw CorrectionsError.reviewNotRecorded(
              photo: entry.photo, state: review!.mark.review.state, why: why)
          case nil: break
          }
        }
      }
      if let (mark, done) = review {
        if reviewPending {
          let outcome = try store.recordReview(mark, to: path)
          Self.describe(outcome.record, into: &result, dryRun: outcome.dryRun)
        } else if done {
          result.lines.append(
            mark.review.state == .unreviewed
              ? "no review state recorded; nothing to do"
              : "already recorded as \(mark.review.state.rawValue); nothing to do")
          result.fields["review"] = .string(mark.review.state.rawValue)
        }
      }
      result.current = (correction?.done ?? true) && (review?.done ?? true)
      return result
    }

    static func describe(_ record: ReviewRecord?, into result: inout FileResult, dryRun: Bool = false) {
      let verb = dryRun ? "would record" : "recorded"
      if let record {
        result.lines.append("\(verb) \(record.state.rawValue) (\(record.time.display))")
        result.fields["review"] = .string(record.state.rawValue)
      } else {
        result.lines.append(dryRun ? "would take away the review record" : "took away the review record")
        result.fields["review"] = .string("unreviewed")
      }
    }
  }
}
