// CONTRACT (owned by the filters work; the signatures below are what Recipe and the CLI call).

/// A `--filter` word that has been parsed and validated but has not met an image yet.
public struct PendingOperation: Sendable {
  public let filter: String

  /// Turns the pending step into a stored operation for `image`, the image as it enters this step:
  /// pixel geometry is normalised, and faceblur detects its faces here.
  public func resolve(for image: Image, context: FilterContext) throws(FilterError) -> Operation {
    fatalError("not implemented")
  }
}

/// The registry of every filter, and the one entry point the rest of the program uses.
public enum Filters {
  /// Parses one `--filter` word, `NAME[:key=value,...]`. `readFile` reads a file a parameter names
  /// (brush strokes), since PhotoCore does no I/O.
  public static func parse(
    _ word: String, readFile: (String) throws -> [UInt8]
  ) throws(FilterError) -> PendingOperation {
    fatalError("not implemented")
  }

  /// A stored operation's portable part, ready to be resolved against another photo (derived
  /// state such as face boxes is dropped).
  public static func pending(from operation: Operation) throws(FilterError) -> PendingOperation {
    fatalError("not implemented")
  }

  /// Checks that a stored operation can be rendered (known filter, version not newer than ours,
  /// valid parameters) and migrates an older version to the current one.
  public static func validate(_ operation: Operation) throws(FilterError) -> Operation {
    fatalError("not implemented")
  }

  /// Every filter with its parameters (type, range, default, help), for `photoedit filters`
  /// and `photoedit help apply`.
  public static func catalogText() -> String {
    fatalError("not implemented")
  }

  /// The same catalogue as JSON: an array with one object per filter.
  public static func catalogJSON() -> JSONValue {
    fatalError("not implemented")
  }

  /// Applies a stored operation. Deterministic: the same image and operation give the same bytes.
  public static func render(
    _ operation: Operation, on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    fatalError("not implemented")
  }
}

/// Why a filter word or a stored operation was refused. `description` is one line.
public enum FilterError: Error, Equatable, CustomStringConvertible {
  case unknownFilter(String)
  case message(String)

  public var description: String {
    switch self {
    case .unknownFilter(let name): "unknown filter '\(name)' (see 'photoedit filters')"
    case .message(let m): m
    }
  }
}
