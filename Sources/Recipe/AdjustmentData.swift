import Codecs
import PhotoCore

/// The adjustment data: a photo's recipe and its provenance, stored as the sidecar
/// `PHOTO.photoedit.json`, modelled on Photos' PHAdjustmentData. The format is specified in
/// docs/sidecar.md.
///
/// A recipe file (for `apply --recipe`) has the same shape without `original` and `render`.
/// Written pretty-printed with sorted keys, so the same data always gives the same bytes.
public struct AdjustmentData: Equatable, Sendable {
  /// The one identifier photoedit writes and reads.
  public static let identifier = "org.photoedit.adjustments"
  /// The newest format version this photoedit reads and writes; raised on every incompatible
  /// change. Version 3 adds the review record (`review`), and is written only by a sidecar that
  /// has one, so that an older photoedit refuses it rather than drop the record unseen; version 2
  /// keeps the history of changes (`history`, `undone`); version 1 kept undone steps.
  public static let currentVersion = 3
  /// The version of a sidecar without a review record: version 2 and 3 differ only by it.
  public static let versionWithoutReview = 2
  /// At most this many changes are kept for `undo` (the oldest are forgotten first).
  public static let historyLimit = 100

  public var original: Original?
  public var render: RenderRecord?
  /// The active steps in the order they apply (`operations` in the file).
  public var steps: [Step]
  /// The changes made to the recipe, the most recent last; `undo` takes back from the end.
  public var history: [Change]
  /// The changes `undo` took back, the most recently undone last; `redo` makes them again from
  /// the end. A new change clears it.
  public var undone: [Change]
  /// For an output made with `-o` or `--output-dir`: the SHA-256 of the request that made it
  /// (the filters given, the encoding settings), so that running the same command again finds
  /// the output current and does nothing.
  public var request: SHA256Digest?
  /// What a person decided of the photo on a review page, recorded by `apply --corrections`.
  public var review: ReviewRecord?

  /// The version these data are written in (whatever version they were read from: an older one
  /// is migrated): 3 with a review record, else 2.
  public var formatVersion: Int { review == nil ? Self.versionWithoutReview : Self.currentVersion }

  /// The untouched original this recipe applies to.
  public struct Original: Equatable, Sendable {
    /// Relative to the sidecar's folder (or absolute, when the original is on another root).
    public var path: String
    /// The SHA-256 of the original file's bytes.
    public var sha256: SHA256Digest
    /// The original file's size in bytes.
    public var bytes: Int
    /// Upright size in pixels (after the EXIF orientation is applied).
    public var width: Int
    public var height: Int
    /// The EXIF orientation the original file had, 1...8.
    public var orientation: Int

    public init(path: String, sha256: SHA256Digest, bytes: Int, width: Int, height: Int, orientation: Int) {
      (self.path, self.sha256, self.bytes) = (path, sha256, bytes)
      (self.width, self.height, self.orientation) = (width, height, orientation)
    }

    package var json: JSONValue {
      .object([
        "path": .string(path), "sha256": sha256.json, "bytes": .number(Double(bytes)),
        "width": .number(Double(width)), "height": .number(Double(height)),
        "orientation": .number(Double(orientation)),
      ])
    }

