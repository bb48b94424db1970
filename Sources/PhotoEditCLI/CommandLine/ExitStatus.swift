/// The exit statuses photoedit documents (sysexits.h values), in one place.
public enum ExitStatus {
  public static let success: Int32 = 0
  /// Several files were given and at least one failed.
  public static let someFailed: Int32 = 1
  /// A usage error, found before any file was touched.
  public static let usage: Int32 = 64
  /// Bad data: a corrupt image, an unreadable or newer recipe.
  public static let dataError: Int32 = 65
  /// An input is missing.
  public static let noInput: Int32 = 66
  /// An output cannot be written.
  public static let cannotCreate: Int32 = 73

  /// Each status with what it means, for `photoedit help` and the manual page.
  static let documented: [(Int32, String)] = [
    (success, "success, including nothing to do (nothing to undo, an unedited photo rendered)"),
    (someFailed, "several files were given and some failed (each said why on standard error)"),
    (usage, "usage error: the request cannot apply (a bad option, a step the recipe lacks); nothing was touched"),
    (dataError, "bad data: a corrupt image, an unreadable or newer recipe"),
    (noInput, "an input is missing or cannot be opened"),
    (cannotCreate, "an output cannot be written; nothing was changed"),
  ]
}
