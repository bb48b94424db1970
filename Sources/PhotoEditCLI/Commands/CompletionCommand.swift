import PhotoCore

/// `photoedit completion bash|zsh|fish` prints a shell's completion script; the script asks
/// `photoedit completion candidates -- WORD...` what may follow, so commands, options, filter names
/// and their parameters come from the same declarations as parsing and help, in every shell.
enum CompletionCommand {
  static let shells = ["bash", "zsh", "fish"]

  static let command = Command(
    name: "completion", summary: "Print a shell completion script (bash, zsh or fish).",
    usage: "photoedit completion bash|zsh|fish",
    discussion: """
      Completes commands, options, filter names and their parameters, and file names. 'make install'
      installs the scripts where bash-completion, zsh and fish look for them; to try one in the
      current shell: source <(photoedit completion bash).
      """,
    options: [CommonOptions.help],
    run: { args, console throws(UsageError) in
      let operands = args.operands
      if operands.first == "candidates" {
        console.print(Completion.candidates(Array(operands.dropFirst())).joined(separator: "\n"))
        return ExitStatus.success
      }
      guard operands.count == 1, let shell = operands.first, let script = CompletionScripts.script(shell)
      else {
        throw UsageError(
          "give one shell: \(shells.joined(separator: ", "))"
            + (operands.first.map { ", not '\($0)'" } ?? ""), command: "completion")
      }
      console.print(script, terminator: "")
      return ExitStatus.success
    })
}

/// What may complete the last word of a command line, from the commands' declarations.
///
/// The answer's first line says what kind of answer it is: `words` (the other lines are whole
/// words that start with the word being completed), or `files` / `dirs` (the second line is a
/// prefix the shell keeps, such as `--output=`, the third the partial path it completes).
enum Completion {
  static func candidates(_ words: [String]) -> [String] {
    let current = words.last ?? ""
    guard words.count > 1, let command = PhotoEditCLI.commands.first(where: { $0.name == words[0] }) else {
      let names = PhotoEditCLI.commands.map(\.name) + ["--help", "--version"]
      return ["words"] + names.filter { $0.hasPrefix(current) }
    }
    let previous = words[words.count - 2]
    if current.hasPrefix("--"), let equals = current.firstIndex(of: "="),
      let option = command.options.first(where: { "--" + $0.long == current[..<equals] })
    {
      return values(
        of: option, prefix: String(current[...equals]),
        partial: String(current[current.index(after: equals)...]))
    }
    if words.count > 2, let option = valueOption(previous, in: command) {
      return values(of: option, prefix: "", partial: current)
    }
    if current.hasPrefix("-") {
      let names = command.options.map { "--" + $0.long }
      return ["words"] + names.filter { $0.hasPrefix(current) }
    }
    switch command.name {
    case "help": return ["words"] + PhotoEditCLI.commands.map(\.name).filter { $0.hasPrefix(current) }
    case "completion": return ["words"] + CompletionCommand.shells.filter { $0.hasPrefix(current) }
    case "filters": return ["words"]
    default: return ["files", "", current]
    }
  }

  /// The option that `word` names when it takes a value (`--output`, `-o`, or `-jo`'s last letter).
  private static func valueOption(_ word: String, in command: Command) -> OptionSpec? {
    let option: OptionSpec?
    if word.hasPrefix("--") {
      option = command.options.first { "--" + $0.long == word }
    } else if word.hasPrefix("-"), let letter = word.last, word.count > 1 {
      option = command.options.first { $0.short == letter }
    } else {
      option = nil
    }
    return option?.valueName == nil ? nil : option
  }

  /// What the option's kind says may follow: files, folders, its words, or a filter word.
  private static func values(of option: OptionSpec, prefix: String, partial: String) -> [String] {
    if option.long == ApplyCommand.filter.spec.long {
      return ["words"] + filterWords(partial).map { prefix + $0 }
    }
    switch option.kind {
    case .folder: return ["dirs", prefix, partial]
    case .file: return ["files", prefix, partial]
    case .choice(let words): return ["words"] + words.filter { $0.hasPrefix(partial) }.map { prefix + $0 }
    default: return ["words"]
    }
  }

  /// `--filter` values: a filter's name, then `name:key=value,key=value` with each parameter's name
  /// (once) and a choice parameter's words.
  static func filterWords(_ partial: String, catalog: [Filters.Description] = Filters.catalog()) -> [String] {
    guard let colon = partial.firstIndex(of: ":") else {
      return catalog.map(\.name).filter { $0.hasPrefix(partial) }
    }
    guard let filter = catalog.first(where: { $0.name == partial[..<colon] }) else { return [] }
    let settings = partial[partial.index(after: colon)...]
    let head = settings.lastIndex(of: ",").map { String(partial[...$0]) } ?? String(partial[...colon])
    let last = settings.lastIndex(of: ",").map { settings[settings.index(after: $0)...] } ?? settings
    if let equals = last.firstIndex(of: "=") {
      let key = last[..<equals]
      let typed = last[last.index(after: equals)...]
      guard let parameter = filter.parameters.first(where: { $0.name == key }),
        case .choice(let words) = parameter.kind
      else { return [] }
      return words.filter { $0.hasPrefix(typed) }.map { head + key + "=" + $0 }
    }
    let used = Set(
      settings.split(separator: ",", omittingEmptySubsequences: false).dropLast().compactMap {
        $0.split(separator: "=").first.map(String.init)
      })
    return filter.parameters.map(\.name)
      .filter { $0.hasPrefix(last) && !used.contains($0) }
      .map { head + $0 + "=" }
  }
}
