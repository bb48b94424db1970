/// A distance or coordinate as the user gave it: pixels of the image entering the step, or a
/// fraction of that image (`50%` on the command line is `.fraction(0.5)`).
///
/// Stored operations hold only fractions: `resolve` turns pixels into fractions of the image the
/// step meets, so a recipe fits a photo of any size.
public enum Length: Sendable, Hashable {
  case pixels(Double)
  case fraction(Double)

  /// The length in pixels along a dimension of `extent` pixels.
  public func pixels(of extent: Int) -> Double {
    switch self {
    case .pixels(let p): p
    case .fraction(let f): snapped(f * Double(extent))
    }
  }

  /// The length as a fraction of a dimension of `extent` pixels.
  public func fraction(of extent: Int) -> Double {
    switch self {
    case .pixels(let p): p / Double(extent)
    case .fraction(let f): f
    }
  }
}

/// Rounds a pixel coordinate computed from a fraction to 1/4096 px, so that `x / width * width`
/// gives back exactly `x`, and a pixel exactly on a circle's edge stays on it after a round trip
/// through the sidecar.
@inline(__always) func snapped(_ v: Double) -> Double { (v * 4096).rounded() / 4096 }

/// Which dimension of the image a length is a fraction of.
public enum Axis: Sendable, Hashable {
  /// The image's width (x coordinates and widths).
  case horizontal
  /// The image's height (y coordinates and heights).
  case vertical
  /// The shorter of width and height (radii, block sizes, pen sizes).
  case shortSide

  /// The extent in pixels this axis measures on an image of `width` × `height`.
  public func extent(width: Int, height: Int) -> Int {
    switch self {
    case .horizontal: width
    case .vertical: height
    case .shortSide: min(width, height)
    }
  }

  var fractionName: String {
    switch self {
    case .horizontal: "width"
    case .vertical: "height"
    case .shortSide: "shorter side"
    }
  }
}

/// A point `X:Y`; x is measured along the width, y along the height, from the top-left pixel.
public struct Point: Sendable, Hashable {
  public var x: Length, y: Length
  public init(x: Length, y: Length) { (self.x, self.y) = (x, y) }
  public init(fractionX x: Double, y: Double) { (self.x, self.y) = (.fraction(x), .fraction(y)) }

  /// The point in pixels of an image of `width` × `height`.
  public func pixels(width: Int, height: Int) -> (x: Double, y: Double) {
    (x.pixels(of: width), y.pixels(of: height))
  }
}

/// One parameter's value, parsed from the command line or decoded from a stored operation.
public enum ParameterValue: Sendable, Hashable {
  case number(Double)
  case integer(Int)
  case choice(String)
  case length(Length)
  case point(Point)
  /// One polyline.
  case points([Point])
  /// Several polylines.
  case strokes([[Point]])
  /// `W:H`, both positive.
  case ratio(Double, Double)
  case color(RGBA)
  case integers([Int])
}

/// The declaration of one parameter of a filter: it drives parsing, validation, the sidecar's
/// encoding, `photoedit filters` and `photoedit help apply`.
public struct FilterParameter: Sendable {
  /// The value's type and its allowed range.
  public enum Kind: Sendable {
    /// A decimal number within the range.
    case number(ClosedRange<Double>)
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// One word of the list.
    case choice([String])
    /// Pixels, or a fraction of `axis` ending in `%`; stored as a fraction within `fractions`.
    /// `positive` refuses zero.
    case length(Axis, fractions: ClosedRange<Double>, positive: Bool)
    /// `X:Y`, each pixels or `%`, inside the image (0%...100%).
    case point
    /// `X:Y/X:Y/...`, one polyline of points inside the image.
    case points
    /// On the command line, the path of a JSON file of strokes, read when the word is parsed;
    /// stored as the strokes themselves (normalised), so the recipe needs no file.
    case strokesFile
    /// `W:H`, two positive numbers.
    case ratio
    /// `#RRGGBB` or `#RRGGBBAA`.
    case color
    /// `N/N/...`, whole numbers within the range.
    case integers(ClosedRange<Int>)
  }

  public let name: String
  public let kind: Kind
  /// Used when the parameter is not given; nil means "not set" (the filter decides).
  public let defaultValue: ParameterValue?
  public let help: String
  /// False for a value that means something only for the photo it was given for (faceblur's
  /// `exclude`, face indices of that photo): `apply --recipe` leaves it out on other photos.
  public let portable: Bool

