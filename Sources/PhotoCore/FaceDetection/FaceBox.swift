/// A face box in pixels of the image searched: top-left corner, width and height.
public struct FaceBox: Sendable, Hashable {
  /// Left edge, in pixels from the image's left side.
  public var x: Int
  /// Top edge, in pixels from the image's top row.
  public var y: Int
  /// Width and height, in pixels.
  public var width: Int, height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }
}
