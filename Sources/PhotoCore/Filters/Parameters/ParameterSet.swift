/// A filter's parameters, or its derived state: a struct of typed fields, each declared once in
/// `fields` with its name, kind (type and range) and help. The default is the field's value in
/// `init()`.
///
/// Everything else comes from that declaration: validation (values are checked once, when a
/// request is made or a stored step is read, and kernels only see typed values), the stored form,
/// the help text and the filter catalogue.
///
///     struct Parameters: ParameterSet {
///       var intensity = 1.0
///       static let fields: [ParameterField<Self>] = [
///         .number("intensity", \.intensity, 0...1, help: "0 leaves the image unchanged")
///       ]
///     }
public protocol ParameterSet: Sendable, Equatable {
  /// Every field at its default.
  init()
  /// Every field, in the order the catalogue lists them.
  static var fields: [ParameterField<Self>] { get }
  /// Checks fields against each other (a parameter that is missing, or two that conflict). Each
  /// value has already been checked against its kind.
  func check(filter: String) throws(FilterError)
  /// Checks the keys a request gives (a command line or a recipe), beyond ``check(filter:)``: a
  /// parameter that would change nothing with the others given. Stored steps are not checked this
  /// way (a sidecar written before a check existed still reads).
  func check(filter: String, given: Set<String>) throws(FilterError)
  /// The fields that do nothing with the others' values (a detector's settings while another
  /// detector runs): a request may not give them, and `show` leaves them out. The stored form
  /// keeps them.
  var unusedKeys: [String] { get }
}

extension ParameterSet {
  public func check(filter: String) throws(FilterError) {}
  public func check(filter: String, given: Set<String>) throws(FilterError) {}
  public var unusedKeys: [String] { [] }
}

/// The declaration of one field of a `ParameterSet`: its name in the stored form, its kind, its
/// help, whether it travels to other photos, and how to read and write it.
public struct ParameterField<P>: @unchecked Sendable {
  /// The key in the stored form (lowerCamelCase).
  public let name: String
  public let kind: ParameterKind
  public let help: String
  /// False for a value that means something only for the photo it was given for (faceblur's face
  /// indices): a recipe copied to another photo leaves it at its default.
  public let portable: Bool
  /// The value in `P()`, or nil when the field is unset by default.
  public let defaultValue: ParameterValue?
  /// The stored form must hold this field (a derived state that every step of the filter has).
  public let required: Bool
  let get: (P) -> ParameterValue?
  let set: (inout P, ParameterValue?) -> Void
}

extension ParameterField where P: ParameterSet {
  /// A field stored at `keyPath`; `wrap` gives its value (nil: unset), `unwrap` reads one back
  /// (nil: the value is of another kind, a programming error).
  init<V>(
    _ name: String, _ kind: ParameterKind, _ keyPath: WritableKeyPath<P, V>, help: String, portable: Bool,
    required: Bool = false, wrap: @escaping (V) -> ParameterValue?, unwrap: @escaping (ParameterValue) -> V?
  ) {
    let initial = P()[keyPath: keyPath]
    self.name = name
    self.kind = kind
    self.help = help
    self.portable = portable
    self.required = required
    defaultValue = wrap(initial)
    get = { wrap($0[keyPath: keyPath]) }
    set = { p, value in
      guard let value else {
        p[keyPath: keyPath] = initial
        return
      }
      guard let v = unwrap(value) else { preconditionFailure("\(name): \(value) is not \(kind)") }
      p[keyPath: keyPath] = v
    }
  }

  /// An optional field: nil is unset.
  init<V>(
    _ name: String, _ kind: ParameterKind, _ keyPath: WritableKeyPath<P, V?>, help: String, portable: Bool,
    wrap: @escaping (V) -> ParameterValue, unwrap: @escaping (ParameterValue) -> V?
  ) {
    self.init(
      name, kind, keyPath, help: help, portable: portable, wrap: { $0.map(wrap) },
      unwrap: { unwrap($0).map { Optional($0) } })
  }

