/// A face detector: the one service that finds faces for every caller (listing them, hiding
/// them, reviewing them), so that every caller numbers them the same way.
///
/// Implementations differ in how they search (a Haar cascade, a neural network); all return
/// faces in reading order (see `Face.inReadingOrder`), so face #K is the same face for every
/// caller.
public protocol FaceDetector: Sendable {
  /// What found the faces: stored with them, so a result can be traced to its detector.
  var identity: DetectorIdentity { get }
  /// The faces in `image` (upright, alpha ignored), in reading order, in pixels of `image`.
  ///
  /// - Complexity: O(width × height × scales).
  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face]
}

/// A detector's name and version, and the checksum of the model or cascade it ran with.
public struct DetectorIdentity: Sendable, Hashable {
  public var name: String
  public var version: Int
  /// A checksum of the model or cascade file, as its loader computed it (empty when unknown).
  public var model: String

  public init(name: String, version: Int, model: String = "") {
    (self.name, self.version, self.model) = (name, version, model)
  }
}

/// One face found: its box in pixels of the image searched.
public struct Face: Sendable, Hashable {
  /// Left edge and top row, in pixels; width and height in pixels.
  public var x: Double, y: Double, width: Double, height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }

  public init(_ box: FaceBox) {
    self.init(x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height))
  }
}

extension Array where Element == Face {
  /// The faces in reading order: by left edge, then top row, then width, then height. The order
  /// every detector returns and every caller numbers faces in (face #0 is the leftmost).
  public var inReadingOrder: [Face] {
    sorted { ($0.x, $0.y, $0.width, $0.height) < ($1.x, $1.y, $1.width, $1.height) }
  }
}

/// OpenCV's Haar cascade search (`HaarDetector`) as a face detector.
public struct HaarFaceDetector: FaceDetector {
  public let cascade: HaarCascade
  public let identity: DetectorIdentity

  public init(cascade: HaarCascade, model: String = "") {
    self.cascade = cascade
    identity = DetectorIdentity(name: "haar", version: 1, model: model)
  }

  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    HaarDetector.detect(in: image, cascade: cascade, options: options).map(Face.init).inReadingOrder
  }
}
