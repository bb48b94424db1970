/// One filter: its declaration (name, summary, version, typed parameters and derived state) and
/// its behaviour.
///
/// A new filter is one file with a type conforming to `Filter`, plus its line in `Filters.all`.
/// The declaration alone gives it validation, the stored form, the catalogue and help.
///
/// Its behaviour is `prepare`: the typed parameters made into kernels for an image of one size
/// (`StepKernel`), which declare the step's geometry (its output size, the input rectangle any
/// output rectangle needs, and whether it is pointwise, local, a transform or needs the whole
/// image), so that the planner can render any band of the output on its own, stream a photo
/// through it, and keep a JPEG's untouched blocks as they are.
///
///     struct InvertFilter: Filter {
///       static let name = "invert"
///       static let summary = "Inverts the colours."
///       static let version = 1
///       struct Parameters: ParameterSet {
///         var amount = 1.0
///         static let fields: [ParameterField<Self>] = [
///           .number("amount", \.amount, 0...1, help: "0 leaves the image as it is")
///         ]
///       }
///       static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize)
///         -> [any StepKernel]
///       {
///         [PointwiseKernel(size: input) { pixels, x, y, count in invert(pixels, count, p.amount) }]
///       }
///     }
///
/// A filter that implements `render(_:_:on:)` instead renders only whole images (`.whole`): the
/// planner then holds the image entering it. Implement one of the two.
public protocol Filter: Sendable {
  associatedtype Parameters: ParameterSet
  associatedtype Derived: ParameterSet = NoDerivedState

  /// The filter's name in recipes, lowercase.
  static var name: String { get }
  /// One line for the catalogue.
  static var summary: String { get }
  /// The version of the stored parameters; raised on every incompatible change, with the older
  /// version kept typed in `legacyVersions`.
  static var version: Int { get }
  /// What the filter needs besides its parameters when a step with `parameters` is made
  /// (default: nothing). faceblur needs the pixels and the face detector its parameters name.
  static func requirements(for parameters: Parameters) -> FilterRequirements
  /// Older versions of `Parameters`, kept typed, and how each becomes the current one.
  static var legacyVersions: [LegacyParameters<Self>] { get }

  /// Prepares a request's parameters for the image entering the step and returns the derived
  /// state to store (faceblur's faces). May fill in values the recipe should keep (brush stores
  /// its pen's colour and size). Lengths may still be pixels here; they are turned into
  /// fractions afterwards.
  static func resolve(_ parameters: inout Parameters, in context: ResolveContext) throws(FilterError)
    -> Derived

  /// What `revise` needs when the parameters change from `old` to `new` (default: what making
  /// the step needs). faceblur needs its detector only when a detector setting changed.
  static func revisionRequirements(from old: Parameters, to new: Parameters) -> FilterRequirements

  /// Makes the step again after its parameters changed from `old` (with its derived state) to
  /// `new` (lengths may be pixels), for the image entering it. By default the step is made
  /// afresh (`resolve`); faceblur keeps its faces unless a detector setting changed, and then
  /// carries its corrections to the faces found again.
  static func revise(
    _ old: Parameters, _ oldDerived: Derived, to new: inout Parameters, in context: ResolveContext
  ) throws(FilterError) -> Revision<Derived>

  /// The kernels that render a step on an image of size `input` (the image entering the step),
  /// in order: the typed parameters made ready once per render (darktable's `commit_params`).
  /// Parameters are in stored form (fractions). By default, one kernel that needs the whole image
  /// and calls `render(_:_:on:)`.
  ///
  /// - Throws: `FilterError` when the step cannot apply to an image of this size (a crop
  ///   rectangle that leaves it).
  static func prepare(_ parameters: Parameters, _ derived: Derived, input: ImageSize) throws(FilterError)
    -> [any StepKernel]

  /// Renders a step on `image`, the image as it enters the step. Parameters are in stored form
  /// (fractions). Deterministic: the same image and step give the same bytes. By default, the
  /// kernels of `prepare` run over the whole image (one band).
  static func render(_ parameters: Parameters, _ derived: Derived, on image: inout Image) throws(FilterError)

  /// The colour a step's output shows where it is transparent, when it is written to a format
  /// without transparency (a circular crop's background), or nil.
  static func transparencyFill(_ parameters: Parameters) -> RGBA?
}

extension Filter {
  public static func requirements(for parameters: Parameters) -> FilterRequirements { .none }
  public static func revisionRequirements(from old: Parameters, to new: Parameters) -> FilterRequirements {
    requirements(for: new)
  }
  public static func revise(
    _ old: Parameters, _ oldDerived: Derived, to new: inout Parameters, in context: ResolveContext
  ) throws(FilterError) -> Revision<Derived> {
    Revision(derived: try resolve(&new, in: context))
  }
  public static var legacyVersions: [LegacyParameters<Self>] { [] }
  public static func transparencyFill(_ parameters: Parameters) -> RGBA? { nil }

