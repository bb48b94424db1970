/// The type of one parameter and the values it allows.
public enum ParameterKind: Sendable, Hashable {
  /// A decimal number within the range.
  case number(ClosedRange<Double>)
  /// A whole number within the range.
  case integer(ClosedRange<Int>)
  /// One word of the list.
  case choice([String])
  /// Pixels, or a fraction of `axis`; stored as a fraction within `fractions`. `positive` refuses
  /// zero; `minimumPixels` refuses fewer pixels, as given or measured on an image
  /// (``ParameterKind/allows(_:on:)``).
  case length(Axis, fractions: ClosedRange<Double>, positive: Bool, minimumPixels: Double)
  /// A point inside the image (pixels >= 0, or fractions 0...1).
  case point
  /// One polyline of points inside the image.
  case points
  /// Several polylines of points inside the image.
  case strokes
  /// A width-to-height ratio, both positive.
  case ratio
  /// An RGBA colour.
  case color
  /// An opaque RGB colour (alpha 255): a fill that must hide what it covers.
  case opaqueColor
  /// A list of whole numbers within the range.
  case integers(ClosedRange<Int>)
  /// A list of rectangles: positions within -1...2 of the image and sizes within 0...2 when stored
  /// as fractions; in pixels, finite with sizes > 0.
  case boxes
  /// A SHA-256: 64 lowercase hexadecimal digits (the file a detector searched with).
  case digest
}

/// One parameter's value, typed, as a request or a stored step holds it.
public enum ParameterValue: Sendable, Hashable {
  case number(Double)
  case integer(Int)
  case choice(String)
  case length(Length)
  case point(Point)
  case points([Point])
  case strokes([[Point]])
  case ratio(Ratio)
  case color(RGBA)
  case integers([Int])
  case boxes([Box])
  case digest(String)
}

extension ParameterKind {
  /// True when `value` is of this kind and within its range. Lengths and points may be pixels
  /// (a request) or fractions (a stored step).
  public func allows(_ value: ParameterValue) -> Bool {
    func inside(_ l: Length) -> Bool {
      switch l {
      case .pixels(let v): v.isFinite && v >= 0
      case .fraction(let f): f.isFinite && f >= 0 && f <= 1
      }
    }
    func inside(_ p: Point) -> Bool { inside(p.x) && inside(p.y) }
    func allowed(_ b: Box) -> Bool {
      let position = [b.x, b.y].allSatisfy { l in
        switch l {
        case .pixels(let v): v.isFinite
        case .fraction(let f): f.isFinite && (-1...2).contains(f)
        }
      }
      let size = [b.width, b.height].allSatisfy { l in
        switch l {
        case .pixels(let v): v.isFinite && v > 0
        case .fraction(let f): f.isFinite && (0...2).contains(f)
        }
      }
      return position && size
    }
    switch (self, value) {
    case (.number(let r), .number(let v)): return v.isFinite && r.contains(v)
    case (.integer(let r), .integer(let v)): return r.contains(v)
    case (.choice(let words), .choice(let w)): return words.contains(w)
    case (.length(_, let fractions, let positive, let minimum), .length(let l)):
      switch l {
      case .pixels(let p): return p.isFinite && (positive ? p > 0 : p >= 0) && p >= minimum
      case .fraction(let f): return f.isFinite && fractions.contains(f) && !(positive && f == 0)
      }
    case (.point, .point(let p)): return inside(p)
    case (.points, .points(let ps)): return !ps.isEmpty && ps.allSatisfy(inside)
    case (.strokes, .strokes(let ss)):
      return !ss.isEmpty && ss.allSatisfy { !$0.isEmpty && $0.allSatisfy(inside) }
    case (.ratio, .ratio(let r)): return r.width.isFinite && r.height.isFinite && r.width > 0 && r.height > 0
    case (.color, .color): return true
    case (.opaqueColor, .color(let c)): return c.a == 255
    case (.integers(let r), .integers(let vs)): return vs.allSatisfy(r.contains)
    case (.boxes, .boxes(let bs)): return bs.allSatisfy(allowed)
    case (.digest, .digest(let d)):
      return d.utf8.count == 64 && d.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    default: return false
    }
  }

  /// True when `value` is allowed (``allows(_:)``) and, for a length, is at least its minimum in
  /// pixels when measured on an image of `size`: a fraction that is too few pixels of this image
  /// (a brush's pen of 0.0001% on a 128-pixel photo) is refused here.
  public func allows(_ value: ParameterValue, on size: ImageSize) -> Bool {
    guard allows(value) else { return false }
    guard case .length(let axis, _, _, let minimum) = self, case .length(let l) = value, minimum > 0 else {
      return true
    }
    return l.pixels(of: axis.extent(width: size.width, height: size.height)) >= minimum
  }

  /// The value with every pixel length turned into a fraction of an image of `width` × `height`.
  func normalized(_ value: ParameterValue, width: Int, height: Int) -> ParameterValue {
    switch value {
    case .length(let l):
      guard case .length(let axis, _, _, _) = self else { return value }
      return .length(.fraction(l.fraction(of: axis.extent(width: width, height: height))))
    case .point(let p): return .point(p.normalized(width: width, height: height))
    case .points(let ps): return .points(ps.map { $0.normalized(width: width, height: height) })
    case .strokes(let ss): return .strokes(ss.map { $0.map { $0.normalized(width: width, height: height) } })
    case .boxes(let bs): return .boxes(bs.map { $0.normalized(width: width, height: height) })
    default: return value
    }
  }

