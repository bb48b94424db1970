/// `sepia`: Core Image's sepia tone, blended with the original by `intensity`.
public struct SepiaFilter: RowFilter {
  public static let name = "sepia"
  public static let summary = "Tones the image brown like an old photograph (Core Image's sepia matrix)."
  public static let version = 1
  public static let parameters = [
    FilterParameter(
      "intensity", .number(0...1), default: .number(1),
      help: "blend with the original: 0 leaves the image unchanged, 1 is full sepia")
  ]

  public static func rowRenderer(_ p: FilterValues, derived: [String: JSONValue], width: Int, height: Int)
    -> @Sendable (ImageRows) -> Void
  {
    let intensity = p.number("intensity")
    if intensity == 0 { return { _ in } }
    let weights = SepiaWeights(intensity: intensity)
    return { $0.applySepia(weights) }
  }
}