  public static func number(
    _ name: String, _ keyPath: WritableKeyPath<P, Double>, _ range: ClosedRange<Double>, help: String
  ) -> Self {
    Self(name, .number(range), keyPath, help: help, portable: true, wrap: { .number($0) }) {
      if case .number(let v) = $0 { v } else { nil }
    }
  }

  public static func number(
    _ name: String, _ keyPath: WritableKeyPath<P, Double?>, _ range: ClosedRange<Double>, help: String
  ) -> Self {
    Self(name, .number(range), keyPath, help: help, portable: true, wrap: { .number($0) }) {
      if case .number(let v) = $0 { v } else { nil }
    }
  }

  public static func integer(
    _ name: String, _ keyPath: WritableKeyPath<P, Int>, _ range: ClosedRange<Int>, help: String
  ) -> Self {
    Self(name, .integer(range), keyPath, help: help, portable: true, wrap: { .integer($0) }) {
      if case .integer(let v) = $0 { v } else { nil }
    }
  }

  public static func integer(
    _ name: String, _ keyPath: WritableKeyPath<P, Int?>, _ range: ClosedRange<Int>, help: String
  ) -> Self {
    Self(name, .integer(range), keyPath, help: help, portable: true, wrap: { .integer($0) }) {
      if case .integer(let v) = $0 { v } else { nil }
    }
  }

  /// One of an enumeration's raw values.
  public static func choice<E: RawRepresentable & CaseIterable>(
    _ name: String, _ keyPath: WritableKeyPath<P, E>, help: String
  ) -> Self where E.RawValue == String {
    Self(
      name, .choice(E.allCases.map(\.rawValue)), keyPath, help: help, portable: true,
      wrap: { .choice($0.rawValue) }
    ) {
      if case .choice(let w) = $0 { E(rawValue: w) } else { nil }
    }
  }

  public static func length(
    _ name: String, _ keyPath: WritableKeyPath<P, Length>, _ axis: Axis, fractions: ClosedRange<Double>,
    positive: Bool, minimumPixels: Double = 0, help: String
  ) -> Self {
    Self(
      name, .length(axis, fractions: fractions, positive: positive, minimumPixels: minimumPixels), keyPath,
      help: help, portable: true,
      wrap: { .length($0) }
    ) {
      if case .length(let v) = $0 { v } else { nil }
    }
  }

  public static func length(
    _ name: String, _ keyPath: WritableKeyPath<P, Length?>, _ axis: Axis, fractions: ClosedRange<Double>,
    positive: Bool, minimumPixels: Double = 0, help: String
  ) -> Self {
    Self(
      name, .length(axis, fractions: fractions, positive: positive, minimumPixels: minimumPixels), keyPath,
      help: help, portable: true,
      wrap: { .length($0) }
    ) {
      if case .length(let v) = $0 { v } else { nil }
    }
  }

  public static func point(_ name: String, _ keyPath: WritableKeyPath<P, Point>, help: String) -> Self {
    Self(name, .point, keyPath, help: help, portable: true, wrap: { .point($0) }) {
      if case .point(let v) = $0 { v } else { nil }
    }
  }

  public static func point(_ name: String, _ keyPath: WritableKeyPath<P, Point?>, help: String) -> Self {
    Self(name, .point, keyPath, help: help, portable: true, wrap: { .point($0) }) {
      if case .point(let v) = $0 { v } else { nil }
    }
  }

  public static func points(_ name: String, _ keyPath: WritableKeyPath<P, [Point]?>, help: String) -> Self {
    Self(name, .points, keyPath, help: help, portable: true, wrap: { .points($0) }) {
      if case .points(let v) = $0 { v } else { nil }
    }
  }

