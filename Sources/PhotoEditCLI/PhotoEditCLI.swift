import PhotoCore

/// The photoedit command line, as a library so tests can run it in-process.
public enum PhotoEditCLI {
  public static let version = "0.1.0"

  /// Runs one command line (without the program name) and returns the exit status.
  public static func run(arguments: [String]) -> Int32 {
    0
  }
}
