import PhotoCore

enum FiltersCommand {
  static let json = Flag("json", help: "one JSON line per filter")
  static let markdown = Flag("markdown", help: "a Markdown table (the one in docs/filters.md)")

  static let command = Command(
    name: "filters", summary: "List every filter with its parameters, ranges and defaults.",
    usage: "photoedit filters [--json | --markdown]",
    options: [CommonOptions.help, json, markdown],
    run: { args, console throws(UsageError) in
      if let extra = args.operands.first {
        throw UsageError("unexpected argument '\(extra)'", command: "filters")
      }
      if args[markdown] && args[json] {
        throw UsageError("--json and --markdown cannot be used together", command: "filters")
      }
      if args[markdown] {
        console.print(FilterCatalog.markdown(), terminator: "")
      } else if args[json] {
        for filter in FilterCatalog.json() { console.print(JSONLine.encode(filter)) }
      } else {
        console.print(FilterCatalog.text(), terminator: "")
      }
      return ExitStatus.success
    })
}