  public static func prepare(_ parameters: Parameters, _ derived: Derived, input: ImageSize)
    throws(FilterError) -> [any StepKernel]
  {
    [
      WholeImageKernel(inputSize: input) { (image: inout Image) throws(FilterError) in
        try render(parameters, derived, on: &image)
      }
    ]
  }

  public static func render(_ parameters: Parameters, _ derived: Derived, on image: inout Image)
    throws(FilterError)
  {
    try image.render(prepare(parameters, derived, input: ImageSize(image.width, image.height)))
  }
}

extension Filter where Derived == NoDerivedState {
  public static func resolve(_ parameters: inout Parameters, in context: ResolveContext) throws(FilterError)
    -> Derived
  { NoDerivedState() }
}

/// A step made again after its parameters changed: the new derived state, and what the change
/// could not keep.
public struct Revision<Derived: Sendable>: Sendable {
  public var derived: Derived
  public var notes: [RevisionNote]
  public init(derived: Derived, notes: [RevisionNote] = []) { (self.derived, self.notes) = (derived, notes) }
}

/// Something a revision could not carry over, for the user to hear about.
public enum RevisionNote: Equatable, Sendable {
  /// An excluded face (its index in the old faces) matches none of the faces found again, so its
  /// exclusion was dropped: the face that is there now is hidden.
  case exclusionDropped(face: Int)
  /// The image entering the step changed and its faces with it, so every exclusion was dropped
  /// (a face's place in a changed image says nothing about which face it is): this one.
  case exclusionDroppedWithImage(face: Int)
  /// An excluded face moved to another index among the faces found again.
  case exclusionMoved(from: Int, to: Int)
  /// The image entering the step changed, and the faces found in it differ: `count` of them.
  case facesFoundAgain(count: Int)
  /// A step hidden more weakly than a new request may ask (made by an older version) had `key`
  /// raised from `from` to `to`, the safe minimum.
  case strengthRaised(key: String, from: ParameterValue, to: ParameterValue)
  /// The image entering the step changed, and the faces given with `add` (`count`) were kept
  /// where they were, as fractions of the image: they may no longer cover the faces meant.
  case addedFacesKept(count: Int)
}

/// What a filter needs from its caller when a step is made.
public struct FilterRequirements: Sendable, Hashable {
  /// The pixels of the image entering the step (not only its size).
  public var pixels: Bool
  /// A face detector (which searches those pixels), and which one.
  public var detector: DetectorChoice?
  /// CenterFace, to check that the faces the step hides are hidden (faceblur's check), whatever
  /// `detector` is; only with the pixels.
  public var checksHiding = false

  public init(pixels: Bool = false, detector: DetectorChoice? = nil) {
    self.pixels = pixels || detector != nil
    self.detector = detector
  }

  /// Nothing besides the parameters and the image's size.
  public static let none = FilterRequirements()
  /// The pixels.
  public static let pixels = FilterRequirements(pixels: true)
  /// The pixels and the face detector `choice`.
  public static func faceDetector(_ choice: DetectorChoice) -> FilterRequirements {
    FilterRequirements(pixels: true, detector: choice)
  }

  public var isEmpty: Bool { !pixels && detector == nil }
}

/// What a filter sees when a request becomes a step.
public struct ResolveContext: Sendable {
  /// The size of the image entering the step.
  public var size: ImageSize
  /// Its pixels, when the filter's requirements include them.
  public var image: Image?
  /// The face detector the requirements name, when they name one.
  public var detector: (any FaceDetector)?
  /// CenterFace, when the requirements ask to check hiding (`checksHiding`).
  public var checker: (any FaceDetector)?
  /// True when the step is made again because the image entering it changed (a step before it
  /// was edited, removed or moved), its parameters as they were.
  public var imageChanged = false

  public init(size: ImageSize, image: Image? = nil, detector: (any FaceDetector)? = nil) {
    (self.size, self.image, self.detector) = (size, image, detector)
  }

  /// The context of a step that needs the image itself.
  public init(image: Image, detector: (any FaceDetector)? = nil, checker: (any FaceDetector)? = nil) {
    self.init(size: ImageSize(image.width, image.height), image: image, detector: detector)
    self.checker = checker
  }
}

/// An older version of a filter's parameters, kept as its own typed `ParameterSet`, and how a
/// stored step of that version becomes the current `Parameters` (darktable's `legacy_params`).
public struct LegacyParameters<F: Filter>: Sendable {
  public let version: Int
  let upgrade: @Sendable (_ stored: [String: JSONValue]) throws(FilterError) -> F.Parameters

  /// Version `version` of the parameters is `Old`; `upgrade` turns it into the current version.
  public init<Old: ParameterSet>(
    version: Int, _ old: Old.Type, upgrade: @escaping @Sendable (Old) -> F.Parameters
  ) {
    self.version = version
    self.upgrade = { stored throws(FilterError) in upgrade(try Old(filter: F.name, stored: stored)) }
  }
}
