import PhotoCore

enum HelpCommand {
  static let man = Flag(
    "man", help: "print the manual page photoedit(1), every command and filter, for man -l")

  static let command = Command(
    name: "help", summary: "Show help for photoedit or one command.",
    usage: "photoedit help [COMMAND] | help --man",
    options: [CommonOptions.help, man],
    run: { args, console throws(UsageError) in
      if args[man] {
        if let extra = args.operands.first {
          throw UsageError("--man takes no command, not '\(extra)'", command: "help")
        }
        console.print(ManualPage.text(), terminator: "")
        return ExitStatus.success
      }
      guard let name = args.operands.first else {
        console.print(overview)
        return ExitStatus.success
      }
      guard let command = PhotoEditCLI.commands.first(where: { $0.name == name }) else {
        throw UsageError(
          "no help for unknown command '\(name)'" + PhotoEditCLI.suggestion(forCommand: name), command: "help"
        )
      }
      console.print(command.help, terminator: "")
      return ExitStatus.success
    })

  /// `photoedit help`: every line at most `TextLayout.width` columns.
  static var overview: String {
    let list = TextLayout.table(PhotoEditCLI.commands.map { ($0.name, $0.summary) }).joined(separator: "\n")
    return """
      photoedit \(PhotoEditCLI.version): a non-destructive photo editor. Edits are recipes in a sidecar
      (PHOTO.photoedit.json); the original is kept byte for byte (PHOTO.original) and PHOTO is a
      render of original + recipe.

      \(PhotoEditCLI.usageLine)

      commands:
      \(list)

      examples:
        photoedit apply --filter faceblur in.jpg
        photoedit apply --filter sepia:intensity=0.8 --filter vignette *.jpg
        photoedit undo in.jpg
        photoedit revert in.jpg

      Options may come before or after the files; -- ends the options. '-' reads file names from
      standard input (-0: NUL-separated); -r walks folders; -j N sets parallel workers.
      exit status:
      \(TextLayout.table(ExitStatus.documented.map { ("\($0.0)", $0.1) }).joined(separator: "\n"))

      man photoedit (after 'make install'), or photoedit help --man | man -l -, has every command
      and filter; 'photoedit completion bash|zsh|fish' prints a shell completion script.
      """
  }
}
