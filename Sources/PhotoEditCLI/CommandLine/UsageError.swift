/// A command line that cannot be run: printed as `photoedit: error: MESSAGE` plus the usage line,
/// and the exit status is 64. Nothing has been touched when one is thrown.
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public var description: String
  /// The command whose usage line follows the message, or nil for the general usage.
  public var command: String?

  public init(_ description: String, command: String? = nil) {
    self.description = description
    self.command = command
  }
}
