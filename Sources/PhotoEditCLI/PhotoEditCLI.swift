import PhotoCore
import Recipe
import Store

/// The photoedit command line, as a library so tests can run it in-process.
public enum PhotoEditCLI {
  public static let version = "0.1.0"

  /// Every subcommand, in the order `photoedit help` lists them.
  static let commands: [Command] = [
    ApplyCommand.command, EditCommand.command, UndoRedoCommand.undo, UndoRedoCommand.redo,
    RevertCommand.command,
    RenderCommand.command, ShowCommand.command, StatusCommand.command, CheckCommand.command,
    DetectCommand.command, AuditCommand.command, ReviewCommand.command, FiltersCommand.command,
    HelpCommand.command, CompletionCommand.command,
  ]

  static let usageLine = "usage: photoedit COMMAND [options] FILE...   (photoedit help COMMAND for more)"

  /// The process's arguments without the program name, from their own bytes: Swift's
  /// `CommandLine.arguments` would repair a file name that is not UTF-8 into U+FFFD, which names
  /// no file (see `PathName`).
  public static func processArguments() -> [String] {
    (1..<Int(CommandLine.argc)).map { PathName.string(cString: CommandLine.unsafeArgv[$0]!) }
  }

  /// Runs one command line (without the program name) and returns the exit status.
  public static func run(arguments: [String], console: Console = .standard) -> Int32 {
    guard let first = arguments.first else {
      console.printError("photoedit: error: no command given")
      console.printError(usageLine)
      return ExitStatus.usage
    }
    switch first {
    case "--version", "-V", "version":
      if arguments.count > 1 {
        return fail(UsageError("\(first) takes no arguments, not '\(arguments[1])'"), console: console)
      }
      console.print("photoedit \(version)")
      return ExitStatus.success
    case "--help", "-h":
      console.print(HelpCommand.overview)
      return ExitStatus.success
    default:
      break
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      return fail(UsageError("unknown command '\(first)'" + suggestion(forCommand: first)), console: console)
    }
    do throws(UsageError) {
      let parsed = try ArgumentScanner.scan(
        Array(arguments.dropFirst()), command: command.name, options: command.options)
      if parsed[CommonOptions.help] {
        console.print(command.help, terminator: "")
        return ExitStatus.success
      }
      // The process's memory budget, shared by every photo the command works on at once.
      if let megabytes = parsed[CommonOptions.maxMemory] { MemoryBudget.process.limit = megabytes << 20 }
      return try command.run(parsed, console)
    } catch {
      return fail(error, console: console)
    }
  }

  /// `; did you mean 'apply'?` for a command name one slip away from `word`, else nothing.
  static func suggestion(forCommand word: String) -> String {
    Suggestion.closest(to: word, among: commands.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
  }

  private static func fail(_ error: UsageError, console: Console) -> Int32 {
    console.printError("photoedit: error: \(error.description)")
    if let name = error.command, let command = commands.first(where: { $0.name == name }) {
      console.printError("usage: \(command.usage)")
    } else {
      console.printError(usageLine)
    }
    return ExitStatus.usage
  }
}

extension Console {
  /// Writes text to standard output with the given terminator.
  func print(_ text: String, terminator: String) {
    if terminator == "\n" { print(text) } else { print(String(text.dropLast(text.hasSuffix("\n") ? 1 : 0))) }
  }
}
