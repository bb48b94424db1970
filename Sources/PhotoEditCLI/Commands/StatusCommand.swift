import Recipe

enum StatusCommand {
  static let command = Command(
    name: "status",
    summary: "List every photo as unedited, edited, stale, modified outside photoedit, or damaged.",
    usage: "photoedit status [options] [DIR|FILE...]",
    discussion: "With no operands, the photos in the current folder; -r walks folders below too.",
    options: CommonOptions.batch,
    run: { args, console throws(UsageError) in
      // A folder named here or on standard input is listed (not an error, unlike the editing
      // commands).
      let entries = FileList.expand(
        args.operands.isEmpty ? ["."] : args.operands, recursive: args.flag("recursive"),
        nulSeparated: args.flag("null"), listingFolders: true, console: console)
      if entries.isEmpty { return ExitStatus.success }
      let jobs = try args.integer("jobs", in: 1...256) ?? 1
      // A photo named twice is read once; its later lines repeat what the first found.
      var runner = BatchRunner(arguments: args, console: console)
      runner.repeatedForDuplicates = ["state", "reason", "operations"]
      return try runner.run(entries: entries, jobs: jobs) { path in
        FileResult(status: try EditStore().status(path))
      }
    })
}
