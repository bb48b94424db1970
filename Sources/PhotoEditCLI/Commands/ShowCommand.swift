import Recipe
import Store

enum ShowCommand {
  static let command = Command(
    name: "show", summary: "Print each photo's recipe, its original, and whether the render is current.",
    usage: "photoedit show [--json] FILE...",
    options: CommonOptions.batch,
    run: { args, console throws(UsageError) in
      try BatchRunner(arguments: args, console: console).run { path in
        FileResult(show: try EditStore().show(path))
      }
    })
}
