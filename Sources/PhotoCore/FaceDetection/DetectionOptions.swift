/// The settings of a face search (OpenCV's `CascadeClassifier::detectMultiScale`), with the
/// ranges every caller checks them against.
public struct DetectionOptions: Sendable, Equatable {
  /// How much the search window grows from one scale to the next; `scaleFactorRange`, default 1.1.
  public var scaleFactor: Double = 1.1
  /// How many raw detections a face needs besides itself to be kept (OpenCV's minNeighbors);
  /// 0 returns the raw, ungrouped detections. `minNeighborsRange`, default 3.
  public var minNeighbors: Int = 3
  /// Smallest face side in pixels (OpenCV's minSize, square); nil means no limit.
  public var minSize: Int? = nil
  /// Largest face side in pixels (OpenCV's maxSize, square); nil means the image size.
  public var maxSize: Int? = nil

  public static let scaleFactorRange: ClosedRange<Double> = 1.01...4
  public static let minNeighborsRange: ClosedRange<Int> = 0...100
  /// The range of `minSize` and `maxSize`.
  public static let faceSizeRange: ClosedRange<Int> = 1...100_000

  public init() {}

  public init(scaleFactor: Double, minNeighbors: Int, minSize: Int? = nil, maxSize: Int? = nil) {
    (self.scaleFactor, self.minNeighbors, self.minSize, self.maxSize) =
      (scaleFactor, minNeighbors, minSize, maxSize)
  }
}
