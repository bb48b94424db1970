/// `sepia`: Core Image's sepia tone, blended with the original by `intensity`.
public struct SepiaFilter: Filter {
  public static let name = "sepia"
  public static let summary = "Tones the image brown like an old photograph (Core Image's sepia matrix)."
  public static let version = 1

  public struct Parameters: ParameterSet {
    /// 0...1, default 1: 0 leaves every byte as it was.
    public var intensity = 1.0
    public init() {}
    public static let fields: [ParameterField<Self>] = [
      .number(
        "intensity", \.intensity, 0...1,
        help: "blend with the original: 0 leaves the image unchanged, 1 is full sepia")
    ]
  }

  /// Pointwise; intensity 0 is no kernel at all.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel]
  {
    p.intensity == 0 ? [] : [SepiaKernel(intensity: p.intensity, size: input)]
  }
}
