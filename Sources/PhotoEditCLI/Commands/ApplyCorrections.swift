import PhotoCore
import Recipe

/// `photoedit apply --corrections FILE DIR`: the corrections a review page exported, applied to
/// the photos under the reviewed folder DIR.
enum ApplyCorrections {
  static let option = Option.file(
    "corrections",
    help: "apply a review page's corrections file to the photos under the reviewed folder (the one operand)")

  /// The whole file is checked first (its size bounded by --max-file-size; every photo, step and
  /// face it names must exist under DIR): any problem refuses it with nothing changed. Then each
  /// photo's faceblur step gets its new exclude= and add= as `edit --step N --set` would give
  /// them, through the store's safety protocol.
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
    let checked: [(path: String, entry: Corrections.Entry, done: Bool)]
    do throws(CorrectionsError) {
      checked = try store.checkCorrections(file, in: folder)
    } catch {
      let (status, message) = ErrorText.describe(error)
      console.printError("photoedit: \(TextEscaping.controls(file)): \(message); nothing was changed")
      return status
    }
    if checked.isEmpty {
      if !args[CommonOptions.quiet] {
        console.printError("photoedit: nothing to do: the file holds no corrections")
      }
      return ExitStatus.success
    }
    let entries = checked.map { PhotoFolder.Entry(path: $0.path) }
    let byPath = Dictionary(checked.map { ($0.path, ($0.entry, $0.done)) }, uniquingKeysWith: { a, _ in a })
    let jobs = args[CommonOptions.jobs] ?? Parallel.workerCount
    return try BatchRunner(arguments: args, console: console, editsInPlace: true).run(
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
  }
}