  public static func strokes(_ name: String, _ keyPath: WritableKeyPath<P, [[Point]]?>, help: String) -> Self
  {
    Self(name, .strokes, keyPath, help: help, portable: true, wrap: { .strokes($0) }) {
      if case .strokes(let v) = $0 { v } else { nil }
    }
  }

  public static func ratio(_ name: String, _ keyPath: WritableKeyPath<P, Ratio?>, help: String) -> Self {
    Self(name, .ratio, keyPath, help: help, portable: true, wrap: { .ratio($0) }) {
      if case .ratio(let v) = $0 { v } else { nil }
    }
  }

  public static func color(_ name: String, _ keyPath: WritableKeyPath<P, RGBA>, help: String) -> Self {
    Self(name, .color, keyPath, help: help, portable: true, wrap: { .color($0) }) {
      if case .color(let v) = $0 { v } else { nil }
    }
  }

  /// An opaque colour (alpha 255).
  public static func opaqueColor(_ name: String, _ keyPath: WritableKeyPath<P, RGBA>, help: String) -> Self {
    Self(name, .opaqueColor, keyPath, help: help, portable: true, wrap: { .color($0) }) {
      if case .color(let v) = $0 { v } else { nil }
    }
  }

  public static func color(_ name: String, _ keyPath: WritableKeyPath<P, RGBA?>, help: String) -> Self {
    Self(name, .color, keyPath, help: help, portable: true, wrap: { .color($0) }) {
      if case .color(let v) = $0 { v } else { nil }
    }
  }

  /// A list of whole numbers; empty is unset.
  public static func integers(
    _ name: String, _ keyPath: WritableKeyPath<P, [Int]>, _ range: ClosedRange<Int>, portable: Bool = true,
    help: String
  ) -> Self {
    Self(
      name, .integers(range), keyPath, help: help, portable: portable,
      wrap: { $0.isEmpty ? nil : .integers($0) }
    ) {
      if case .integers(let v) = $0 { v } else { nil }
    }
  }

  /// A SHA-256 in hexadecimal; nil is unset. Never carried to another photo.
  public static func digest(_ name: String, _ keyPath: WritableKeyPath<P, String?>, help: String) -> Self {
    Self(name, .digest, keyPath, help: help, portable: false, wrap: { .digest($0) }) {
      if case .digest(let v) = $0 { v } else { nil }
    }
  }

  /// A list of rectangles; empty is unset, unless the field is `required` (then the stored form
  /// always holds it, empty or not).
  public static func boxes(
    _ name: String, _ keyPath: WritableKeyPath<P, [Box]>, portable: Bool = true, required: Bool = false,
    help: String
  ) -> Self {
    Self(
      name, .boxes, keyPath, help: help, portable: portable, required: required,
      wrap: { $0.isEmpty && !required ? nil : .boxes($0) }
    ) {
      if case .boxes(let v) = $0 { v } else { nil }
    }
  }
}

extension ParameterField {
  /// The same field, read and written through `path` of an enclosing set: an older version's
  /// parameters declared as the current ones without some fields.
  func lifted<Q>(_ path: WritableKeyPath<Q, P>) -> ParameterField<Q> {
    let (get, set) = (self.get, self.set)
    return ParameterField<Q>(
      name: name, kind: kind, help: help, portable: portable, defaultValue: defaultValue, required: required,
      get: { get($0[keyPath: path]) }, set: { q, v in set(&q[keyPath: path], v) })
  }
}

extension ParameterSet {
  /// The field named `name`.
  public static func field(named name: String) -> ParameterField<Self>? { fields.first { $0.name == name } }

