/// `vignette`: darkens smoothly towards the corners; see `Image.applyVignette` for the formula.
public struct VignetteFilter: RowFilter {
  public static let name = "vignette"
  public static let summary = "Darkens the image smoothly with the distance from its centre."
  public static let version = 1
  public static let parameters = [
    FilterParameter(
      "intensity", .number(0...1), default: .number(1),
      help: "darkening at the radius and beyond: 0 leaves the image unchanged, 1 makes it black"),
    FilterParameter(
      "radius", .number(0.05...4), default: .number(1),
      help: "where the darkening is complete, relative to half the diagonal (1 = the corners)"),
  ]

  public static func rowRenderer(_ p: FilterValues, derived: [String: JSONValue], width: Int, height: Int)
    -> @Sendable (ImageRows) -> Void
  {
    let intensity = p.number("intensity")
    if intensity == 0 { return { _ in } }
    let kernel = VignetteKernel(
      intensity: intensity, radius: p.number("radius"), width: width, height: height)
    return { kernel.apply($0) }
  }
}
