import PhotoCore
import Recipe
import Store

enum EditCommand {
  static let step = Option.integer("step", 1...1_000_000, help: "the step to change, from 1")
  static let set = Option.text("set", valueName: "k=v,...", help: "new values for the step's parameters")
  static let remove = Flag("remove", help: "take the step out of the recipe")
  static let move = Option.integer(
    "move", valueName: "M", 1...1_000_000, help: "move the step so that it becomes step M")

  static let command = Command(
    name: "edit", summary: "Change, remove or move one step of each photo's recipe, and re-render.",
    usage: "photoedit edit FILE... --step N (--set k=v[,k=v...] | --remove | --move M) [options]",
    discussion: """
      Steps are numbered from 1, as 'photoedit show' lists them. --set changes parameters of step
      N, checked as apply checks them (a key no filter has, or a value no filter with that key
      takes, is a usage error; a key step N's filter does not have is that photo's error).
      --remove takes the step out; --move M makes it step M, the steps between shifting by one.
      The photo is re-rendered from the original: the same bytes a fresh apply of the new recipe
      gives. For faceblur, --set exclude= or add= changes the corrections without detecting again;
      a detector setting finds the faces again and carries each exclusion to its face (an
      exclusion whose face is not found again is dropped, with a warning). undo takes the edit
      back.
      """,
    options: CommonOptions.batch + [step, set, remove, move] + EditSettings.encodingOptions
      + EditSettings.writing + EditSettings.detectorOptions,
    run: { args, console throws(UsageError) in
      let settings = try EditSettings(args)
      guard let step = args[EditCommand.step] else {
        throw UsageError(
          "give --step N (steps count from 1, as 'photoedit show' lists them)", command: "edit")
      }
      let actions = [args.has(EditCommand.set), args[EditCommand.remove], args.has(EditCommand.move)].filter {
        $0
      }
      guard actions.count == 1 else {
        throw UsageError("give exactly one of --set, --remove and --move", command: "edit")
      }
      let action: EditAction
      if let text = args[EditCommand.set] {
        let (pairs, fileProblem, files) = try pairs(text)
        if let fileProblem, let status = FilterWords.reportFileProblem(fileProblem, console: console) {
          return status
        }
        action = .set(files: files) { n, filter throws(StoreError) in
          try values(pairs, step: n, filter: filter)
        }
      } else if let to = args[EditCommand.move] {
        action = .move(to: to)
      } else {
        action = .remove
      }
      return try BatchRunner(arguments: args, console: console, editsInPlace: true).run { path in
        FileResult(
          try EditStore(settings: settings.store(for: path, console: console)).edit(path, step: step, action))
      }
    })

  /// `key=value,...`, checked before any photo is touched: every key must be some filter's, and
  /// every value one that some filter with that key takes. A file a value names (a brush's
  /// strokes) that cannot be read or is not one is returned as `fileProblem`, for the caller to
  /// report as the input it is (``FilterWords/reportFileProblem(_:console:)``); `files` are the
  /// files values are read from, by key, for refusals to name.
  static func pairs(_ text: String) throws(UsageError) -> (
    pairs: [(key: String, text: String)], fileProblem: FilterWordError?, files: [String: String]
  ) {
    var fileProblem: FilterWordError? = nil
    var files: [String: String] = [:]
    var out: [(key: String, text: String)] = []
    for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw UsageError("--set: expected key=value, got '\(pair)'", command: "edit")
      }
      let key = String(pair[..<eq])
      let value = String(pair[pair.index(after: eq)...])
      guard !out.contains(where: { $0.key == key }) else {
        throw UsageError("--set: parameter '\(key)' is given twice", command: "edit")
      }
      let candidates = Filters.catalog().compactMap { f in f.parameters.first { $0.name == key } }
      guard !candidates.isEmpty else {
        throw UsageError(
          "--set: unknown parameter '\(key)' (no filter has it; see 'photoedit filters')", command: "edit")
      }
      var problem: String? = nil
      let fits = candidates.contains { p in
        do throws(FilterWordError) {
          let v = try FilterWords.value(
            value, kind: p.kind, filter: "", key: key,
            readFile: { (path: String) throws(StoreError) in try EditStore.readFile(path) })
          if p.kind.allows(v) { return true }
          problem = ErrorText.message(p.kind.refusal(of: v, filter: "", key: key).naming(files: [key: value]))
        } catch {
          switch error {
          case .unreadableFile, .badFile:
            fileProblem = fileProblem ?? error
            return true
          default: problem = "\(key)='\(value)' is not \(ValueText.expected(p.kind))"
          }
        }
        return false
      }
      guard fits else { throw UsageError("--set: \(problem ?? key)", command: "edit") }
      if candidates.contains(where: { $0.kind == .strokes }) { files[key] = value }
      out.append((key, value))
    }
    return (out, fileProblem, files)
  }

  /// The pairs read for one photo's step: its filter's kinds.
  static func values(_ pairs: [(key: String, text: String)], step: Int, filter: Filters.Description)
    throws(StoreError) -> [String: ParameterValue]
  {
    var values: [String: ParameterValue] = [:]
    for (key, text) in pairs {
      guard let p = filter.parameters.first(where: { $0.name == key }) else {
        throw .step(
          index: step - 1,
          .unknownParameter(filter: filter.name, key: key, known: filter.parameters.map(\.name)))
      }
      do throws(FilterWordError) {
        values[key] = try FilterWords.value(
          text, kind: p.kind, filter: filter.name, key: key,
          readFile: { (path: String) throws(StoreError) in try EditStore.readFile(path) })
      } catch {
        if case .unreadableFile(_, _, _, let e) = error { throw e }
        throw .badStepValue(step: step, filter: filter.name, key: key, text: text, expected: p.kind)
      }
    }
    return values
  }
}
