/// Why a detection was stopped.
///
/// The `description` is one line, without the file name.
public enum DetectionError: Error, Equatable, CustomStringConvertible {
  /// The cascade accepted more raw windows than `limit` (see ``FaceDetector/candidateLimit(width:height:)``):
  /// it accepts nearly everything, so it is not a usable detector for this image, and grouping
  /// that many windows would take minutes. The search stopped as soon as the count passed the
  /// limit.
  case tooManyCandidates(limit: Int)

  public var description: String {
    switch self {
    case .tooManyCandidates(let limit):
      "the cascade accepts more than \(limit) windows in this image, nearly all it sees:"
        + " it is not a usable detector"
    }
  }
}
