/// A `--filter` word that has been parsed and validated but has not met an image yet.
///
/// Its lengths may be pixels (from the command line) or fractions (from a stored recipe).
public struct PendingOperation: Sendable, Hashable {
  public let filter: String
  /// The values given, without defaults.
  public let values: [String: ParameterValue]

  public init(filter: String, values: [String: ParameterValue]) {
    (self.filter, self.values) = (filter, values)
  }

  /// Turns the pending step into a stored operation for `image`, the image as it enters this step:
  /// pixel geometry is normalised (fractions of that image's width, height or shorter side), every
  /// parameter is stored with its default filled in, and faceblur detects its faces here.
  ///
  /// - Throws: `FilterError.outOfRange` when a pixel position lies outside `image`,
  ///   `.regionOutsideImage` for a crop rectangle that leaves it, `.cascadeUnavailable` when
  ///   faceblur cannot load its cascade.
  public func resolve(for image: Image, context: FilterContext) throws(FilterError) -> Operation {
    let type = try Filters.type(named: filter)
    var p = FilterValues(filter: filter, values: Filters.withDefaults(values, of: type))
    let derived = try type.resolve(&p, for: image, context: context)
    var stored: [String: JSONValue] = [:]
    for spec in type.parameters {
      guard let v = p[spec.name] else { continue }
      let n = spec.normalized(v, width: image.width, height: image.height)
      if spec.outOfRangeText(n) != nil {
        throw .outOfRange(
          filter: filter, key: spec.name, value: commandLineText(v),
          range: "\(spec.rangeText); the image is \(image.width)x\(image.height)")
      }
      stored[spec.name] = spec.encode(n)
    }
    return Operation(filter: filter, version: type.version, parameters: stored, derived: derived)
  }
}

/// The registry of every filter, and the one entry point the rest of the program uses.
public enum Filters {
  /// Every filter, in the order `photoedit filters` lists them. Adding a filter adds one line here.
  public static let all: [any Filter.Type] = [
    FaceblurFilter.self,
    PixelateFilter.self,
    SepiaFilter.self,
    VignetteFilter.self,
    CropFilter.self,
    BrushFilter.self,
    RotateFilter.self,
    FlipFilter.self,
  ]

  static func type(named name: String, in registry: [any Filter.Type] = all) throws(FilterError)
    -> any Filter.Type
  {
    guard let t = registry.first(where: { $0.name == name }) else { throw .unknownFilter(name) }
    return t
  }

  static func withDefaults(_ values: [String: ParameterValue], of type: any Filter.Type) -> [String:
    ParameterValue]
  {
    var out = values
    for spec in type.parameters where out[spec.name] == nil {
      if let d = spec.defaultValue { out[spec.name] = d }
    }
    return out
  }

