/// A filter with its parameters, checked, that has not met an image yet: a `--filter` word, or
/// the portable part of another photo's step. Lengths may be pixels.
public struct StepRequest: Sendable, Equatable {
  let box: any RequestBox
  /// The file each parameter's value was read from (a brush's `strokes=FILE`), by parameter
  /// name, for refusals to name; not part of what the request asks for.
  public var files: [String: String] = [:]

  /// The filter's name.
  public var filter: String { box.filter.name }
  /// What the filter needs when the request becomes a step.
  public var requirements: FilterRequirements { box.requirements }
  /// The parameters that are set, in declaration order.
  public var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { box.values }

  /// Makes the step for the image entering it: the filter resolves the parameters (faceblur
  /// detects its faces here), then pixel lengths become fractions of that image.
  ///
  /// - Throws: `FilterError.outOfRange` when a pixel position lies outside the image
  ///   (`.strokeOutsideImage` for strokes, naming their file from `files`),
  ///   `.regionOutsideImage` for a crop rectangle that leaves it, `.detection` when the detector
  ///   fails.
  public func resolve(in context: ResolveContext) throws(FilterError) -> Step {
    do { return try box.resolve(in: context) } catch { throw error.naming(files: files) }
  }

  /// A canonical JSON form of the request (filter, every set value, pixel lengths told from
  /// fractions): two requests with the same canonical form make the same steps.
  public var canonical: JSONValue {
    var values: [String: JSONValue] = [:]
    for (name, value, _) in self.values { values[name] = value.canonical }
    return .object(["filter": .string(filter), "values": .object(values)])
  }

  public static func == (a: StepRequest, b: StepRequest) -> Bool { a.box.isEqual(to: b.box) }
}

extension ParameterValue {
  /// The value as JSON, lengths tagged `{"px": v}` or `{"fraction": f}`.
  var canonical: JSONValue {
    func length(_ l: Length) -> JSONValue {
      switch l {
      case .pixels(let p): .object(["px": .number(p)])
      case .fraction(let f): .object(["fraction": .number(f)])
      }
    }
    return json(length: length) { .array([length($0.x), length($0.y), length($0.width), length($0.height)]) }
  }
}

/// One step of a recipe: a filter, its parameters in stored form (geometry as fractions of the
/// image entering the step, so the step fits a photo of any size) and its derived state (state
/// that belongs to one photo, such as the faces faceblur found), all checked.
public struct Step: Sendable, Equatable {
  let box: any StepBox

  /// The filter's name.
  public var filter: String { box.filter.name }
  /// The filter's declaration: its parameters with their kinds and defaults.
  public var declaration: Filters.Description { Filters.describe(box.filter) }
  /// The version of the stored parameters (always the filter's current version).
  public var version: Int { box.filter.version }
  /// The stored form: `{"filter", "version", "parameters", "derived"}` (`derived` only when the
  /// filter has derived state).
  public var stored: JSONValue { box.stored }
  /// The parameters that are set (defaults included), in declaration order.
  public var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { box.values }
  /// The derived state's fields that are set.
  public var derivedValues: [(name: String, value: ParameterValue, kind: ParameterKind)] { box.derivedValues }
  /// The parameters that do nothing with the others' values (see `ParameterSet.unusedKeys`).
  public var unusedKeys: [String] { box.unusedKeys }

  /// Renders the step on `image`, the image as it enters the step. Deterministic.
  public func render(on image: inout Image) throws(FilterError) { try box.render(on: &image) }

  /// The kernels that render the step on an image of `input` size (the image entering it), in
  /// order: its geometry for the planner, and the code for any rectangle of its output.
  ///
  /// - Throws: `FilterError` when the step cannot apply to an image of this size (a crop
  ///   rectangle that leaves it).
  public func kernels(input: ImageSize) throws(FilterError) -> [any StepKernel] {
    try box.kernels(input: input)
  }

  /// The colour the step's output shows where it is transparent, in a format without
  /// transparency, or nil.
  public var transparencyFill: RGBA? { box.transparencyFill }

  /// The step as a request for another photo: the portable parameters, without derived state.
  public var portableRequest: StepRequest { box.portableRequest }

  /// What `revised(with:in:)` needs for these new values.
  public func revisionRequirements(with values: [String: ParameterValue]) throws(FilterError)
    -> FilterRequirements
  {
    try box.revisionRequirements(with: values)
  }

  /// The step with `values` (pixels or fractions) replacing some of its parameters, made again
  /// for the image entering it: each value is checked as a request's is.
  ///
  /// - Throws: `.unknownParameter`, `.outOfRange` and the other refusals of a request.
  public func revised(with values: [String: ParameterValue], in context: ResolveContext) throws(FilterError)
    -> (step: Step, notes: [RevisionNote])
  {
    try box.revised(with: values, in: context)
  }

  /// What the filter needs to make the step again for another image entering it.
  public var requirements: FilterRequirements { box.requirements }

