import PhotoCore

enum HelpCommand {
  static let command = Command(
    name: "help", summary: "Show help for photoedit or one command.",
    usage: "photoedit help [COMMAND]",
    options: [CommonOptions.help],
    run: { args, console throws(UsageError) in
      guard let name = args.operands.first else {
        console.print(overview)
        return ExitStatus.success
      }
      guard let command = PhotoEditCLI.commands.first(where: { $0.name == name }) else {
        throw UsageError("no help for unknown command '\(name)'", command: "help")
      }
      console.print(command.help, terminator: "")
      return ExitStatus.success
    })

  static var overview: String {
    let width = PhotoEditCLI.commands.map(\.name.count).max() ?? 0
    let list = PhotoEditCLI.commands.map { c in
      "  " + c.name + String(repeating: " ", count: width - c.name.count) + "  " + c.summary
    }.joined(separator: "\n")
    return """
      photoedit \(PhotoEditCLI.version): a non-destructive photo editor. Edits are recipes in a sidecar \
      (PHOTO.photoedit.json);
      the original is kept byte for byte (PHOTO.original) and PHOTO is a render of original + recipe.

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
      exit status: 0 success; 1 several files given and some failed; 64 usage error;
      65 bad data; 66 input missing; 73 cannot write output.
      """
  }
}
