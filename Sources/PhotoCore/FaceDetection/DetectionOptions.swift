/// The settings of OpenCV's `CascadeClassifier::detectMultiScale`.
public struct DetectionOptions: Sendable, Equatable {
  /// How much the search window grows from one scale to the next; greater than 1. Default 1.1.
  public var scaleFactor: Double = 1.1
  /// How many raw detections a face needs besides itself to be kept (OpenCV's minNeighbors);
  /// 0 returns the raw, ungrouped detections. Default 3.
  public var minNeighbors: Int = 3
  /// Smallest face side in pixels (OpenCV's minSize, square); nil means no limit.
  public var minSize: Int? = nil
  /// Largest face side in pixels (OpenCV's maxSize, square); nil means the image size.
  public var maxSize: Int? = nil

  public init() {}

  public init(scaleFactor: Double, minNeighbors: Int, minSize: Int? = nil, maxSize: Int? = nil) {
    (self.scaleFactor, self.minNeighbors, self.minSize, self.maxSize) =
      (scaleFactor, minNeighbors, minSize, maxSize)
  }
}
