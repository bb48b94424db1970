/// Why a cascade file could not be used.
///
/// The `description` is one line that states what is wrong with the cascade's text; callers add
/// the file name and how to install or name another cascade.
public struct CascadeError: Error, Equatable, CustomStringConvertible {
  /// One line stating the reason, without the file name.
  public var description: String

  public init(_ description: String) { self.description = description }
}
