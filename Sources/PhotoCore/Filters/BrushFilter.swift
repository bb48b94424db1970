/// `brush`: strokes drawn with a pen, from points or a list of strokes.
///
/// Points are pixel indices of the image entering the step, or fractions: `points` is one
/// stroke, `strokes` many (embedded in the stored step, so the recipe needs no file). The pen's
/// preset colour, size and hardness are stored explicitly (a later change of the preset table
/// does not change old renders). `size` is the diameter in pixels; it is stored as a fraction of
/// the shorter side of the image, so on a photo twice as large the stroke is twice as thick. A
/// pen is at least ``Pen/minimumSize`` pixels on the image it draws on, and at least
/// ``minimumSizeFraction`` of its shorter side as stored: a smaller one is refused wherever it
/// comes from (the command line, a sidecar, a recipe), never drawn.
public struct BrushFilter: Filter {
  public static let name = "brush"
  public static let summary =
    "Draws anti-aliased strokes with a pen preset or a custom colour, size and hardness."
  public static let version = 1
  /// The smallest pen size stored, as a fraction of the shorter side (0.0001%): 0.01 px, the
  /// smallest pen, on a side of 10,000 pixels.
  public static let minimumSizeFraction = 1e-6

  /// The pen presets; `custom` takes its colour from `color`.
  public enum PenName: String, CaseIterable, Sendable {
    case highlight, whiteout, black, blue, red, custom

    /// The preset's colour, diameter in pixels and hardness (custom: the black pen's size and
    /// hardness).
    public var pen: Pen {
      switch self {
      case .highlight: Pen(color: RGBA(255, 255, 0, 128), size: 20, hardness: 0.5)
      case .whiteout: Pen(color: RGBA(255, 255, 255, 255), size: 5, hardness: 0.6)
      case .black, .custom: Pen(color: RGBA(0, 0, 0, 255), size: 10, hardness: 0.7)
      case .blue: Pen(color: RGBA(0, 0, 255, 255), size: 50, hardness: 0.8)
      case .red: Pen(color: RGBA(255, 0, 0, 255), size: 1, hardness: 0.9)
      }
    }
  }

  public struct Parameters: ParameterSet {
    /// Default black.
    public var pen = PenName.black
    /// Overrides the preset's colour (required with `pen=custom`).
    public var color: RGBA?
    /// Overrides the preset's diameter; of the shorter side.
    public var size: Length?
    /// Overrides the preset's hardness, 0...1.
    public var hardness: Double?
    /// One stroke.
    public var points: [Point]?
    /// Many strokes, drawn before `points`.
    public var strokes: [[Point]]?
    public init() {}

    public static let fields: [ParameterField<Self>] = [
      .choice(
        "pen", \.pen,
        help:
          "highlight (#FFFF0080, 20, 0.5), whiteout (#FFFFFF, 5, 0.6), black (10, 0.7), blue (50, 0.8), red (1, 0.9); custom needs color"
      ),
      .color("color", \.color, help: "the pen's colour (overrides the preset)"),
      .length(
        "size", \.size, .shortSide, fractions: minimumSizeFraction...10, positive: true,
        minimumPixels: Pen.minimumSize,
        help: "the stroke's diameter in pixels (overrides the preset); % is of the shorter side"),
      .number(
        "hardness", \.hardness, 0...1, help: "1 is a hard edge, lower feathers it (overrides the preset)"),
      .points("points", \.points, help: "one stroke"),
      .strokes("strokes", \.strokes, help: "many strokes (a JSON file of strokes), drawn before points"),
    ]

    public func check(filter: String) throws(FilterError) {
      if points == nil && strokes == nil {
        throw .missingParameter(filter: filter, keys: ["points", "strokes"])
      }
      if pen == .custom && color == nil { throw .missingParameter(filter: filter, keys: ["color"]) }
    }
  }

  public static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError)
    -> NoDerivedState
  {
    let preset = p.pen.pen
    if p.color == nil && p.pen != .custom { p.color = preset.color }
    if p.size == nil { p.size = .pixels(preset.size) }
    if p.hardness == nil { p.hardness = preset.hardness }
    return NoDerivedState()
  }

  /// Local: each stroke changes only the pixels near it, each pixel on its own.
  ///
  /// - Throws: `.outOfRange` naming the image when the pen is less than ``Pen/minimumSize``
  ///   pixels of it (a stored fraction made for a larger photo, or planted).
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) throws(FilterError)
    -> [any StepKernel]
  {
    let preset = p.pen.pen
    if let size = p.size, let field = Parameters.field(named: "size"),
      !field.kind.allows(.length(size), on: input)
    {
      throw field.kind.refusal(of: .length(size), filter: name, key: field.name, image: input)
    }
    let pen = Pen(
      color: p.color ?? preset.color,
      size: p.size?.pixels(of: min(input.width, input.height)) ?? preset.size,
      hardness: p.hardness ?? preset.hardness)
    let strokes = (p.strokes ?? []) + (p.points.map { [$0] } ?? [])
    let ops = strokes.map { stroke in
      StrokeOp(
        points: stroke.map { $0.pixels(width: input.width, height: input.height) }, pen: pen, image: input)
    }
    return [LocalKernel(size: input, ops: ops)]
  }
}
