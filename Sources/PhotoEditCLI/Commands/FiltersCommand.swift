import PhotoCore

enum FiltersCommand {
  static let command = Command(
    name: "filters", summary: "List every filter with its parameters, ranges and defaults.",
    usage: "photoedit filters [--json | --markdown]",
    options: [
      CommonOptions.help, OptionSpec(long: "json", help: "one JSON line per filter"),
      OptionSpec(long: "markdown", help: "a Markdown table (the README's)"),
    ],
    run: { args, console throws(UsageError) in
      if let extra = args.operands.first {
        throw UsageError("unexpected argument '\(extra)'", command: "filters")
      }
      if args.flag("markdown") && args.flag("json") {
        throw UsageError("--json and --markdown cannot be used together", command: "filters")
      }
      if args.flag("markdown") {
        console.print(FilterCatalog.markdown(), terminator: "")
      } else if args.flag("json") {
        for filter in FilterCatalog.json() { console.print(JSONLine.encode(filter)) }
      } else {
        console.print(FilterCatalog.text(), terminator: "")
      }
      return ExitStatus.success
    })
}
