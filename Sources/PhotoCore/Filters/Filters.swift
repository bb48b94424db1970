/// The registry of every filter, and the entry points the rest of the program uses to make
/// requests and read stored steps.
public enum Filters {
  /// Every filter, in the order the catalogue lists them. Adding a filter adds one line here.
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

  /// The filter named `name`.
  public static func named(_ name: String, in registry: [any Filter.Type] = all) throws(FilterError)
    -> any Filter.Type
  {
    guard let type = registry.first(where: { $0.name == name }) else { throw .unknownFilter(name) }
    return type
  }

  /// A request for filter `name` with the given values (pixels or fractions), every other
  /// parameter at its default; each value checked against its kind, then all together.
  ///
  ///     let request = try Filters.request("sepia", values: ["intensity": .number(0.8)])
  ///
  /// - Throws: `.unknownFilter`, `.unknownParameter`, `.outOfRange`, `.missingParameter`,
  ///   `.conflictingParameters`.
  public static func request(
    _ name: String, values: [String: ParameterValue], in registry: [any Filter.Type] = all
  ) throws(FilterError) -> StepRequest {
    try request(named(name, in: registry), values: values)
  }

  private static func request<F: Filter>(_ type: F.Type, values: [String: ParameterValue]) throws(FilterError)
    -> StepRequest
  {
    StepRequest(box: TypedRequest<F>(parameters: try F.Parameters(filter: F.name, values: values)))
  }

  /// Reads a stored step: a known filter, a version not newer than this program's (an older one
  /// is migrated from its kept typed parameters), valid parameters and derived state.
  ///
  /// - Parameters:
  ///   - parameters: the stored parameters (lengths are fractions); absent ones take defaults.
  ///   - derived: the stored derived state.
  /// - Throws: `.unknownFilter`, `.newerVersion`, `.unsupportedVersion`, `.unknownParameter`,
  ///   `.badStoredValue`, `.outOfRange`, `.missingParameter`, `.conflictingParameters`,
  ///   `.badDerivedState`.
  public static func step(
    filter name: String, version: Int, parameters: [String: JSONValue], derived: [String: JSONValue],
    in registry: [any Filter.Type] = all
  ) throws(FilterError) -> Step {
    try step(named(name, in: registry), version: version, parameters: parameters, derived: derived)
  }

  private static func step<F: Filter>(
    _ type: F.Type, version: Int, parameters: [String: JSONValue], derived: [String: JSONValue]
  ) throws(FilterError) -> Step {
    let p = try storedParameters(F.self, version: version, parameters)
    let d: F.Derived
    do { d = try F.Derived(filter: F.name, stored: derived) } catch {
      throw .badDerivedState(filter: F.name, key: derivedKey(of: error) ?? derived.keys.sorted().first ?? "")
    }
    return Step(box: TypedStep<F>(parameters: p, derived: d))
  }

  /// The portable request of a stored step, for another photo (a recipe copied over): parameters
  /// that belong to one photo are left at their defaults, derived state is not read at all.
  public static func portableRequest(
    filter name: String, version: Int, parameters: [String: JSONValue], in registry: [any Filter.Type] = all
  ) throws(FilterError) -> StepRequest {
    try portableRequest(named(name, in: registry), version: version, parameters: parameters)
  }

  private static func portableRequest<F: Filter>(
    _ type: F.Type, version: Int, parameters: [String: JSONValue]
  ) throws(FilterError) -> StepRequest {
    StepRequest(
      box: TypedRequest<F>(parameters: try storedParameters(F.self, version: version, parameters).portable))
  }

  private static func storedParameters<F: Filter>(
    _ type: F.Type, version: Int, _ stored: [String: JSONValue]
  ) throws(FilterError) -> F.Parameters {
    if version > F.version { throw .newerVersion(filter: F.name, found: version, supported: F.version) }
    if version == F.version { return try F.Parameters(filter: F.name, stored: stored) }
    guard let legacy = F.legacyVersions.first(where: { $0.version == version }) else {
      throw .unsupportedVersion(filter: F.name, found: version)
    }
    return try legacy.upgrade(stored)
  }

  private static func derivedKey(of error: FilterError) -> String? {
    switch error {
    case .unknownParameter(_, let key, _), .badStoredValue(_, let key, _, _),
      .outOfRange(_, let key, _, _, _):
      key
    case .missingParameter(_, let keys): keys.first
    default: nil
    }
  }

  /// The colour transparent pixels take when the steps' result is written to a format without
  /// transparency: that of the last step that names one (a circular crop's background), or nil.
  public static func transparencyFill(for steps: [Step]) -> RGBA? {
    steps.reversed().lazy.compactMap(\.transparencyFill).first
  }

  // MARK: - The catalogue

  /// One filter's declaration, for help and the catalogue.
  public struct Description: Sendable {
    public var name: String, summary: String, version: Int
    public var parameters: [Parameter]

    public struct Parameter: Sendable {
      public var name: String
      public var kind: ParameterKind
      /// Nil when the parameter is unset by default (the filter decides).
      public var defaultValue: ParameterValue?
      public var help: String
      public var portable: Bool
    }
  }

  /// Every filter's declaration, in the registry's order.
  public static func catalog(_ registry: [any Filter.Type] = all) -> [Description] {
    registry.map { describe($0) }
  }

  /// The declaration of one filter.
  public static func describe<F: Filter>(_ type: F.Type) -> Description {
    Description(
      name: F.name, summary: F.summary, version: F.version,
      parameters: F.Parameters.fields.map {
        Description.Parameter(
          name: $0.name, kind: $0.kind, defaultValue: $0.defaultValue, help: $0.help, portable: $0.portable)
      })
  }
}
