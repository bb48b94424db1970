/// A JSON value, so that operations can carry their parameters without Foundation.
///
/// `JSONParser` reads it and `JSONWriter` writes it, for every file and line photoedit handles.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public var number: Double? { if case .number(let n) = self { n } else { nil } }
  public var string: String? { if case .string(let s) = self { s } else { nil } }
  /// A whole number under 10^15 in magnitude (every such number is exact in a double), or nil.
  public var integer: Int? {
    guard case .number(let n) = self, n == n.rounded(), abs(n) < 1e15 else { return nil }
    return Int(n)
  }
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
  public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
  public var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
}
