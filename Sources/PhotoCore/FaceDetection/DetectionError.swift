/// Why a face search failed.
public enum DetectionError: Error, Equatable, Sendable {
  /// The cascade accepted more raw windows than a real cascade does on a real photo; the search
  /// stopped at `limit`.
  case tooManyCandidates(limit: Int)
}
