/// `vignette`: darkens smoothly towards the corners; see `Image.applyVignette` for the formula.
public struct VignetteFilter: Filter {
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

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    image.applyVignette(intensity: p.number("intensity"), radius: p.number("radius"))
  }
}
