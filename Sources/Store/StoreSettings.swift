import Codecs
import PhotoCore
import Recipe

/// What a command line says about how to edit and render, for every photo of a batch.
public struct StoreSettings: Sendable {
  /// Overwrite a render modified by another program, or an output that is not photoedit's own.
  public var force = false
  /// Do everything but write: validate, render in memory, report what would change.
  public var dryRun = false
  /// JPEG quality (`EncodeOptions.qualityRange`); nil keeps the sidecar's, else the default.
  public var quality: Int? = nil
  /// JPEG chroma subsampling; nil keeps the sidecar's, else the input's (4:2:0 for PNG input).
  public var subsampling: ChromaSubsampling? = nil
  /// Whether renders carry the original's metadata or are stripped of identifying metadata;
  /// nil keeps the sidecar's choice (`RenderRecord.metadata`), else `.kept`. Recorded in the
  /// sidecar, so every later re-render does the same.
  public var metadata: MetadataPolicy? = nil
  /// Images with more pixels than this are refused before any allocation.
  public var maxPixels = DecodeOptions.defaultMaxPixels
  /// The largest sidecar, recipe, strokes file or cascade read, in bytes.
  public var maxFileBytes = FileLimits.defaultDataFileBytes
  /// How long to wait for another photoedit's lock on the same photo before failing `busy`.
  public var lockTimeoutSeconds: Double = 30
  /// Where the face detector comes from; it is loaded only when a step needs one.
  public var detectors: DetectorLoader
  /// Receives each stage's name and its duration in seconds.
  public var recordTiming: @Sendable (_ stage: String, _ seconds: Double) -> Void = { _, _ in }

  /// Whether faceblur's lossless render walks the original's scan ahead, on another core, during
  /// the detection (`JPEGScanIndex`); nil: when the machine has a core to spare and no other
  /// render is under way in the process. Tests force it either way.
  var scansAhead: Bool? = nil
  /// Tests: the splice refuses every file, as libjpeg may refuse one `LosslessJPEG.accepts`
  /// allowed, so that the route chosen next can be seen to reuse what the first one resolved.
  var refusesSplice = false

  /// The codecs the store renders with; tests substitute their own.
  var engine: any RenderEngine = LiveEngine()
  /// The filters stored steps are read against; tests add their own.
  var registry: [any Filter.Type] = Filters.all

  public init(detectors: DetectorLoader = DetectorLoader()) { self.detectors = detectors }
}

extension StoreSettings {
  /// `body`'s result, its duration recorded as `stage` (`recordTiming`).
  func timed<T, E: Error>(_ stage: String, _ body: () throws(E) -> T) throws(E) -> T {
    let start = ContinuousClock.now
    defer { recordTiming(stage, Self.seconds(start.duration(to: .now))) }
    return try body()
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }
}