  /// The step made again, its parameters as they are, because the image entering it changed (a
  /// step before it was edited, removed or moved): faceblur finds its faces again. The caller
  /// passes what `requirements` names.
  public func rederived(in context: ResolveContext) throws(FilterError) -> (step: Step, notes: [RevisionNote])
  {
    var changed = context
    changed.imageChanged = true
    return try box.revised(with: [:], in: changed)
  }

  /// The typed parameters and derived state, when the step is of filter `type`.
  public func typed<F: Filter>(_ type: F.Type) -> (parameters: F.Parameters, derived: F.Derived)? {
    guard let typed = box as? TypedStep<F> else { return nil }
    return (typed.parameters, typed.derived)
  }

  /// A step of filter `F` from typed values (stored form: lengths are fractions).
  public init<F: Filter>(_ type: F.Type, parameters: F.Parameters, derived: F.Derived = F.Derived()) {
    precondition(parameters.isNormalized, "a step's lengths are fractions")
    box = TypedStep<F>(parameters: parameters, derived: derived)
  }

  init(box: any StepBox) { self.box = box }

  public static func == (a: Step, b: Step) -> Bool { a.stored == b.stored }
}

// MARK: - The typed boxes behind the two

protocol RequestBox: Sendable {
  var filter: any Filter.Type { get }
  var requirements: FilterRequirements { get }
  var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { get }
  func resolve(in context: ResolveContext) throws(FilterError) -> Step
  func isEqual(to other: any RequestBox) -> Bool
}

struct TypedRequest<F: Filter>: RequestBox {
  var parameters: F.Parameters
  var filter: any Filter.Type { F.self }
  var requirements: FilterRequirements { F.requirements(for: parameters) }
  var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { parameters.values }

  func resolve(in context: ResolveContext) throws(FilterError) -> Step {
    var p = parameters
    let derived = try F.resolve(&p, in: context)
    try p.normalize(filter: F.name, width: context.size.width, height: context.size.height)
    return Step(box: TypedStep<F>(parameters: p, derived: derived))
  }

  func isEqual(to other: any RequestBox) -> Bool {
    (other as? TypedRequest<F>)?.parameters == parameters
  }
}

protocol StepBox: Sendable {
  var filter: any Filter.Type { get }
  var requirements: FilterRequirements { get }
  var stored: JSONValue { get }
  var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { get }
  var derivedValues: [(name: String, value: ParameterValue, kind: ParameterKind)] { get }
  var unusedKeys: [String] { get }
  func render(on image: inout Image) throws(FilterError)
  func kernels(input: ImageSize) throws(FilterError) -> [any StepKernel]
  var transparencyFill: RGBA? { get }
  var portableRequest: StepRequest { get }
  func revisionRequirements(with values: [String: ParameterValue]) throws(FilterError) -> FilterRequirements
  func revised(with values: [String: ParameterValue], in context: ResolveContext) throws(FilterError)
    -> (step: Step, notes: [RevisionNote])
}

struct TypedStep<F: Filter>: StepBox {
  var parameters: F.Parameters
  var derived: F.Derived

  var filter: any Filter.Type { F.self }
  var requirements: FilterRequirements { F.requirements(for: parameters) }
  var stored: JSONValue {
    var object: [String: JSONValue] = [
      "filter": .string(F.name), "version": .number(Double(F.version)),
      "parameters": .object(parameters.stored),
    ]
    if !F.Derived.fields.isEmpty { object["derived"] = .object(derived.stored) }
    return .object(object)
  }
  var values: [(name: String, value: ParameterValue, kind: ParameterKind)] { parameters.values }
  var derivedValues: [(name: String, value: ParameterValue, kind: ParameterKind)] { derived.values }
  var unusedKeys: [String] { parameters.unusedKeys }

  func render(on image: inout Image) throws(FilterError) { try F.render(parameters, derived, on: &image) }

  func kernels(input: ImageSize) throws(FilterError) -> [any StepKernel] {
    try F.prepare(parameters, derived, input: input)
  }

  var transparencyFill: RGBA? { F.transparencyFill(parameters) }

  /// The parameters with `values` laid over the current ones, checked as a request's are.
  func updated(with values: [String: ParameterValue]) throws(FilterError) -> F.Parameters {
    var current: [String: ParameterValue] = [:]
    for (name, value, _) in parameters.values { current[name] = value }
    for (name, value) in values { current[name] = value }
    return try F.Parameters(filter: F.name, values: current, given: Set(values.keys))
  }

  func revisionRequirements(with values: [String: ParameterValue]) throws(FilterError) -> FilterRequirements {
    F.revisionRequirements(from: parameters, to: try updated(with: values))
  }

  func revised(with values: [String: ParameterValue], in context: ResolveContext) throws(FilterError)
    -> (step: Step, notes: [RevisionNote])
  {
    var p = try updated(with: values)
    let revision = try F.revise(parameters, derived, to: &p, in: context)
    try p.normalize(filter: F.name, width: context.size.width, height: context.size.height)
    return (Step(box: TypedStep<F>(parameters: p, derived: revision.derived)), revision.notes)
  }
  var portableRequest: StepRequest { StepRequest(box: TypedRequest<F>(parameters: parameters.portable)) }
}
