import Recipe

enum RenderCommand {
  static let command = Command(
    name: "render", summary: "Re-render each photo from its original and recipe, or export a copy.",
    usage: "photoedit render [options] FILE... [-o OUT | --output-dir DIR] [--max-size N] [--quality Q]",
    discussion: """
      Without -o, an edited photo's render is made again in place (after a change of --quality,
      say). With -o or --output-dir the result is an export with no sidecar; its format follows the
      extension (.jpg, .jpeg, .png), and an existing file is replaced only with --force.
      --max-size N makes the fast display-size image: the JPEG is decoded with DCT-domain scaling to
      the smallest size still at least N, then resampled to exactly N on the longest side.
      """,
    options: CommonOptions.batch + OutputTarget.options + [
      OptionSpec(long: "max-size", valueName: "N", help: "longest side of the result in pixels")
    ] + EditSettings.encodingOptions + EditSettings.options,
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      let output = try OutputTarget(args)
      let maxSize = try args.integer("max-size", in: 1...1_000_000)
      if maxSize != nil && output.file == nil && output.folder == nil {
        throw UsageError("--max-size makes an export: give -o FILE or --output-dir DIR", command: "render")
      }
      return try BatchRunner(arguments: args, console: console).run(
        check: { entries throws(UsageError) in try output.checkDistinctOutputs(entries, command: "render") }
      ) { path in
        let store = EditStore(settings: settings.store(for: path, console: console))
        return try output.writing(for: path, dryRun: settings.dryRun) { target in
          if let target { return FileResult(try store.export(path, to: target, maxSize: maxSize)) }
          return FileResult(try store.render(path))
        }
      }
    })
}
