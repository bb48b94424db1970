import PhotoCore
import Recipe

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
  /// `edit --step N --set` would give them, through the store's safety protocol.
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
    let results: [(entry: Corrections.Entry, outcome: Result<(path: String, done: Bool), CorrectionsError>)]
    do throws(CorrectionsError) {
      results = try store.checkEachCorrection(file, in: folder)
    } catch {
      let (status, message) = ErrorText.describe(error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); nothing was changed")
      return status
    }
    var checked: [(path: String, entry: Corrections.Entry, done: Bool)] = []
    var skipped: [(entry: Corrections.Entry, error: CorrectionsError)] = []
    for result in results {
      switch result.outcome {
      case .success(let c): checked.append((c.path, result.entry, c.done))
      case .failure(let error): skipped.append((result.entry, error))
      }
    }
    if args[allOrNothing], let first = skipped.first {
      let (status, message) = ErrorText.describe(first.error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); nothing was changed")
      return status
    }
    // Each entry that cannot be applied: one line naming the photo and why, before the others run.
    for (entry, error) in skipped {
      let (status, message) = ErrorText.describe(error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); skipped")
      if args[CommonOptions.json] {
        console.print(
          JSONLine.encode([
            "file": .string(file), "photo": .string(entry.photo), "status": .string("error"),
            "error": .string(message + "; skipped"), "exit": .number(Double(status)),
          ]))
      }
    }
    let skippedLine =
      "photoedit: \(TextEscaping.controls(file)): \(skipped.count) of \(FileResult.count(results.count, "photo")) skipped (each said why above); the others were applied"
    if checked.isEmpty {
      if !skipped.isEmpty {
        console.printError(
          "photoedit: \(TextEscaping.controls(file)): none of its \(FileResult.count(skipped.count, "photo")) could be corrected; nothing was changed"
        )
        return ExitStatus.someFailed
      }
      if !args[CommonOptions.quiet] {
        console.printError("photoedit: nothing to do: the file holds no corrections")
      }
      return ExitStatus.success
    }
    let entries = checked.map { PhotoFolder.Entry(path: $0.path) }
    let byPath = Dictionary(checked.map { ($0.path, ($0.entry, $0.done)) }, uniquingKeysWith: { a, _ in a })
    let jobs = args[CommonOptions.jobs] ?? Parallel.workerCount
    let status = try BatchRunner(arguments: args, console: console, editsInPlace: true).run(
      entries: entries, jobs: jobs
    ) { path in
      let (entry, done) = byPath[path]!
      if done {
        return FileResult(
          fields: ["step": .number(Double(entry.step)), "current": .bool(true)],
          lines: ["step \(entry.step) (faceblur) already has these corrections; nothing to do"])
      }
      return FileResult(
        try EditStore(settings: settings.store(for: path, console: console)).applyCorrection(entry, to: path))
    }
    if skipped.isEmpty { return status }
    if !args[CommonOptions.quiet] { console.printError(skippedLine) }
    return ExitStatus.someFailed
  }
}
