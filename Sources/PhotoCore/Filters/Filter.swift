/// One filter: its declaration (name, summary, version, parameters) and its behaviour.
///
/// A new filter is one file with a type conforming to `Filter`, plus its line in `Filters.all`.
/// The declaration alone gives it command-line parsing, validation, the sidecar's encoding,
/// `photoedit filters` and `photoedit help apply`.
///
///     struct InvertFilter: Filter {
///       static let name = "invert"
///       static let summary = "Inverts the colours."
///       static let version = 1
///       static let parameters = [
///         FilterParameter("amount", .number(0...1), default: .number(1), help: "0 leaves the image as it is")
///       ]
///       static func render(_ p: FilterValues, derived: [String: JSONValue], on image: inout Image,
///                          context: FilterContext) throws(FilterError) {
///         image.invert(amount: p.number("amount"))
///       }
///     }
public protocol Filter: Sendable {
  /// The word after `--filter`, lowercase.
  static var name: String { get }
  /// One line for `photoedit filters`.
  static var summary: String { get }
  /// The version of the stored parameters; raised on every incompatible change (see `migrate`).
  static var version: Int { get }
  /// Every parameter, in the order `photoedit filters` shows them.
  static var parameters: [FilterParameter] { get }

  /// Checks parameters against each other, before any image is seen (parse time, and when a
  /// stored operation is validated). `p` holds the given values with defaults filled in.
  static func check(_ p: FilterValues) throws(FilterError)

  /// Checks `p` (pixels or fractions, defaults filled in) against `image`, the image as it enters
  /// this step, may fill in values the recipe should keep (brush stores its pen's colour and
  /// size), and returns the derived state to store (faceblur's faces); most filters return an
  /// empty dictionary.
  static func resolve(_ p: inout FilterValues, for image: Image, context: FilterContext) throws(FilterError)
    -> [String: JSONValue]

  /// Checks a stored operation's derived state.
  static func checkDerived(_ derived: [String: JSONValue]) throws(FilterError)

  /// Renders the operation on `image`. `p` holds fractions (stored form). Deterministic.
  static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError)

  /// Turns stored parameters of an older `version` into the current version's parameters.
  static func migrate(_ parameters: [String: JSONValue], from version: Int) throws(FilterError)
    -> [String: JSONValue]
}

extension Filter {
  public static func check(_ p: FilterValues) throws(FilterError) {}
  public static func resolve(_ p: inout FilterValues, for image: Image, context: FilterContext)
    throws(FilterError)
    -> [String: JSONValue]
  { [:] }
  public static func checkDerived(_ derived: [String: JSONValue]) throws(FilterError) {
    if let key = derived.keys.sorted().first { throw .badDerivedState(filter: name, key: key) }
  }
  public static func migrate(_ parameters: [String: JSONValue], from version: Int) throws(FilterError)
    -> [String: JSONValue]
  { parameters }
}

/// A filter whose every output row depends only on the same input row and where it lies
/// (sepia, vignette). Such a filter renders any band of rows on its own, so a JPEG can be
/// filtered and encoded band by band while the rest of it is still being decoded.
///
/// A row filter implements `rowRenderer` instead of `render`. It must leave alpha as it is, and
/// its `resolve` must not read pixels (it may be called before they are decoded).
public protocol RowFilter: Filter {
  /// Prepares `p` (stored form) for an image of this size. The renderer is called from several
  /// threads at once, on disjoint bands, and must give each row exactly what `render` gives.
  static func rowRenderer(_ p: FilterValues, derived: [String: JSONValue], width: Int, height: Int)
    -> @Sendable (ImageRows) -> Void
}

extension RowFilter {
  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    image.forEachBand(rowRenderer(p, derived: derived, width: image.width, height: image.height))
  }
}

/// The values of one operation's parameters, with defaults filled in, and typed accessors.
///
/// Lengths are pixels or fractions before `resolve` and fractions after; the `pixels` accessors
/// give pixels of a given image either way.
public struct FilterValues: Sendable, Hashable {
  public let filter: String
  public var values: [String: ParameterValue]

  public init(filter: String, values: [String: ParameterValue]) {
    (self.filter, self.values) = (filter, values)
  }

  public subscript(name: String) -> ParameterValue? { values[name] }
  public func has(_ name: String) -> Bool { values[name] != nil }

  public func number(_ name: String) -> Double {
    guard case .number(let v) = values[name] else { preconditionFailure("\(filter).\(name) is not a number") }
    return v
  }
  public func integer(_ name: String) -> Int {
    guard case .integer(let v) = values[name] else {
      preconditionFailure("\(filter).\(name) is not an integer")
    }
    return v
  }
  public func optionalInteger(_ name: String) -> Int? {
    guard case .integer(let v) = values[name] else { return nil }
    return v
  }
  public func choice(_ name: String) -> String {
    guard case .choice(let v) = values[name] else { preconditionFailure("\(filter).\(name) is not a choice") }
    return v
  }
  public func length(_ name: String) -> Length? {
    guard case .length(let v) = values[name] else { return nil }
    return v
  }
  public func point(_ name: String) -> Point? {
    guard case .point(let v) = values[name] else { return nil }
    return v
  }
  public func points(_ name: String) -> [Point]? {
    guard case .points(let v) = values[name] else { return nil }
    return v
  }
  public func strokes(_ name: String) -> [[Point]]? {
    guard case .strokes(let v) = values[name] else { return nil }
    return v
  }
  public func ratio(_ name: String) -> (Double, Double)? {
    guard case .ratio(let w, let h) = values[name] else { return nil }
    return (w, h)
  }
  public func color(_ name: String) -> RGBA? {
    guard case .color(let v) = values[name] else { return nil }
    return v
  }
  public func integers(_ name: String) -> [Int] {
    guard case .integers(let v) = values[name] else { return [] }
    return v
  }

  /// A length parameter in pixels of `image`, measured along `axis`.
  public func pixels(_ name: String, _ axis: Axis, of image: Image) -> Double? {
    length(name).map { $0.pixels(of: axis.extent(width: image.width, height: image.height)) }
  }

  /// The text of a value for messages, as the command line writes it.
  public func text(_ name: String) -> String { values[name].map(commandLineText) ?? "" }
}
