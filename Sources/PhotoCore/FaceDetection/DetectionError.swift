/// Why a detection was stopped. Its words are the CLI's (`ErrorText`).
public enum DetectionError: Error, Equatable, Sendable {
  /// The cascade accepted more raw windows than `limit` (see ``HaarDetector/candidateLimit(width:height:)``):
  /// it accepts nearly everything, so it is not a usable detector for this image, and grouping
  /// that many windows would take minutes. The search stopped as soon as the count passed the
  /// limit.
  case tooManyCandidates(limit: Int)
  /// A CenterFace model found more face candidates (cells of its heatmap over the threshold) in
  /// this image than `limit`: its weights say "face" nearly everywhere, so it is not a usable
  /// model, and removing the overlaps of that many candidates took hours. `model` is its file
  /// ("" when not known).
  case tooManyFaceCandidates(model: String, limit: Int)
  /// Removing the overlaps of a CenterFace model's candidates in this image took more than
  /// `limit` steps (boxes crowding one place in every shape and size): not a usable model.
  case overlapRemovalTooLong(model: String, limit: Int)
  /// More faces than a step stores (``Box/maxStored``): refused rather than hiding some of them.
  case tooManyFaces(count: Int, limit: Int)
  /// The detector's working memory did not fit the process's memory budget (`--max-memory`).
  case memoryBudget(MemoryBudget.Exceeded)
}

extension DetectionError {
  /// The error with the model file named, when it is about a model's candidates.
  public func naming(model path: String) -> DetectionError {
    switch self {
    case .tooManyFaceCandidates(_, let limit): .tooManyFaceCandidates(model: path, limit: limit)
    case .overlapRemovalTooLong(_, let limit): .overlapRemovalTooLong(model: path, limit: limit)
    default: self
    }
  }
}

extension MemoryBudget {
  /// Draws `bytes` of a detector's working memory for `purpose`, refused as a `DetectionError`.
  public func reserveForDetection(_ bytes: Int, for purpose: String) throws(DetectionError) -> Reservation {
    do { return try reserve(bytes, for: purpose) } catch { throw .memoryBudget(error) }
  }
}
