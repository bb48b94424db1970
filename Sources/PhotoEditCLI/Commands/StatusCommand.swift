import Recipe
import Store

enum StatusCommand {
  /// Reading is cheap: one worker unless asked for more.
  static let jobs = Option.integer("jobs", short: "j", 1...256, default: 1, help: "parallel workers")

  static let command = Command(
    name: "status",
    summary: "List every photo as unedited, edited, stale, modified outside photoedit, or damaged.",
    usage: "photoedit status [options] [DIR|FILE...]",
    discussion: "With no operands, the photos in the current folder; -r walks folders below too.",
    options: [
      CommonOptions.help, CommonOptions.recursive, CommonOptions.null, jobs, CommonOptions.json,
      CommonOptions.quiet, CommonOptions.shard,
    ],
    run: { args, console throws(UsageError) in
      // A folder named here or on standard input is listed (not an error, unlike the editing
      // commands).
      let entries = FileList.expand(
        args.operands.isEmpty ? ["."] : args.operands, recursive: args[CommonOptions.recursive],
        nulSeparated: args[CommonOptions.null], listingFolders: true, console: console)
      if entries.isEmpty { return ExitStatus.success }
      let jobs = args[StatusCommand.jobs] ?? 1
      // A photo named twice is read once; its later lines repeat what the first found.
      var runner = BatchRunner(arguments: args, console: console)
      runner.repeatedForDuplicates = ["state", "reason", "operations", "review"]
      return try runner.run(entries: entries, jobs: jobs) { path in
        FileResult(status: try EditStore().status(path))
      }
    })
}