  public init(
    _ name: String, _ kind: Kind, default defaultValue: ParameterValue? = nil, portable: Bool = true,
    help: String
  ) {
    (self.name, self.kind, self.defaultValue, self.portable, self.help) = (
      name, kind, defaultValue, portable, help
    )
  }

  /// The type's name, for `photoedit filters`.
  public var typeName: String {
    switch kind {
    case .number: "number"
    case .integer: "integer"
    case .choice: "choice"
    case .length: "length"
    case .point: "point"
    case .points: "points"
    case .strokesFile: "file"
    case .ratio: "ratio"
    case .color: "color"
    case .integers: "integers"
    }
  }

  /// The allowed values, for `photoedit filters` and error messages.
  public var rangeText: String {
    switch kind {
    case .number(let r): "\(format(r.lowerBound))...\(format(r.upperBound))"
    case .integer(let r): "\(r.lowerBound)...\(r.upperBound)"
    case .choice(let words): words.joined(separator: "|")
    case .length(let axis, let f, let positive):
      "\(positive ? "> 0" : ">= 0") px, or \(format(f.lowerBound * 100))%...\(format(f.upperBound * 100))% of the \(axis.fractionName)"
    case .point: "X:Y, pixels or 0%...100%"
    case .points: "X:Y/X:Y/..., pixels or 0%...100%"
    case .strokesFile: "a JSON file of strokes"
    case .ratio: "W:H, both > 0"
    case .color: "#RRGGBB or #RRGGBBAA"
    case .integers(let r): "N/N/... with each N in \(r.lowerBound)...\(r.upperBound)"
    }
  }

  /// The default as the command line would write it ("" when there is none).
  public var defaultText: String {
    defaultValue.map(commandLineText) ?? ""
  }
}

// MARK: - Parsing the command line

extension FilterParameter {
  /// Parses `text`, the value of `key=value` on the command line. Pixel lengths stay pixels.
  func parse(_ text: String, filter: String, readFile: (String) throws -> [UInt8]) throws(FilterError)
    -> ParameterValue
  {
    func bad(_ expected: String) -> FilterError {
      .badValue(filter: filter, key: name, value: text, expected: expected)
    }
    func range(_ shown: String) -> FilterError {
      .outOfRange(filter: filter, key: name, value: text, range: rangeText)
    }
    switch kind {
    case .number(let r):
      guard let v = Double(text), v.isFinite else { throw bad("a number") }
      guard r.contains(v) else { throw range(text) }
      return .number(v)
    case .integer(let r):
      guard let v = Int(text) else { throw bad("a whole number") }
      guard r.contains(v) else { throw range(text) }
      return .integer(v)
    case .choice(let words):
      guard words.contains(text) else { throw bad("one of \(words.joined(separator: "|"))") }
      return .choice(text)
    case .length(_, let fractions, let positive):
      guard let l = parseLength(text) else { throw bad("a length in pixels or a percentage") }
      switch l {
      case .pixels(let p):
        guard positive ? p > 0 : p >= 0 else { throw range(text) }
      case .fraction(let f):
        guard fractions.contains(f), !(positive && f == 0) else { throw range(text) }
      }
      return .length(l)
    case .point:
      guard let p = parsePoint(text) else { throw bad("a point X:Y") }
      guard pointInRange(p) else { throw range(text) }
      return .point(p)
    case .points:
      let items = text.split(separator: "/", omittingEmptySubsequences: false)
      var points: [Point] = []
      for item in items {
        guard let p = parsePoint(Substring(item)) else { throw bad("points X:Y/X:Y/...") }
        guard pointInRange(p) else { throw range(text) }
        points.append(p)
      }
      return .points(points)
    case .strokesFile:
      let bytes: [UInt8]
      do { bytes = try readFile(text) } catch {
        throw .unreadableFile(filter: filter, key: name, path: text, reason: "\(error)")
      }
      let strokes: [[Point]]
      do { strokes = try StrokesFile.parse(bytes) } catch {
        throw .unreadableFile(filter: filter, key: name, path: text, reason: error.description)
      }
      for stroke in strokes where !stroke.allSatisfy(pointInRange) {
        throw .unreadableFile(
          filter: filter, key: name, path: text, reason: "a point is negative or beyond 100%")
      }
      return .strokes(strokes)
    case .ratio:
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite
      else { throw bad("a ratio W:H") }
      guard w > 0, h > 0 else { throw range(text) }
      return .ratio(w, h)
    case .color:
      guard let c = parseColor(text) else { throw bad("a colour #RRGGBB or #RRGGBBAA") }
      return .color(c)
    case .integers(let r):
      var values: [Int] = []
      for item in text.split(separator: "/", omittingEmptySubsequences: false) {
        guard let v = Int(item) else { throw bad("whole numbers N/N/...") }
        guard r.contains(v) else { throw range(text) }
        values.append(v)
      }
      return .integers(values)
    }
  }

