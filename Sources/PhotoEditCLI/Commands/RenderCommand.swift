import Recipe
import Store

enum RenderCommand {
  static let maxSize = Option.integer("max-size", 1...1_000_000, help: "longest side of the result in pixels")

  static let command = Command(
    name: "render", summary: "Re-render each photo from its original and recipe, or export a copy.",
    usage: "photoedit render [options] FILE... [-o OUT | --output-dir DIR] [--max-size N]",
    discussion: """
      Without -o, an edited photo's render is made again in place (after a change of --quality,
      say). With -o or --output-dir the result is an export with no sidecar; its format follows the
      extension (.jpg, .jpeg, .png, .heic, .avif, .webp, .tif, .tiff), and an existing file is
      replaced only with --force. 'render -r DIR --output-dir PUBLIC' publishes a folder edited in
      place: each photo's current render at the same path below PUBLIC, and nothing else (no
      sidecar, no original); a photo with no edit is exported as it is, with a warning.
      --max-size N makes the fast display-size image: the JPEG is decoded with DCT-domain scaling to
      the smallest size still at least N, then resampled to exactly N on the longest side.
      """,
    options: CommonOptions.batch + OutputTarget.options + [maxSize] + EditSettings.encodingOptions
      + EditSettings.writing,
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      let output = try OutputTarget(args)
      let maxSize = args[RenderCommand.maxSize]
      if maxSize != nil && output.file == nil && output.folder == nil {
        throw UsageError("--max-size makes an export: give -o FILE or --output-dir DIR", command: "render")
      }
      return try BatchRunner(arguments: args, console: console, editsInPlace: true, output: output).run(
        check: { entries throws(UsageError) in try output.checkDistinctOutputs(entries, command: "render") }
      ) { (entry: PhotoFolder.Entry) in
        let store = EditStore(settings: settings.store(for: entry.path, console: console))
        return try output.writing(for: entry, dryRun: settings.dryRun) { target in
          if let target {
            let exported = try store.export(entry.path, to: target, maxSize: maxSize)
            var result = FileResult(exported)
            // Exporting a walked folder is how in-place edits are published: say which photos
            // no edit touched, since they go out as they are.
            if exported.unedited && output.folder != nil && entry.relative != nil {
              result.warnings.append("not edited: exported as it is (no face was hidden in it)")
            }
            return result
          }
          do {
            return FileResult(try store.render(entry.path))
          } catch StoreError.notEdited {
            return .current("not edited: the photo is its original, nothing to render")
          }
        }
      }
    })
}
