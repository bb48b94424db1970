/// `rotate`: turns the image clockwise by a quarter, half or three-quarter turn.
public struct RotateFilter: Filter {
  public static let name = "rotate"
  public static let summary = "Turns the image clockwise by 90, 180 or 270 degrees."
  public static let version = 1

  /// Degrees clockwise.
  public enum Angle: String, CaseIterable, Sendable {
    case quarter = "90"
    case half = "180"
    case threeQuarters = "270"
    var quarterTurns: Int { Int(rawValue)! / 90 }
  }

  public struct Parameters: ParameterSet {
    /// Default 90.
    public var angle = Angle.quarter
    public init() {}
    public static let fields: [ParameterField<Self>] = [.choice("angle", \.angle, help: "degrees clockwise")]
  }

  /// A transform.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel]
  {
    [TransformKernel(.rotation(quarterTurns: p.angle.quarterTurns, of: input))]
  }
}