    /// Reads and checks the sidecar's `original` object: a path (not empty, no NUL), 64
    /// lowercase hex digits, a size the store could have read, a size in pixels and an EXIF
    /// orientation. A planted sidecar's values reach `show` and `status`, so none may be out of
    /// range (the path is a file name, shown as every file name is: `PathName.display`).
    ///
    /// - Throws: `.invalidRecipe` naming the field and what it holds.
    package init(json: JSONValue) throws(StoreError) {
      guard let o = json.object else { throw .invalidRecipe(.wrongType(field: "original")) }
      func integer(_ key: String, _ range: ClosedRange<Int>) throws(StoreError) -> Int {
        guard let value = o[key] else { throw .invalidRecipe(.missing(field: "original." + key)) }
        guard let i = value.integer, range.contains(i) else {
          throw .invalidRecipe(.badValue(field: "original." + key, value: value))
        }
        return i
      }
      guard let pathValue = o["path"] else { throw .invalidRecipe(.missing(field: "original.path")) }
      guard let path = pathValue.string, !path.isEmpty, !path.unicodeScalars.contains("\0") else {
        throw .invalidRecipe(.badValue(field: "original.path", value: pathValue))
      }
      guard let shaValue = o["sha256"] else { throw .invalidRecipe(.missing(field: "original.sha256")) }
      guard let sha = SHA256Digest(shaValue) else {
        throw .invalidRecipe(.badValue(field: "original.sha256", value: shaValue))
      }
      self.init(
        path: path, sha256: sha, bytes: try integer("bytes", 1...FileLimits.photoBytes),
        width: try integer("width", 1...Int(Int32.max)), height: try integer("height", 1...Int(Int32.max)),
        orientation: try integer("orientation", 1...8))
    }
  }

  public init(
    original: Original?, render: RenderRecord?, steps: [Step], history: [Change] = [], undone: [Change] = []
  ) {
    (self.original, self.render, self.steps, self.history, self.undone) = (
      original, render, steps, history, undone
    )
  }

  /// The data after `change` is made: the steps changed, the change remembered for `undo` (up to
  /// `historyLimit`), and what was undone forgotten (a new branch of history).
  package func making(_ change: Change) -> AdjustmentData? {
    guard let steps = change.made(on: steps) else { return nil }
    var data = self
    data.steps = steps
    data.history = Array((history + [change]).suffix(Self.historyLimit))
    data.undone = []
    return data
  }

  /// The sidecar's bytes: pretty-printed JSON with sorted keys and a final newline.
  package func encoded() -> [UInt8] {
    var object: [String: JSONValue] = [
      "formatIdentifier": .string(Self.identifier),
      "formatVersion": .number(Double(formatVersion)),
      "operations": .array(steps.map(\.stored)),
      "history": .array(history.map(\.stored)),
      "undone": .array(undone.map(\.stored)),
    ]
    if let original { object["original"] = original.json }
    if let render { object["render"] = render.json }
    if let request { object["request"] = request.json }
    if let review { object["review"] = review.json }
    return JSONCoding.encode(JSONValue.object(object))
  }
}

/// What the sidecar records of the render photoedit last wrote, so that a change by another
/// program is detected and a re-render uses the same settings. Checked when a sidecar is read.
public struct RenderRecord: Equatable, Sendable {
  /// Lowercase hexadecimal SHA-256 of the rendered file's bytes.
  public var sha256: SHA256Digest
  public var format: ImageFormat
  /// JPEG quality, `EncodeOptions.qualityRange` (kept for PNG too, so a later JPEG export uses it).
  public var quality: Int
  /// JPEG chroma subsampling; nil for PNG.
  public var subsampling: ChromaSubsampling?
  /// Whether the render carries the original's metadata or is stripped of identifying metadata
  /// (`--strip-identifying`): every later render of the recipe does the same until a command
  /// line says otherwise. `metadata: "stripped"` in the file; absent for `.kept`.
  public var metadata: MetadataPolicy
  /// How a JPEG render was made (`render.route`): from the original's coefficients, or
  /// re-encoded. nil for PNG renders, and in sidecars written before routes were recorded.
  public var route: RenderRoute?
  /// True when a command line's `--quality` or `--subsampling` pinned the re-encoding route:
  /// every later render re-encodes too (`render.pinned`; absent when false).
  public var pinned: Bool
  /// True for a render of a lossy format written losslessly (a WebP of a lossless original:
  /// `render.lossless`; absent when false).
  public var lossless: Bool

  public init(
    sha256: SHA256Digest, format: ImageFormat, quality: Int, subsampling: ChromaSubsampling?,
    metadata: MetadataPolicy = .kept, route: RenderRoute? = nil, pinned: Bool = false, lossless: Bool = false
  ) {
    (self.sha256, self.format, self.quality, self.subsampling) = (sha256, format, quality, subsampling)
    (self.metadata, self.route, self.pinned, self.lossless) = (metadata, route, pinned, lossless)
  }