  /// Parses one `--filter` word, `NAME[:key=value,...]`. `readFile` reads a file a parameter names
  /// (brush strokes), since PhotoCore does no I/O.
  ///
  /// The first `:` ends the name; pairs are separated by `,`; values hold no commas. Each value
  /// is checked against its declaration, then the filter checks the values together.
  ///
  ///     let step = try Filters.parse("sepia:intensity=0.8", readFile: { _ in [] })
  ///
  /// - Throws: `FilterError` naming the filter, the key and the allowed range.
  public static func parse(
    _ word: String, readFile: (String) throws -> [UInt8]
  ) throws(FilterError) -> PendingOperation {
    let name: String
    let rest: Substring?
    if let colon = word.firstIndex(of: ":") {
      name = String(word[..<colon])
      rest = word[word.index(after: colon)...]
    } else {
      (name, rest) = (word, nil)
    }
    let type = try type(named: name)
    var values: [String: ParameterValue] = [:]
    if let rest {
      for pair in rest.split(separator: ",", omittingEmptySubsequences: false) {
        guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
          throw .malformedParameter(filter: name, text: String(pair))
        }
        let key = String(pair[..<eq])
        let text = String(pair[pair.index(after: eq)...])
        guard let spec = type.parameters.first(where: { $0.name == key }) else {
          throw .unknownParameter(filter: name, key: key, known: type.parameters.map(\.name))
        }
        guard values[key] == nil else { throw .duplicateParameter(filter: name, key: key) }
        values[key] = try spec.parse(text, filter: name, readFile: readFile)
      }
    }
    try type.check(FilterValues(filter: name, values: withDefaults(values, of: type)))
    return PendingOperation(filter: name, values: values)
  }

  /// A stored operation's portable part (parameters marked not portable are left out), ready to be resolved against another photo (derived
  /// state such as face boxes is dropped). Lengths stay fractions.
  public static func pending(from operation: Operation) throws(FilterError) -> PendingOperation {
    // A recipe file's operations carry no derived state: only the portable part is checked.
    let op = try validate(operation, in: all, checkingDerived: false)
    let type = try type(named: op.filter)
    var values: [String: ParameterValue] = [:]
    for spec in type.parameters where spec.portable {
      if let j = op.parameters[spec.name], let v = spec.decode(j) { values[spec.name] = v }
    }
    return PendingOperation(filter: op.filter, values: values)
  }

  /// Checks that a stored operation can be rendered (known filter, version not newer than ours,
  /// valid parameters and derived state) and migrates an older version to the current one.
  ///
  /// - Returns: the operation at the current version, with defaults filled in.
  /// - Throws: `.unknownFilter`, `.newerVersion(filter:found:supported:)`, `.unknownParameter`,
  ///   `.badValue`, `.outOfRange`, `.badDerivedState`.
  public static func validate(_ operation: Operation) throws(FilterError) -> Operation {
    try validate(operation, in: all)
  }

  /// `validate(_:)` against another list of filters (tests register older and newer versions).
  static func validate(
    _ operation: Operation, in registry: [any Filter.Type], checkingDerived: Bool = true
  ) throws(FilterError) -> Operation {
    let type = try type(named: operation.filter, in: registry)
    let name = operation.filter
    guard operation.version <= type.version else {
      throw .newerVersion(filter: name, found: operation.version, supported: type.version)
    }
    guard operation.version >= 1 else {
      throw .badValue(filter: name, key: "version", value: "\(operation.version)", expected: "a version >= 1")
    }
    var parameters = operation.parameters
    if operation.version < type.version {
      parameters = try type.migrate(parameters, from: operation.version)
    }
    let values = try decodeValues(parameters, of: type)
    try type.check(FilterValues(filter: name, values: values))
    if checkingDerived { try type.checkDerived(operation.derived) }
    var stored: [String: JSONValue] = [:]
    for spec in type.parameters {
      if let v = values[spec.name] { stored[spec.name] = spec.encode(v) }
    }
    return Operation(filter: name, version: type.version, parameters: stored, derived: operation.derived)
  }

  static func decodeValues(_ parameters: [String: JSONValue], of type: any Filter.Type) throws(FilterError)
    -> [String: ParameterValue]
  {
    let name = type.name
    var values: [String: ParameterValue] = [:]
    for key in parameters.keys.sorted() {
      guard let spec = type.parameters.first(where: { $0.name == key }) else {
        throw .unknownParameter(filter: name, key: key, known: type.parameters.map(\.name))
      }
      guard let v = spec.decode(parameters[key]!) else {
        throw .badValue(filter: name, key: key, value: jsonText(parameters[key]!), expected: spec.rangeText)
      }
      if let bad = spec.outOfRangeText(v) {
        throw .outOfRange(filter: name, key: key, value: bad, range: spec.rangeText)
      }
      values[key] = v
    }
    return withDefaults(values, of: type)
  }

  /// Applies a stored operation to `image`. Deterministic: the same image and operation give the
  /// same bytes. faceblur renders from its stored faces and never detects.
  ///
  /// - Complexity: O(width × height) for every filter but brush (O(stroke area × segments)).
  public static func render(
    _ operation: Operation, on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    let op = try validate(operation)
    let type = try type(named: op.filter)
    let values = try decodeValues(op.parameters, of: type)
    try type.render(
      FilterValues(filter: op.filter, values: values), derived: op.derived, on: &image, context: context)
  }

  /// A row renderer for `operation` on an image of this size when its filter is a `RowFilter`
  /// (see there), else nil.
  public static func rowRenderer(_ operation: Operation, width: Int, height: Int) throws(FilterError)
    -> (@Sendable (ImageRows) -> Void)?
  {
    let op = try validate(operation)
    guard let type = try type(named: op.filter) as? any RowFilter.Type else { return nil }
    let values = try decodeValues(op.parameters, of: type)
    return type.rowRenderer(
      FilterValues(filter: op.filter, values: values), derived: op.derived, width: width, height: height)
  }

  /// True when the filter named `name` is a `RowFilter`.
  public static func isRowFilter(_ name: String) -> Bool {
    (try? type(named: name)) is any RowFilter.Type
  }

  /// The colour a JPEG render fills transparency with: the `background` of the last circular crop
  /// in `operations`, or opaque white.
  public static func background(for operations: [Operation]) -> RGBA {
    for op in operations.reversed() where op.filter == CropFilter.name {
      if op.parameters["shape"]?.string == "circle" {
        return op.parameters["background"]?.string.flatMap(parseColor) ?? CropFilter.defaultBackground
      }
    }
    return CropFilter.defaultBackground
  }

  // MARK: - The catalogue

  /// Every filter with its parameters, for `photoedit filters` and `photoedit help apply`.
  public static func catalogText() -> String {
    var lines: [String] = []
    for type in all {
      lines.append("\(type.name) (version \(type.version)): \(type.summary)")
      let rows = type.parameters.map { spec -> [String] in
        [
          spec.name, spec.typeName, spec.rangeText, spec.defaultValue == nil ? "-" : spec.defaultText,
          spec.help,
        ]
      }
      let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
      for row in rows {
        var line = "  "
        for c in 0..<4 { line += row[c] + String(repeating: " ", count: widths[c] - row[c].count + 2) }
        lines.append(line + row[4])
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Every filter as JSON: `[{name, summary, version, parameters: [{name, type, range, default, help}]}]`.
  /// `default` is the command-line text of the default, or null.
  public static func catalogJSON() -> JSONValue {
    .array(
      all.map { type in
        .object([
          "name": .string(type.name),
          "summary": .string(type.summary),
          "version": .number(Double(type.version)),
          "parameters": .array(
            type.parameters.map { spec in
              .object([
                "name": .string(spec.name),
                "type": .string(spec.typeName),
                "range": .string(spec.rangeText),
                "default": spec.defaultValue == nil ? .null : .string(spec.defaultText),
                "help": .string(spec.help),
              ])
            }),
        ])
      })
  }
}

/// Compact JSON text of a value, for messages.
func jsonText(_ j: JSONValue) -> String {
  switch j {
  case .null: "null"
  case .bool(let b): b ? "true" : "false"
  case .number(let n): format(n)
  case .string(let s): "\"\(s)\""
  case .array(let a): "[" + a.map(jsonText).joined(separator: ",") + "]"
  case .object(let o):
    "{" + o.keys.sorted().map { "\"\($0)\":\(jsonText(o[$0]!))" }.joined(separator: ",") + "}"
  }
}
