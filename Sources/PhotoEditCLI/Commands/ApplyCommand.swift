import PhotoCore
import Recipe
import Store

enum ApplyCommand {
  static let filter = Option.text(
    "filter", short: "f", valueName: "FILTER", repeatable: true,
    help: "an edit to append: NAME[:key=value,...], a filter and its parameters (see 'photoedit filters')")
  static let recipe = Option.file(
    "recipe", repeatable: true, help: "append the portable edits of a sidecar or recipe file")

  static let command = Command(
    name: "apply", summary: "Append edits to each photo's recipe and re-render it from the original.",
    usage:
      "photoedit apply (-f FILTER|--recipe FILE)... [options] FILE... | apply --corrections FILE DIR",
    discussion: """
      Filters apply in the order given, after the photo's existing edits. The render is always made
      from the original, never from the previous render. --recipe takes the portable edits of a
      sidecar or recipe file (faces are detected afresh). In place, PHOTO becomes the render, its
      original is kept as PHOTO.original and the recipe in PHOTO.photoedit.json. With -o or
      --output-dir the input is left untouched and is itself the original. --corrections applies the
      corrections a 'photoedit review' page exported to the photos under the reviewed folder DIR.
      """,
    options: CommonOptions.batch + [filter, recipe, ApplyCorrections.option, ApplyCorrections.allOrNothing]
      + OutputTarget.options
      + EditSettings.encodingOptions + EditSettings.writing + EditSettings.detectorOptions,
    moreHelp: { FilterCatalog.text() },
    run: { args, console throws(UsageError) in
      if let file = args[ApplyCorrections.option] {
        return try ApplyCorrections.run(file, args, console: console)
      }
      let settings = try EditSettings(args)
      let output = try OutputTarget(args)
      var requests: [StepRequest] = []
      for path in args.all(recipe) {
        do throws(StoreError) {
          requests += try EditStore.recipe(from: path, limit: settings.maxFileBytes)
        } catch {
          // A recipe that cannot be used stops the command before any photo is touched.
          console.printError("photoedit: \(path): \(ErrorText.message(error))")
          return ExitStatus.of(error)
        }
      }
      for word in args.all(filter) {
        do throws(FilterWordError) {
          requests.append(
            try FilterWords.parse(word) { (path: String) throws(StoreError) in
              try EditStore.readFile(path, limit: settings.maxFileBytes)
            })
        } catch {
          if let status = FilterWords.reportFileProblem(error, console: console) { return status }
          throw UsageError(ErrorText.message(error), command: "apply")
        }
      }
      guard !requests.isEmpty else {
        throw UsageError("give at least one --filter or --recipe", command: "apply")
      }
      let pending = requests
      if let status = settings.detectors.preflight(DetectorLoader.needed(by: requests), console: console) {
        return status
      }
      let batch = args[CommonOptions.recursive] || args.operands.count > 1 || args.operands.contains("-")
      if output.isInPlace, batch, !args[CommonOptions.quiet], !settings.dryRun,
        requests.contains(where: { $0.requirements.checksHiding })
      {
        // Publishing the folder as it is would publish every face: say so before the first line.
        console.printError(
          "photoedit: note: in place, each photo's original (with its faces) is kept beside it as PHOTO.original; publish with --output-dir, or export the renders with 'photoedit render -r DIR --output-dir PUBLIC'"
        )
      }
      return try BatchRunner(arguments: args, console: console, editsInPlace: true, output: output).run(
        check: { entries throws(UsageError) in try output.checkDistinctOutputs(entries, command: "apply") }
      ) { (entry: PhotoFolder.Entry) in
        try output.writing(for: entry, dryRun: settings.dryRun) { target in
          FileResult(
            try EditStore(settings: settings.store(for: entry.path, console: console)).apply(
              pending, to: entry.path, output: target))
        }
      }
    })
}
