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
}
