import Recipe
import Store

enum RevertCommand {
  static let command = Command(
    name: "revert", summary: "Put back each photo's original bytes and remove its sidecar.",
    usage: "photoedit revert [options] FILE...",
    discussion: """
      In place, PHOTO gets the original's exact bytes back and PHOTO.original and
      PHOTO.photoedit.json are removed. For an output made with -o, the output gets a copy of the
      original's bytes and its sidecar is removed; the original itself is never touched.
      """,
    options: CommonOptions.batch + [CommonOptions.force, CommonOptions.dryRun, CommonOptions.maxFileSize],
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      return try BatchRunner(arguments: args, console: console, editsInPlace: true).run { path in
        FileResult(try EditStore(settings: settings.store(for: path, console: console)).revert(path))
      }
    })
}