  /// The parameters given as typed values (pixels or fractions), every other field at its
  /// default; each value checked against its kind, then the fields against each other.
  ///
  /// `given` are the keys the request itself names (all of `values` unless an edit lays them
  /// over a step's current ones), checked by ``check(filter:given:)``.
  ///
  /// - Throws: `.unknownParameter`, `.outOfRange`, and what `check(filter:)` and
  ///   `check(filter:given:)` throw.
  public init(
    filter: String, values: [String: ParameterValue], given: Set<String>? = nil
  ) throws(FilterError) {
    self.init()
    for key in values.keys.sorted() {
      guard let field = Self.field(named: key) else {
        throw .unknownParameter(filter: filter, key: key, known: Self.fields.map(\.name))
      }
      let value = values[key]!
      guard field.kind.allows(value) else {
        throw field.kind.refusal(of: value, filter: filter, key: key)
      }
      field.set(&self, value)
    }
    try check(filter: filter)
    try check(filter: filter, given: given ?? Set(values.keys))
  }

  /// Reads the stored form (lengths are fractions), every absent field at its default.
  ///
  /// - Throws: `.missingParameter` for an absent required field, `.unknownParameter`,
  ///   `.badStoredValue`, `.outOfRange`, and what
  ///   `check(filter:)` throws.
  public init(filter: String, stored: [String: JSONValue]) throws(FilterError) {
    self.init()
    if let missing = Self.fields.first(where: { $0.required && stored[$0.name] == nil }) {
      throw .missingParameter(filter: filter, keys: [missing.name])
    }
    for key in stored.keys.sorted() {
      guard let field = Self.field(named: key) else {
        throw .unknownParameter(filter: filter, key: key, known: Self.fields.map(\.name))
      }
      guard let value = field.kind.decode(stored[key]!) else {
        throw .badStoredValue(filter: filter, key: key, value: stored[key]!, expected: field.kind)
      }
      guard field.kind.allows(value) else {
        throw field.kind.refusal(of: value, filter: filter, key: key)
      }
      field.set(&self, value)
    }
    try check(filter: filter)
  }

  /// The stored form: every field that is set, defaults included. Lengths must be fractions.
  public var stored: [String: JSONValue] {
    var out: [String: JSONValue] = [:]
    for field in Self.fields {
      if let v = field.get(self) { out[field.name] = field.kind.encode(v) }
    }
    return out
  }

  /// Every field that is set, in declaration order, with its kind.
  public var values: [(name: String, value: ParameterValue, kind: ParameterKind)] {
    Self.fields.compactMap { f in f.get(self).map { (f.name, $0, f.kind) } }
  }

  /// The value of the field named `name`, or nil when it is unset.
  public func value(named name: String) -> ParameterValue? { Self.field(named: name)?.get(self) }

  /// Turns every pixel length into a fraction of an image of `width` × `height` and checks the
  /// result against the stored range.
  ///
  /// - Throws: `.outOfRange` naming the image's size, when a value lies outside the image.
  mutating func normalize(filter: String, width: Int, height: Int) throws(FilterError) {
    for field in Self.fields {
      guard let v = field.get(self) else { continue }
      let n = field.kind.normalized(v, width: width, height: height)
      guard field.kind.allows(n, on: ImageSize(width, height)) else {
        throw field.kind.refusal(
          of: v, checked: n, filter: filter, key: field.name, image: ImageSize(width, height))
      }
      field.set(&self, n)
    }
  }

  /// True when no field holds a pixel length.
  var isNormalized: Bool {
    Self.fields.allSatisfy { f in f.get(self).map(ParameterKind.isNormalized) ?? true }
  }

  /// A copy with the fields that belong to one photo only reset to their defaults.
  var portable: Self {
    var copy = self
    for field in Self.fields where !field.portable { field.set(&copy, nil) }
    return copy
  }
}

/// The derived state of a filter that has none.
public struct NoDerivedState: ParameterSet {
  public init() {}
  public static let fields: [ParameterField<Self>] = []
}

/// A size in pixels.
public struct ImageSize: Sendable, Hashable {
  public var width: Int, height: Int
  public init(_ width: Int, _ height: Int) { (self.width, self.height) = (width, height) }
}