  /// True when the value holds no pixel length (it is in stored form).
  static func isNormalized(_ value: ParameterValue) -> Bool {
    func fraction(_ p: Point) -> Bool { p.x.isFraction && p.y.isFraction }
    switch value {
    case .length(let l): return l.isFraction
    case .point(let p): return fraction(p)
    case .points(let ps): return ps.allSatisfy(fraction)
    case .strokes(let ss): return ss.allSatisfy { $0.allSatisfy(fraction) }
    case .boxes(let bs): return bs.allSatisfy { [$0.x, $0.y, $0.width, $0.height].allSatisfy(\.isFraction) }
    default: return true
    }
  }
}

extension ParameterKind {
  /// Why a value this kind does not allow is refused: for strokes, `.strokeOutsideImage` naming
  /// the first point outside; else `.outOfRange`.
  ///
  /// - Parameters:
  ///   - given: the value as given (pixels or fractions).
  ///   - checked: the form that was checked against the kind, when not `given`: with its pixels
  ///     made fractions of the `image` it met.
  public func refusal(
    of given: ParameterValue, checked: ParameterValue? = nil, filter: String, key: String,
    image: ImageSize? = nil
  ) -> FilterError {
    let checked = checked ?? given
    if case .strokes(let strokes) = given, case .strokes(let fractions) = checked {
      for (i, (stroke, points)) in zip(strokes, fractions).enumerated() {
        if let j = points.indices.first(where: { !ParameterKind.point.allows(.point(points[$0])) }) {
          return .strokeOutsideImage(
            filter: filter, key: key, file: nil, stroke: i, point: j, value: stroke[j], image: image)
        }
      }
    }
    return .outOfRange(filter: filter, key: key, value: given, allowed: self, image: image)
  }
}

// MARK: - The stored form

extension ParameterKind {
  /// The stored form of a value whose lengths are fractions.
  func encode(_ value: ParameterValue) -> JSONValue {
    func fraction(_ l: Length) -> JSONValue {
      guard case .fraction(let f) = l else { preconditionFailure("stored lengths are fractions") }
      return .number(f)
    }
    return value.json(length: fraction) { b in
      .object([
        "x": fraction(b.x), "y": fraction(b.y), "width": fraction(b.width), "height": fraction(b.height),
      ])
    }
  }

  /// Reads a stored value (lengths are fractions); nil when the JSON has the wrong shape.
  func decode(_ json: JSONValue) -> ParameterValue? {
    func finite(_ j: JSONValue) -> Double? { j.number.flatMap { $0.isFinite ? $0 : nil } }
    func point(_ j: JSONValue) -> Point? {
      guard let a = j.array, a.count == 2, let x = finite(a[0]), let y = finite(a[1]) else { return nil }
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
    switch self {
    case .number: return finite(json).map(ParameterValue.number)
    case .integer: return json.integer.map(ParameterValue.integer)
    case .choice:
      // A hand-written recipe may give a numeric choice as a number (`"angle": 90`).
      if let n = json.integer { return .choice("\(n)") }
      return json.string.map(ParameterValue.choice)
    case .length: return finite(json).map { .length(.fraction($0)) }
    case .point: return point(json).map(ParameterValue.point)
    case .points: return points(json).map(ParameterValue.points)
    case .strokes:
      guard let a = json.array else { return nil }
      var strokes: [[Point]] = []
      for s in a {
        guard let ps = points(s) else { return nil }
        strokes.append(ps)
      }
      return .strokes(strokes)
    case .ratio:
      guard let a = json.array, a.count == 2, let w = finite(a[0]), let h = finite(a[1]) else { return nil }
      return .ratio(Ratio(w, h))
    case .color, .opaqueColor: return json.string.flatMap(RGBA.init(hex:)).map(ParameterValue.color)
    case .integers:
      guard let a = json.array else { return nil }
      var out: [Int] = []
      for item in a {
        guard let v = item.integer else { return nil }
        out.append(v)
      }
      return .integers(out)
    case .boxes:
      guard let a = json.array, a.count <= Box.maxStored else { return nil }
      var out: [Box] = []
      for item in a {
        guard let o = item.object, let x = o["x"].flatMap(finite), let y = o["y"].flatMap(finite),
          let w = o["width"].flatMap(finite), let h = o["height"].flatMap(finite)
        else { return nil }
        out.append(Box(fractionX: x, y: y, width: w, height: h))
      }
      return .boxes(out)
    case .digest: return json.string.map(ParameterValue.digest)
    }
  }
}

extension ParameterValue {
  /// The value as JSON, each length written by `length` and each box by `box`: the one walk over
  /// the kinds of value, for the stored form (`ParameterKind.encode`) and the canonical form of a
  /// request (`StepRequest.canonical`).
  func json(length: (Length) -> JSONValue, box: (Box) -> JSONValue) -> JSONValue {
    func point(_ p: Point) -> JSONValue { .array([length(p.x), length(p.y)]) }
    switch self {
    case .number(let v): return .number(v)
    case .integer(let v): return .number(Double(v))
    case .choice(let w): return .string(w)
    case .length(let l): return length(l)
    case .point(let p): return point(p)
    case .points(let ps): return .array(ps.map(point))
    case .strokes(let ss): return .array(ss.map { .array($0.map(point)) })
    case .ratio(let r): return .array([.number(r.width), .number(r.height)])
    case .color(let c): return .string(c.hex)
    case .integers(let vs): return .array(vs.map { .number(Double($0)) })
    case .boxes(let bs): return .array(bs.map(box))
    case .digest(let d): return .string(d)
    }
  }
}