  /// Checks a value of the right type against the declared range (used on stored operations,
  /// whose lengths are fractions). Returns a description of the offending value, or nil.
  func outOfRangeText(_ value: ParameterValue) -> String? {
    switch (kind, value) {
    case (.number(let r), .number(let v)): return r.contains(v) ? nil : format(v)
    case (.integer(let r), .integer(let v)): return r.contains(v) ? nil : "\(v)"
    case (.choice(let words), .choice(let w)): return words.contains(w) ? nil : w
    case (.length(_, let fractions, let positive), .length(let l)):
      switch l {
      case .fraction(let f):
        return fractions.contains(f) && !(positive && f == 0) ? nil : "\(format(f * 100))%"
      case .pixels(let p):
        return (positive ? p > 0 : p >= 0) ? nil : "\(format(p))"
      }
    case (.point, .point(let p)): return pointInRange(p) ? nil : commandLineText(value)
    case (.points, .points(let ps)): return ps.allSatisfy(pointInRange) ? nil : commandLineText(value)
    case (.strokesFile, .strokes(let ss)):
      return ss.allSatisfy { $0.allSatisfy(pointInRange) } ? nil : "a stroke point"
    case (.ratio, .ratio(let w, let h)): return w > 0 && h > 0 ? nil : commandLineText(value)
    case (.color, .color): return nil
    case (.integers(let r), .integers(let vs)):
      return vs.allSatisfy(r.contains) ? nil : commandLineText(value)
    default: preconditionFailure("value \(value) does not match the kind of '\(name)'")
    }
  }
}

func pointInRange(_ p: Point) -> Bool {
  func ok(_ l: Length) -> Bool {
    switch l {
    case .pixels(let v): v >= 0
    case .fraction(let f): f >= 0 && f <= 1
    }
  }
  return ok(p.x) && ok(p.y)
}

/// `12`, `12.5` (pixels) or `40%` (a fraction, 0.4).
func parseLength(_ text: Substring) -> Length? {
  if text.hasSuffix("%") {
    guard let v = Double(text.dropLast()), v.isFinite else { return nil }
    return .fraction(v / 100)
  }
  guard let v = Double(text), v.isFinite else { return nil }
  return .pixels(v)
}
func parseLength(_ text: String) -> Length? { parseLength(Substring(text)) }

/// `X:Y`, each a length.
func parsePoint(_ text: Substring) -> Point? {
  let parts = text.split(separator: ":", omittingEmptySubsequences: false)
  guard parts.count == 2, let x = parseLength(parts[0]), let y = parseLength(parts[1]) else { return nil }
  return Point(x: x, y: y)
}
func parsePoint(_ text: String) -> Point? { parsePoint(Substring(text)) }

/// `#RRGGBB` or `#RRGGBBAA`.
public func parseColor(_ text: String) -> RGBA? {
  let u = Array(text.utf8)
  guard u.first == UInt8(ascii: "#"), u.count == 7 || u.count == 9 else { return nil }
  func hex(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
  }
  var bytes: [UInt8] = []
  var i = 1
  while i < u.count {
    guard let hi = hex(u[i]), let lo = hex(u[i + 1]) else { return nil }
    bytes.append(hi << 4 | lo)
    i += 2
  }
  return RGBA(bytes[0], bytes[1], bytes[2], bytes.count == 4 ? bytes[3] : 255)
}

/// `#RRGGBBAA`, upper-case.
public func colorText(_ c: RGBA) -> String {
  let digits = Array("0123456789ABCDEF")
  var s = "#"
  for b in [c.r, c.g, c.b, c.a] {
    s.append(digits[Int(b >> 4)])
    s.append(digits[Int(b & 15)])
  }
  return s
}

/// A number without a trailing `.0` when it is whole.
func format(_ v: Double) -> String {
  if v == v.rounded(), abs(v) < 1e15 { return "\(Int64(v))" }
  return "\(v)"
}

func lengthText(_ l: Length) -> String {
  switch l {
  case .pixels(let p): format(p)
  case .fraction(let f): "\(format(f * 100))%"
  }
}

