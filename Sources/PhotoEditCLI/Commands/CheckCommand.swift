import Recipe
import Store

enum CheckCommand {
  static let repair = Flag("repair", help: "finish or roll back an interrupted edit")

  static let command = Command(
    name: "check",
    summary: "Verify originals and renders against their checksums; --repair finishes or rolls back.",
    usage: "photoedit check [--repair] [options] FILE...",
    discussion: """
      Exits 0 when every photo checks out and 1 when any has a problem (a changed or missing
      original, a render changed outside photoedit, an interrupted edit). --repair finishes an
      interrupted edit when its new state is complete on disk, or rolls it back to the old one.
      """,
    options: CommonOptions.batch + [
      repair, CommonOptions.dryRun, CommonOptions.maxPixels, CommonOptions.maxMemory,
      CommonOptions.maxFileSize, CommonOptions.timings,
    ],
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      let repair = args[CheckCommand.repair]
      let status = try BatchRunner(arguments: args, console: console).run { path in
        var result = FileResult(
          try EditStore(settings: settings.store(for: path, console: console)).check(path, repair: repair))
        result.everyLineNamed = true
        return result
      }
      return status == ExitStatus.success ? status : ExitStatus.someFailed
    })
}
