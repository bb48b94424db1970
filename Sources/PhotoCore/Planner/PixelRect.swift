/// A rectangle of pixels: columns `x ..< x + width` and rows `y ..< y + height`, in pixels of some
/// image (pixel (x, y) is the pixel whose top-left corner is at (x, y)). An empty rectangle has
/// a width or height of 0.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
  public var x: Int, y: Int, width: Int, height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    precondition(width >= 0 && height >= 0, "a rectangle's size is not negative")
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }

  /// The whole of an image of `size`.
  public init(_ size: ImageSize) { self.init(x: 0, y: 0, width: size.width, height: size.height) }

  /// The rectangle with columns `columns` and rows `rows`.
  public init(columns: Range<Int>, rows: Range<Int>) {
    self.init(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
  }

  /// The rectangle holding inclusive pixel bounds (as `PixelRegion.bounds` gives them).
  init(bounds b: (x0: Int, y0: Int, x1: Int, y1: Int)) {
    self.init(x: b.x0, y: b.y0, width: b.x1 - b.x0 + 1, height: b.y1 - b.y0 + 1)
  }

  /// The empty rectangle.
  public static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)

  public var maxX: Int { x + width }
  public var maxY: Int { y + height }
  public var columns: Range<Int> { x..<maxX }
  public var rows: Range<Int> { y..<maxY }
  public var isEmpty: Bool { width == 0 || height == 0 }
  /// The number of pixels.
  public var area: Int { width * height }
  public var size: ImageSize { ImageSize(width, height) }

  /// The pixels in both; empty when they do not meet.
  public func intersection(_ other: PixelRect) -> PixelRect {
    let x0 = Swift.max(x, other.x)
    let y0 = Swift.max(y, other.y)
    let x1 = Swift.min(maxX, other.maxX)
    let y1 = Swift.min(maxY, other.maxY)
    guard x0 < x1, y0 < y1 else { return .empty }
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// True when the two share a pixel.
  public func intersects(_ other: PixelRect) -> Bool { !intersection(other).isEmpty }

  /// The smallest rectangle holding both (an empty one adds nothing).
  public func union(_ other: PixelRect) -> PixelRect {
    if isEmpty { return other }
    if other.isEmpty { return self }
    let x0 = Swift.min(x, other.x)
    let y0 = Swift.min(y, other.y)
    return PixelRect(
      x: x0, y: y0, width: Swift.max(maxX, other.maxX) - x0, height: Swift.max(maxY, other.maxY) - y0)
  }

  /// True when every pixel of `other` is in this rectangle (an empty one always is).
  public func contains(_ other: PixelRect) -> Bool {
    other.isEmpty
      || (other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY)
  }

  /// True when pixel (px, py) is in the rectangle.
  public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

  /// The rectangle grown by `dx` columns on the left and right and `dy` rows above and below.
  public func grown(dx: Int, dy: Int) -> PixelRect {
    if isEmpty { return self }
    return PixelRect(x: x - dx, y: y - dy, width: width + 2 * dx, height: height + 2 * dy)
  }

  /// The rectangle with its corner moved left and up onto a multiple of `grid` (its far edges
  /// kept; an empty one as it is).
  public func cornerOnGrid(_ grid: Int) -> PixelRect {
    guard !isEmpty else { return self }
    return PixelRect(columns: (x / grid * grid)..<maxX, rows: (y / grid * grid)..<maxY)
  }

  /// The rectangle moved by (dx, dy).
  public func offset(dx: Int, dy: Int) -> PixelRect {
    PixelRect(x: x + dx, y: y + dy, width: width, height: height)
  }

  public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
