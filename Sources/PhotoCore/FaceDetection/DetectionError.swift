/// Why a detection was stopped. Its words are the CLI's (`ErrorText`).
public enum DetectionError: Error, Equatable, Sendable {
  /// The cascade accepted more raw windows than `limit` (see ``HaarDetector/candidateLimit(width:height:)``):
  /// it accepts nearly everything, so it is not a usable detector for this image, and grouping
  /// that many windows would take minutes. The search stopped as soon as the count passed the
  /// limit.
  case tooManyCandidates(limit: Int)
  /// More faces than a step stores (``Box/maxStored``): refused rather than hiding some of them.
  case tooManyFaces(count: Int, limit: Int)
}
