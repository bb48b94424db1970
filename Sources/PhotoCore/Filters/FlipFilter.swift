/// `flip`: mirrors the image.
public struct FlipFilter: Filter {
  public static let name = "flip"
  public static let summary = "Mirrors the image left-right (horizontal) or top-bottom (vertical)."
  public static let version = 1

  public enum Direction: String, CaseIterable, Sendable { case horizontal, vertical }

  public struct Parameters: ParameterSet {
    /// Default horizontal.
    public var direction = Direction.horizontal
    public init() {}
    public static let fields: [ParameterField<Self>] = [
      .choice(
        "direction", \.direction, help: "horizontal swaps left and right; vertical swaps top and bottom")
    ]
  }

  /// A transform.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel]
  {
    [TransformKernel(.flip(horizontally: p.direction == .horizontal, of: input))]
  }
}
