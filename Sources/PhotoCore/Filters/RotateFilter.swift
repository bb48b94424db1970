/// `rotate`: turns the image clockwise by a quarter, half or three-quarter turn.
public struct RotateFilter: Filter {
  public static let name = "rotate"
  public static let summary = "Turns the image clockwise by 90, 180 or 270 degrees."
  public static let version = 1
  public static let parameters = [
    FilterParameter(
      "angle", .choice(["90", "180", "270"]), default: .choice("90"), help: "degrees clockwise")
  ]

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    image = image.rotated(quarterTurns: Int(p.choice("angle"))! / 90)
  }
}