  /// What the sidecar records of a render's bytes, encoded with `options` by `route` (nil for
  /// a PNG); PNG renders keep no subsampling.
  package init(
    of bytes: [UInt8], format: ImageFormat, options: EncodeOptions, route: RenderRoute?, pinned: Bool
  ) {
    self.init(
      sha256: SHA256Digest(of: bytes), format: format, quality: options.quality,
      subsampling: format.capabilities.subsampling ? options.subsampling : nil,
      metadata: options.metadataPolicy, route: format.capabilities.losslessRoute ? route : nil,
      pinned: format.capabilities.lossy && pinned,
      lossless: format.capabilities.losslessOption && options.lossless)
  }

  package var json: JSONValue {
    var o: [String: JSONValue] = [
      "sha256": sha256.json, "format": .string(format.rawValue), "quality": .number(Double(quality)),
    ]
    if let subsampling { o["subsampling"] = .string(subsampling.rawValue) }
    if metadata != .kept { o["metadata"] = .string(metadata.rawValue) }
    if let route { o["route"] = .string(route.rawValue) }
    if pinned { o["pinned"] = .bool(true) }
    if lossless { o["lossless"] = .bool(true) }
    return .object(o)
  }

  /// Reads and checks the sidecar's `render` object.
  ///
  /// - Throws: `.invalidRecipe` naming the field and what it holds.
  package init(json: JSONValue) throws(StoreError) {
    guard let o = json.object else { throw .invalidRecipe(.wrongType(field: "render")) }
    guard let sha = SHA256Digest(o["sha256"]) else {
      throw .invalidRecipe(.badValue(field: "render.sha256", value: o["sha256"]))
    }
    guard let formatName = o["format"]?.string, let format = ImageFormat(rawValue: formatName) else {
      throw .invalidRecipe(.badValue(field: "render.format", value: o["format"]))
    }
    guard let q = o["quality"]?.integer, EncodeOptions.qualityRange.contains(q) else {
      throw .invalidRecipe(.badValue(field: "render.quality", value: o["quality"]))
    }
    var subsampling: ChromaSubsampling? = nil
    if let s = o["subsampling"] {
      guard let name = s.string, let value = ChromaSubsampling(rawValue: name) else {
        throw .invalidRecipe(.badValue(field: "render.subsampling", value: s))
      }
      subsampling = value
    }
    var metadata = MetadataPolicy.kept
    if let m = o["metadata"] {
      guard let name = m.string, let value = MetadataPolicy(rawValue: name) else {
        throw .invalidRecipe(.badValue(field: "render.metadata", value: m))
      }
      metadata = value
    }
    var route: RenderRoute? = nil
    if let r = o["route"] {
      guard let name = r.string, let value = RenderRoute(rawValue: name) else {
        throw .invalidRecipe(.badValue(field: "render.route", value: r))
      }
      route = value
    }
    var pinned = false
    if let p = o["pinned"] {
      guard let value = p.bool else { throw .invalidRecipe(.badValue(field: "render.pinned", value: p)) }
      pinned = value
    }
    var lossless = false
    if let l = o["lossless"] {
      guard let value = l.bool else { throw .invalidRecipe(.badValue(field: "render.lossless", value: l)) }
      lossless = value
    }
    self.init(
      sha256: sha, format: format, quality: q, subsampling: subsampling, metadata: metadata,
      route: route, pinned: pinned, lossless: lossless)
  }
}

/// How a JPEG render is made from its original.
public enum RenderRoute: String, Sendable, Equatable {
  /// From the original's DCT coefficients: only the blocks the steps change are encoded again,
  /// with the original's tables (`LosslessJPEG`). JPEG originals whose every step is local.
  case lossless
  /// Decoded, rendered and encoded again at the recorded quality and subsampling.
  case reencode
}
