/// `flip`: mirrors the image.
public struct FlipFilter: Filter {
  public static let name = "flip"
  public static let summary = "Mirrors the image left-right (horizontal) or top-bottom (vertical)."
  public static let version = 1
  public static let parameters = [
    FilterParameter(
      "direction", .choice(["horizontal", "vertical"]), default: .choice("horizontal"),
      help: "horizontal swaps left and right; vertical swaps top and bottom")
  ]

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    image = image.flipped(horizontally: p.choice("direction") == "horizontal")
  }
}
