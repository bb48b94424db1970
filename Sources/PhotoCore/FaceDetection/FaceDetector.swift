// CONTRACT (owned by the face-detection work; the signatures below are what faceblur and the CLI call).

/// A boosted cascade of Haar-like features, read from OpenCV's XML format.
public final class HaarCascade: Sendable {
  /// Parses the text of an OpenCV cascade XML file.
  public init(xml: [UInt8]) throws(CascadeError) {
    fatalError("not implemented")
  }
}

/// Why a cascade file could not be used.
public struct CascadeError: Error, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A face box in pixels of the image searched.
public struct FaceBox: Sendable, Hashable {
  public var x: Int, y: Int, width: Int, height: Int
  public init(x: Int, y: Int, width: Int, height: Int) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }
}

/// The settings of OpenCV's `detectMultiScale`.
public struct DetectionOptions: Sendable, Equatable {
  public var scaleFactor: Double = 1.1
  public var minNeighbors: Int = 3
  /// Smallest and largest face side in pixels (OpenCV's minSize / maxSize); nil means no limit.
  public var minSize: Int? = nil
  public var maxSize: Int? = nil
  public init() {}
}

/// Finds faces the way OpenCV's `CascadeClassifier::detectMultiScale` does.
public enum FaceDetector {
  /// Detects faces in `image` (converted to grey with OpenCV's BGR2GRAY weights), using all cores.
  ///
  /// - Complexity: O(width × height × scales).
  public static func detect(
    in image: Image, cascade: HaarCascade, options: DetectionOptions
  ) -> [FaceBox] {
    fatalError("not implemented")
  }
}
