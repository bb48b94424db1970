/// A distance or coordinate as it was given: pixels of the image entering the step, or a fraction
/// of that image.
///
/// Stored steps hold only fractions: resolving a request turns pixels into fractions of the image
/// the step meets, so a recipe fits a photo of any size.
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

  var isFraction: Bool { if case .fraction = self { true } else { false } }

  /// The fraction `percent` percent names, rounded once from the decimal: `0.7` gives the Double
  /// nearest 0.007, where `0.7 / 100` gives 0.006999999999999999 (stored so, and shown back as
  /// 0.6999999999999999%). Nil unless `percent` is a finite number.
  public static func fraction(percent: Substring) -> Double? {
    let once = percent.contains { $0 == "e" || $0 == "E" } ? nil : Double(percent + "e-2")
    guard let v = once ?? Double(percent).map({ $0 / 100 }), v.isFinite else { return nil }
    return v
  }
}

/// Rounds a pixel coordinate computed from a fraction to 1/4096 px, so that `x / width * width`
/// gives back exactly `x`, and a pixel exactly on a circle's edge stays on it after a round trip
/// through the stored form.
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
}

/// A point; x is measured along the width, y along the height, from the top-left pixel.
public struct Point: Sendable, Hashable {
  public var x: Length, y: Length
  public init(x: Length, y: Length) { (self.x, self.y) = (x, y) }
  public init(fractionX x: Double, y: Double) { (self.x, self.y) = (.fraction(x), .fraction(y)) }

  /// The point in pixels of an image of `width` × `height`.
  public func pixels(width: Int, height: Int) -> (x: Double, y: Double) {
    (x.pixels(of: width), y.pixels(of: height))
  }

  /// The point as fractions of an image of `width` × `height`.
  func normalized(width: Int, height: Int) -> Point {
    Point(fractionX: x.fraction(of: width), y: y.fraction(of: height))
  }
}

/// A rectangle: x and width along the image's width, y and height along its height.
public struct Box: Sendable, Hashable {
  /// The most boxes one parameter stores (a step's faces): a sidecar holding more is refused as
  /// planted (each box is drawn on every render), and a step that would hold more is refused.
  public static let maxStored = 100_000

  public var x: Length, y: Length, width: Length, height: Length

  public init(x: Length, y: Length, width: Length, height: Length) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }

  /// A box of fractions of the image.
  public init(fractionX x: Double, y: Double, width: Double, height: Double) {
    self.init(x: .fraction(x), y: .fraction(y), width: .fraction(width), height: .fraction(height))
  }

  /// The box in pixels of an image of `width` × `height` (fractions snapped to 1/4096 px).
  public func pixels(width w: Int, height h: Int) -> (x: Double, y: Double, width: Double, height: Double) {
    (x.pixels(of: w), y.pixels(of: h), width.pixels(of: w), height.pixels(of: h))
  }

  /// The box as fractions of an image of `width` × `height`.
  func normalized(width w: Int, height h: Int) -> Box {
    Box(
      fractionX: x.fraction(of: w), y: y.fraction(of: h), width: width.fraction(of: w),
      height: height.fraction(of: h))
  }
}

/// A width-to-height ratio, both positive.
public struct Ratio: Sendable, Hashable {
  public var width: Double, height: Double
  public init(_ width: Double, _ height: Double) { (self.width, self.height) = (width, height) }
}

extension RGBA {
  /// `#RRGGBB` or `#RRGGBBAA` (hexadecimal, either case; alpha last, 255 when absent).
  public init?(hex text: String) {
    let u = Array(text.utf8)
    guard u.first == UInt8(ascii: "#"), u.count == 7 || u.count == 9 else { return nil }
    func digit(_ c: UInt8) -> UInt8? {
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
      guard let hi = digit(u[i]), let lo = digit(u[i + 1]) else { return nil }
      bytes.append(hi << 4 | lo)
      i += 2
    }
    self.init(bytes[0], bytes[1], bytes[2], bytes.count == 4 ? bytes[3] : 255)
  }

  /// `#RRGGBBAA`, upper-case: the stored form of a colour.
  public var hex: String {
    let digits = Array("0123456789ABCDEF")
    var s = "#"
    for b in [r, g, b, a] {
      s.append(digits[Int(b >> 4)])
      s.append(digits[Int(b & 15)])
    }
    return s
  }
}
