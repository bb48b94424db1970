import PhotoCore
import Recipe

enum ApplyCommand {
  static let command = Command(
    name: "apply", summary: "Append edits to each photo's recipe and re-render it from the original.",
    usage: "photoedit apply (--filter NAME[:key=value,...] | --recipe FILE)... [options] FILE...",
    discussion: """
      Filters apply in the order given, after the photo's existing edits. The render is always made
      from the original, never from the previous render. --recipe takes the portable edits of a
      sidecar or recipe file (faces are detected afresh). In place, PHOTO becomes the render, its
      original is kept as PHOTO.original and the recipe in PHOTO.photoedit.json. With -o or
      --output-dir the input is left untouched and is itself the original.
      """,
    options: CommonOptions.batch + [
      OptionSpec(
        long: "filter", short: "f", valueName: "NAME[:k=v,...]", repeatable: true,
        help: "an edit to append (see 'photoedit filters')"),
      OptionSpec(
        long: "recipe", valueName: "FILE", repeatable: true,
        help: "append the portable edits of a sidecar or recipe file"),
    ] + OutputTarget.options + EditSettings.encodingOptions + EditSettings.options,
    moreHelp: { Filters.catalogText() },
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      let output = try OutputTarget(args)
      var operations: [PendingOperation] = []
      for path in args.allValues("recipe") {
        do throws(StoreError) {
          operations += try EditStore.recipe(from: path)
        } catch {
          // A recipe that cannot be used stops the command before any photo is touched.
          console.printError("photoedit: \(path): \(error.description)")
          return error.status
        }
      }
      for word in args.allValues("filter") {
        do throws(FilterError) {
          operations.append(try Filters.parse(word, readFile: { path in try EditStore.readFile(path) }))
        } catch {
          throw UsageError(error.description, command: "apply")
        }
      }
      guard !operations.isEmpty else {
        throw UsageError("give at least one --filter or --recipe", command: "apply")
      }
      let pending = operations
      return try BatchRunner(arguments: args, console: console).run(
        check: { entries throws(UsageError) in try output.checkDistinctOutputs(entries, command: "apply") }
      ) { path in
        let target = try output.path(for: path, dryRun: settings.dryRun)
        if target != nil, FileList.kind(of: path + FileList.sidecarSuffix) != .missing {
          // Its pixels are a render: taking them as the original would hide the recipe behind
          // them and cost a generation.
          throw FileProblem(
            status: ExitStatus.dataError,
            description:
              "this photo is already edited (its recipe is \(path)\(FileList.sidecarSuffix)); apply in place, or export it with 'photoedit render \(path) -o OUT'"
          )
        }
        if target == nil, FileList.kind(of: path, followingLinks: false) == .other,
          FileList.kind(of: path) == .regular
        {
          // Preserving a link would keep the link, not the bytes it points to.
          throw FileProblem(
            status: ExitStatus.dataError,
            description: "is a symbolic link; edit the file it points to, or write the edit elsewhere with -o"
          )
        }
        return FileResult(
          try EditStore.apply(
            pending, to: path, output: target,
            settings: settings.store(for: path, console: console)))
      }
    })
}
