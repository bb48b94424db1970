import Codecs
import PhotoCore

/// What a command line says about how to edit and render, for every photo of a batch.
public struct StoreSettings: Sendable {
  /// Overwrite a render modified by another program, or an output that is not photoedit's own.
  public var force = false
  /// Do everything but write: validate, render in memory, report what would change.
  public var dryRun = false
  /// JPEG quality 1...100; nil keeps the sidecar's, else 90.
  public var quality: Int? = nil
  /// JPEG chroma subsampling; nil keeps the sidecar's, else the input's (4:2:0 for PNG input).
  public var subsampling: ChromaSubsampling? = nil
  /// Images with more pixels than this are refused before any allocation.
  public var maxPixels = 250_000_000
  /// The face cascade and the timings sink, from the CLI.
  public var context: FilterContext
  /// How long to wait for another photoedit's lock on the same photo before failing "busy".
  public var lockTimeoutSeconds: Double = 30

  /// The codecs and filters the store renders with; tests substitute their own.
  var engine: any RenderEngine = LiveEngine()

  public init(context: FilterContext) { self.context = context }
}

/// One photo's result.
///
/// `fields` go into the photo's `--json` line (besides `file`, `status` and `seconds`, which the
/// CLI adds); `lines` are the human-readable output, one line each, without the file name.
public struct PhotoReport: Sendable, Equatable {
  public var fields: [String: JSONValue]
  public var lines: [String]
  /// Harmless decoder warnings about the original (e.g. extraneous bytes before a JPEG marker),
  /// one line each, for standard error.
  public var warnings: [String]
  public init(fields: [String: JSONValue] = [:], lines: [String] = [], warnings: [String] = []) {
    (self.fields, self.lines, self.warnings) = (fields, lines, warnings)
  }
}
