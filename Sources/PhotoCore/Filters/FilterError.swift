/// Why a filter word or a stored operation was refused.
///
/// Each case carries the facts; `description` is one line that names the filter, the key and the
/// allowed range where they apply. The CLI exits 64 on any `FilterError` thrown by `Filters.parse`.
public enum FilterError: Error, Equatable, CustomStringConvertible {
  /// No filter has this name.
  case unknownFilter(String)
  /// The word after the name's `:` is not a `key=value` pair.
  case malformedParameter(filter: String, text: String)
  /// The filter has no parameter `key`; `known` lists the ones it has.
  case unknownParameter(filter: String, key: String, known: [String])
  /// A key was given twice.
  case duplicateParameter(filter: String, key: String)
  /// A value that is not of the parameter's type; `expected` describes the syntax.
  case badValue(filter: String, key: String, value: String, expected: String)
  /// A value of the right type outside the allowed range.
  case outOfRange(filter: String, key: String, value: String, range: String)
  /// A parameter the filter needs was not given.
  case missingParameter(filter: String, key: String)
  /// Two parameters that cannot be used together.
  case conflictingParameters(filter: String, keys: [String])
  /// A stored operation of a newer version than this program knows.
  case newerVersion(filter: String, found: Int, supported: Int)
  /// A stored operation's derived state is missing or malformed.
  case badDerivedState(filter: String, key: String)
  /// A region (in pixels of the image entering the step) that does not fit in the image.
  case regionOutsideImage(filter: String, region: String, width: Int, height: Int)
  /// A file named by a parameter could not be read or parsed.
  case unreadableFile(filter: String, key: String, path: String, reason: String)
  /// The face cascade could not be loaded.
  case cascadeUnavailable(String)

  public var description: String {
    switch self {
    case .unknownFilter(let name):
      "unknown filter '\(name)' (see 'photoedit filters')"
    case .malformedParameter(let filter, let text):
      "\(filter): expected key=value, got '\(text)'"
    case .unknownParameter(let filter, let key, let known):
      "\(filter): unknown parameter '\(key)' (known: \(known.joined(separator: ", ")))"
    case .duplicateParameter(let filter, let key):
      "\(filter): parameter '\(key)' is given twice"
    case .badValue(let filter, let key, let value, let expected):
      "\(filter): \(key)='\(value)' is not \(expected)"
    case .outOfRange(let filter, let key, let value, let range):
      "\(filter): \(key)=\(value) is out of range (allowed: \(range))"
    case .missingParameter(let filter, let key):
      "\(filter): parameter '\(key)' is required"
    case .conflictingParameters(let filter, let keys):
      "\(filter): parameters \(keys.map { "'\($0)'" }.joined(separator: " and ")) cannot be used together"
    case .newerVersion(let filter, let found, let supported):
      "\(filter): operation version \(found) is newer than this program supports (\(supported))"
    case .badDerivedState(let filter, let key):
      "\(filter): stored derived state '\(key)' is missing or malformed"
    case .regionOutsideImage(let filter, let region, let width, let height):
      "\(filter): \(region) leaves the \(width)x\(height) image"
    case .unreadableFile(let filter, let key, let path, let reason):
      "\(filter): \(key) file '\(path)': \(reason)"
    case .cascadeUnavailable(let reason):
      reason
    }
  }
}
