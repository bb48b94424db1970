import Recipe
import Store

enum UndoRedoCommand {
  static let undo = make(
    name: "undo", summary: "Take the last edit off each photo's recipe and re-render.",
    discussion: "The edit moves to the recipe's undone list, so redo can put it back.",
    action: { path, settings in try EditStore(settings: settings).undo(path) })

  static let redo = make(
    name: "redo", summary: "Put back the last undone edit and re-render.",
    discussion: "Renders are deterministic: undo then redo restores the render byte for byte.",
    action: { path, settings in try EditStore(settings: settings).redo(path) })

  private static func make(
    name: String, summary: String, discussion: String,
    action: @escaping @Sendable (String, StoreSettings) throws -> HistoryOutcome
  ) -> Command {
    Command(
      name: name, summary: summary, usage: "photoedit \(name) [options] FILE...",
      discussion: discussion,
      options: CommonOptions.batch + EditSettings.metadataOptions + EditSettings.writing,
      run: { args, console throws(UsageError) in
        let settings = try EditSettings(args)
        return try BatchRunner(arguments: args, console: console, editsInPlace: true).run { path in
          do {
            return FileResult(try action(path, settings.store(for: path, console: console)))
          } catch StoreError.nothingToUndo, StoreError.nothingToRedo {
            // Nothing to do is success, so 'undo -r' over a folder with unedited photos is 0.
            return .current("nothing to \(name)")
          }
        }
      })
  }
}
