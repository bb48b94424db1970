/// What a filter may need from outside the pixel core while it runs.
///
/// PhotoCore does no file I/O: the caller supplies the face cascade (loaded lazily, only when a
/// filter asks for it) and a sink for stage timings.
public struct FilterContext: Sendable {
  /// Returns the face cascade; throws a message naming the cascade file when it cannot be loaded.
  public var cascade: @Sendable () throws -> HaarCascade
  /// Receives a stage name and its duration in seconds (for `--timings`).
  public var recordTiming: @Sendable (_ stage: String, _ seconds: Double) -> Void
  /// The image the first operation sees, decoded at a reduced size by the codec (DCT scaling),
  /// for detectors that work faster on a smaller copy. Nil when no such copy exists.
  public var reducedSource: Image?

  public init(
    cascade: @escaping @Sendable () throws -> HaarCascade,
    recordTiming: @escaping @Sendable (_ stage: String, _ seconds: Double) -> Void = { _, _ in },
    reducedSource: Image? = nil
  ) {
    self.cascade = cascade
    self.recordTiming = recordTiming
    self.reducedSource = reducedSource
  }
}
