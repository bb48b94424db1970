import PhotoCore

/// How the command line writes parameter values, kinds and ranges: the one place that knows the
/// word syntax (`50%`, `X:Y`, `/` lists, `#RRGGBBAA`).
enum ValueText {
  /// A number without a trailing `.0` when it is whole.
  static func number(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return "\(Int64(v))" }
    return plain("\(v)")
  }

  /// Swift's shortest text of a number, without an exponent (`1e-05` is `0.00001`), as people
  /// write numbers on a command line. Very large and very small numbers keep theirs.
  static func plain(_ text: String) -> String {
    guard let e = text.firstIndex(of: "e"), let exponent = Int(text[text.index(after: e)...]),
      (-20...20).contains(exponent)
    else { return text }
    let negative = text.hasPrefix("-")
    let mantissa = text[text.index(text.startIndex, offsetBy: negative ? 1 : 0)..<e]
    let dot = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
    var digits = String(mantissa[..<dot]) + String(mantissa[dot...].dropFirst())
    var point = mantissa.distance(from: mantissa.startIndex, to: dot) + exponent
    if point <= 0 {
      digits = String(repeating: "0", count: 1 - point) + digits
      point = 1
    }
    if point >= digits.count { digits += String(repeating: "0", count: point - digits.count) }
    var out = String(digits.prefix(point))
    let rest = digits.dropFirst(point).reversed().drop(while: { $0 == "0" }).reversed()
    if !rest.isEmpty { out += "." + String(rest) }
    return (negative ? "-" : "") + out
  }

  static func length(_ l: Length) -> String {
    switch l {
    case .pixels(let p): number(p)
    case .fraction(let f): "\(percent(f))%"
    }
  }

  /// A fraction as a percentage: the shortest decimal that reads back as the same fraction, as
  /// the command line reads `N%` (0.033 is `3.3`, not `3.3000000000000003`).
  static func percent(_ f: Double) -> String {
    for digits in 1...17 {
      guard let rounded = Double(cFormat("%.\(digits)g", f * 100)) else { break }
      let text = number(rounded)
      if Length.fraction(percent: Substring(text)) == f { return text }
    }
    return number(f * 100)
  }

  static func point(_ p: Point) -> String { "\(length(p.x)):\(length(p.y))" }

  static func box(_ b: Box) -> String {
    [b.x, b.y, b.width, b.height].map(length).joined(separator: ":")
  }

  /// A value as the command line writes it.
  static func value(_ value: ParameterValue) -> String {
    switch value {
    case .number(let v): number(v)
    case .integer(let v): "\(v)"
    case .choice(let w): w
    case .length(let l): length(l)
    case .point(let p): point(p)
    case .points(let ps): ps.map(point).joined(separator: "/")
    case .strokes(let ss): "\(ss.count) strokes"
    case .ratio(let r): "\(number(r.width)):\(number(r.height))"
    case .color(let c): c.hex
    case .integers(let vs): vs.map(String.init).joined(separator: "/")
    case .boxes(let bs): bs.map(box).joined(separator: "/")
    case .digest(let d): d
    }
  }

  /// The kind's name for the catalogue.
  static func typeName(_ kind: ParameterKind) -> String {
    switch kind {
    case .number: "number"
    case .integer: "integer"
    case .choice: "choice"
    case .length: "length"
    case .point: "point"
    case .points: "points"
    case .strokes: "file"
    case .ratio: "ratio"
    case .color, .opaqueColor: "color"
    case .integers: "integers"
    case .boxes: "boxes"
    case .digest: "sha256"
    }
  }

  /// The values a kind allows, for the catalogue and messages.
  static func range(_ kind: ParameterKind) -> String {
    switch kind {
    case .number(let r): "\(number(r.lowerBound))...\(number(r.upperBound))"
    case .integer(let r): "\(r.lowerBound)...\(r.upperBound)"
    case .choice(let words): words.joined(separator: "|")
    case .length(let axis, let f, let positive, let minimum):
      "\(minimum > 0 ? ">= \(number(minimum))" : positive ? "> 0" : ">= 0") px, or \(percent(f.lowerBound))%...\(percent(f.upperBound))% of the \(axisName(axis))"
    case .point: "X:Y, pixels or 0%...100%"
    case .points: "X:Y/X:Y/..., pixels or 0%...100%"
    case .strokes: "a JSON file of strokes"
    case .ratio: "W:H, both > 0"
    case .color: "#RRGGBB or #RRGGBBAA"
    case .opaqueColor: "#RRGGBB (opaque)"
    case .integers(let r): "N/N/... with each N in \(r.lowerBound)...\(r.upperBound)"
    case .boxes: "X:Y:W:H/..., pixels or %"
    case .digest: "64 hexadecimal digits"
    }
  }

  /// What a word of this kind must look like, for a value that is not of it.
  static func expected(_ kind: ParameterKind) -> String {
    switch kind {
    case .number: "a number"
    case .integer: "a whole number"
    case .choice(let words): "one of \(words.joined(separator: "|"))"
    case .length: "a length in pixels or a percentage"
    case .point: "a point X:Y"
    case .points: "points X:Y/X:Y/..."
    case .strokes: "a JSON file of strokes"
    case .ratio: "a ratio W:H"
    case .color: "a colour #RRGGBB or #RRGGBBAA"
    case .opaqueColor: "an opaque colour #RRGGBB"
    case .integers: "whole numbers N/N/..."
    case .boxes: "boxes X:Y:W:H/..."
    case .digest: "a SHA-256 in hexadecimal"
    }
  }

  static func axisName(_ axis: Axis) -> String {
    switch axis {
    case .horizontal: "width"
    case .vertical: "height"
    case .shortSide: "shorter side"
    }
  }
}
