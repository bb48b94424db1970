/// `vignette`: darkens smoothly towards the corners; see `Image.applyVignette` for the formula.
public struct VignetteFilter: Filter {
  public static let name = "vignette"
  public static let summary = "Darkens the image smoothly with the distance from its centre."
  public static let version = 1

  public struct Parameters: ParameterSet {
    /// 0...1, default 1: the darkening at the radius and beyond.
    public var intensity = 1.0
    /// 0.05...4, default 1: where the darkening is complete, relative to half the diagonal.
    public var radius = 1.0
    public init() {}
    public static let fields: [ParameterField<Self>] = [
      .number(
        "intensity", \.intensity, 0...1,
        help: "darkening at the radius and beyond: 0 leaves the image unchanged, 1 makes it black"),
      .number(
        "radius", \.radius, 0.05...4,
        help: "where the darkening is complete, relative to half the diagonal (1 = the corners)"),
    ]
  }

  /// Pointwise (each pixel by where it is); intensity 0 is no kernel at all.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel]
  {
    if p.intensity == 0 { return [] }
    return [
      VignetteKernel(intensity: p.intensity, radius: p.radius, width: input.width, height: input.height)
    ]
  }
}
