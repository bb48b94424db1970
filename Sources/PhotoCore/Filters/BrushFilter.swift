/// `brush`: strokes drawn with a pen, from inline points or a JSON file of strokes.
///
/// Points are pixel indices of the image entering the step (or percentages): `points=10:20/300:40`
/// is one stroke. `strokes=FILE` reads many strokes (see `StrokesFile`) when the word is parsed
/// and embeds them in the stored operation, so the recipe needs no file. The pen's preset colour,
/// size and hardness are stored explicitly (a later change of the preset table does not change
/// old renders). `size` is the diameter in pixels; it is stored as a fraction of the shorter side
/// of the image, so on a photo twice as large the stroke is twice as thick.
public struct BrushFilter: Filter {
  public static let name = "brush"
  public static let summary =
    "Draws anti-aliased strokes with a pen preset or a custom colour, size and hardness."
  public static let version = 1

  /// The pen presets: colour, diameter in pixels, hardness.
  public static let pens: [(name: String, pen: Pen)] = [
    ("highlight", Pen(color: RGBA(255, 255, 0, 128), size: 20, hardness: 0.5)),
    ("whiteout", Pen(color: RGBA(255, 255, 255, 255), size: 5, hardness: 0.6)),
    ("black", Pen(color: RGBA(0, 0, 0, 255), size: 10, hardness: 0.7)),
    ("blue", Pen(color: RGBA(0, 0, 255, 255), size: 50, hardness: 0.8)),
    ("red", Pen(color: RGBA(255, 0, 0, 255), size: 1, hardness: 0.9)),
  ]

  public static let parameters = [
    FilterParameter(
      "pen", .choice(pens.map(\.name) + ["custom"]), default: .choice("black"),
      help:
        "highlight (#FFFF0080, 20, 0.5), whiteout (#FFFFFF, 5, 0.6), black (10, 0.7), blue (50, 0.8), red (1, 0.9); custom needs color"
    ),
    FilterParameter("color", .color, help: "the pen's colour (overrides the preset)"),
    FilterParameter(
      "size", .length(.shortSide, fractions: 0...10, positive: true),
      help: "the stroke's diameter in pixels (overrides the preset); % is of the shorter side"),
    FilterParameter(
      "hardness", .number(0...1), help: "1 is a hard edge, lower feathers it (overrides the preset)"),
    FilterParameter("points", .points, help: "one stroke, X:Y/X:Y/..."),
    FilterParameter("strokes", .strokesFile, help: "a JSON file of strokes, drawn before points"),
  ]

  public static func check(_ p: FilterValues) throws(FilterError) {
    if !p.has("points") && !p.has("strokes") { throw .missingParameter(filter: name, key: "points") }
    if p.choice("pen") == "custom" && !p.has("color") { throw .missingParameter(filter: name, key: "color") }
  }

  public static func resolve(_ p: inout FilterValues, for image: Image, context: FilterContext)
    throws(FilterError)
    -> [String: JSONValue]
  {
    if let preset = pens.first(where: { $0.name == p.choice("pen") })?.pen {
      if !p.has("color") { p.values["color"] = .color(preset.color) }
      if !p.has("size") { p.values["size"] = .length(.pixels(preset.size)) }
      if !p.has("hardness") { p.values["hardness"] = .number(preset.hardness) }
    } else {
      // custom: colour is required; size and hardness fall back to the black pen's.
      if !p.has("size") { p.values["size"] = .length(.pixels(10)) }
      if !p.has("hardness") { p.values["hardness"] = .number(0.7) }
    }
    return [:]
  }

  public static func render(
    _ p: FilterValues, derived: [String: JSONValue], on image: inout Image, context: FilterContext
  ) throws(FilterError) {
    let preset = pens.first(where: { $0.name == p.choice("pen") })?.pen ?? pens[2].pen
    let pen = Pen(
      color: p.color("color") ?? preset.color,
      size: p.pixels("size", .shortSide, of: image) ?? preset.size,
      hardness: p.has("hardness") ? p.number("hardness") : preset.hardness)
    let strokes = (p.strokes("strokes") ?? []) + (p.points("points").map { [$0] } ?? [])
    for stroke in strokes {
      image.drawStroke(stroke.map { $0.pixels(width: image.width, height: image.height) }, pen: pen)
    }
  }
}