/// A value as it would be written on the command line (used for defaults and messages).
func commandLineText(_ value: ParameterValue) -> String {
  func point(_ p: Point) -> String { "\(lengthText(p.x)):\(lengthText(p.y))" }
  switch value {
  case .number(let v): return format(v)
  case .integer(let v): return "\(v)"
  case .choice(let w): return w
  case .length(let l): return lengthText(l)
  case .point(let p): return point(p)
  case .points(let ps): return ps.map(point).joined(separator: "/")
  case .strokes(let ss): return "\(ss.count) strokes"
  case .ratio(let w, let h): return "\(format(w)):\(format(h))"
  case .color(let c): return colorText(c)
  case .integers(let vs): return vs.map(String.init).joined(separator: "/")
  }
}

// MARK: - The sidecar's encoding

extension FilterParameter {
  /// The stored (sidecar) form of a value whose lengths are fractions.
  func encode(_ value: ParameterValue) -> JSONValue {
    func fraction(_ l: Length) -> JSONValue {
      guard case .fraction(let f) = l else { preconditionFailure("'\(name)': stored lengths are fractions") }
      return .number(f)
    }
    func point(_ p: Point) -> JSONValue { .array([fraction(p.x), fraction(p.y)]) }
    switch value {
    case .number(let v): return .number(v)
    case .integer(let v): return .number(Double(v))
    case .choice(let w): return .string(w)
    case .length(let l): return fraction(l)
    case .point(let p): return point(p)
    case .points(let ps): return .array(ps.map(point))
    case .strokes(let ss): return .array(ss.map { .array($0.map(point)) })
    case .ratio(let w, let h): return .array([.number(w), .number(h)])
    case .color(let c): return .string(colorText(c))
    case .integers(let vs): return .array(vs.map { .number(Double($0)) })
    }
  }

  /// Reads a stored value; nil when the JSON has the wrong shape for this parameter.
  func decode(_ json: JSONValue) -> ParameterValue? {
    func point(_ j: JSONValue) -> Point? {
      guard let a = j.array, a.count == 2, let x = a[0].number, let y = a[1].number, x.isFinite, y.isFinite
      else { return nil }
      return Point(fractionX: x, y: y)
    }
    func points(_ j: JSONValue) -> [Point]? {
      guard let a = j.array else { return nil }
      var out: [Point] = []
      for item in a {
        guard let p = point(item) else { return nil }
        out.append(p)
      }
      return out
    }
    switch kind {
    case .number:
      guard let v = json.number, v.isFinite else { return nil }
      return .number(v)
    case .integer:
      guard let v = json.number, v == v.rounded(), abs(v) < 1e15 else { return nil }
      return .integer(Int(v))
    case .choice:
      // A hand-written recipe may give a numeric choice as a number (`"angle": 90`).
      if let n = json.number, n.isFinite { return .choice(format(n)) }
      return json.string.map(ParameterValue.choice)
    case .length:
      guard let v = json.number, v.isFinite else { return nil }
      return .length(.fraction(v))
    case .point: return point(json).map(ParameterValue.point)
    case .points:
      guard let ps = points(json), !ps.isEmpty else { return nil }
      return .points(ps)
    case .strokesFile:
      guard let a = json.array else { return nil }
      var strokes: [[Point]] = []
      for s in a {
        guard let ps = points(s), !ps.isEmpty else { return nil }
        strokes.append(ps)
      }
      return .strokes(strokes)
    case .ratio:
      guard let a = json.array, a.count == 2, let w = a[0].number, let h = a[1].number else { return nil }
      return .ratio(w, h)
    case .color: return json.string.flatMap(parseColor).map(ParameterValue.color)
    case .integers:
      guard let a = json.array else { return nil }
      var out: [Int] = []
      for item in a {
        guard let v = item.number, v == v.rounded(), abs(v) < 1e15 else { return nil }
        out.append(Int(v))
      }
      return .integers(out)
    }
  }

  /// The value with every pixel length turned into a fraction of an image of `width` × `height`.
  func normalized(_ value: ParameterValue, width: Int, height: Int) -> ParameterValue {
    func point(_ p: Point) -> Point {
      Point(fractionX: p.x.fraction(of: width), y: p.y.fraction(of: height))
    }
    switch value {
    case .length(let l):
      guard case .length(let axis, _, _) = kind else { preconditionFailure() }
      return .length(.fraction(l.fraction(of: axis.extent(width: width, height: height))))
    case .point(let p): return .point(point(p))
    case .points(let ps): return .points(ps.map(point))
    case .strokes(let ss): return .strokes(ss.map { $0.map(point) })
    default: return value
    }
  }
}
