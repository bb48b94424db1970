import Codecs
import PhotoCore
import Recipe

/// What a published file still reveals (`photoedit audit`): one file, read and never written.
public struct AuditOutcome: Sendable {
  /// The photo's upright size in pixels; nil for a store file (not read).
  public var width: Int?, height: Int?
  /// The faces CenterFace finds in the pixels at the audit's threshold, in its reading order
  /// (boxes in pixels of the upright photo).
  public var faces: [Face] = []
  /// Embedded images and identifying metadata (`ImageCodec.metadataFindings`).
  public var metadata: [MetadataFinding] = []
  /// Set when the file is one of the store's own (an original kept by an in-place edit, a
  /// sidecar, a journal, a lock, a temporary file): it would be published with the folder.
  public var storeFile: StoreFile?
  public var warnings: [String] = []

  /// True when the file has nothing to report.
  public var isClean: Bool { faces.isEmpty && metadata.isEmpty && storeFile == nil }
}

/// A file of the store found among the files to publish, and the photo it belongs to.
public struct StoreFile: Sendable, Equatable {
  public enum Role: String, Sendable {
    /// `PHOTO.original`: the photo as it was before an in-place edit (its faces unhidden).
    case original
    /// `PHOTO.photoedit.json`: the recipe, the original's path and checksum, the hidden faces' boxes.
    case sidecar
    case journal, lock, temporary
  }
  public var role: Role
  /// The photo's path (the file's own name without the store's suffix).
  public var photo: String
}

/// `photoedit audit`'s settings.
public struct AuditOptions: Sendable {
  /// The score from which a face CenterFace finds counts as visible (docs/audit.md: above the
  /// highest score in faceblur's default renders of the labelled sets, 0.343, and below the
  /// lowest best score of an unblurred photo of them, 0.591).
  public var threshold = AuditOptions.defaultThreshold
  public static let defaultThreshold = 0.4
  public init() {}
}

extension EditStore {
  /// Audits one file as it would be published: a store file by its name alone (it is not
  /// opened), a photo by its bytes (a regular file, within the photo size limit): the faces
  /// CenterFace finds in its pixels at `options.threshold` (at full size, as `detect`), and what
  /// its metadata reveals. A sidecar beside a photo is not read: the pixels alone decide, as for
  /// a copy published without it.
  ///
  /// - Throws: `.missing` (66), `.notRegularFile` or a codec error (65), `.detector` when the
  ///   model cannot be loaded.
  public func audit(_ path: String, options: AuditOptions) throws(StoreError) -> AuditOutcome {
    var outcome = AuditOutcome()
    if let role = Self.storeRole(of: path) {
      guard PhotoFolder.kind(of: path, followingLinks: false) != .missing else { throw .missing(path: path) }
      outcome.storeFile = StoreFile(role: role, photo: Self.photo(ofStoreFile: path, role: role))
      return outcome
    }
    var bytes = try Self.readBytes(path)
    settings.detectors.prefetch(.centerface)
    let decoded: DecodedImage
    do {
      decoded = try settings.timed("decode") { () throws(CodecError) in
        try engine.decode(bytes, maxPixels: settings.maxPixels, minimumLongestSide: nil)
      }
    } catch {
      throw .codec(error)
    }
    (outcome.width, outcome.height, outcome.warnings) = (
      decoded.image.width, decoded.image.height, decoded.warnings
    )
    outcome.metadata = ImageCodec.metadataFindings(in: bytes)
    bytes = []
    outcome.faces = try visibleFaces(in: decoded.image, threshold: options.threshold)
    return outcome
  }

  /// The faces CenterFace finds in `image` from `threshold` on: audit's look at a photo's
  /// pixels, also the review page's second look at each render's preview.
  ///
  /// - Throws: `.detector` when the model cannot be loaded, `.detection`.
  public func visibleFaces(in image: Image, threshold: Double) throws(StoreError) -> [Face] {
    var search = DetectionOptions()
    search.detector = .centerface
    search.threshold = threshold
    let detector = try detector(.centerface)
    do { return try detector.faces(in: image, options: search) } catch { throw .detection(error) }
  }

  /// The store file `path` names, by its name: a preserved original, a sidecar, a journal, a
  /// lock or a temporary file; nil for any other name.
  static func storeRole(of path: String) -> StoreFile.Role? {
    let name = PhotoPaths(path).name
    if name.hasSuffix(PhotoPaths.sidecarSuffix) { return .sidecar }
    if name.hasSuffix(PhotoPaths.originalSuffix) { return .original }
    if name.hasSuffix(PhotoPaths.journalSuffix) { return .journal }
    if name.hasSuffix(PhotoPaths.lockSuffix) { return .lock }
    if name.contains(PhotoPaths.tempMarker) { return .temporary }
    return nil
  }

  /// The photo a store file belongs to: its path without the store's suffix.
  static func photo(ofStoreFile path: String, role: StoreFile.Role) -> String {
    switch role {
    case .original: String(path.dropLast(PhotoPaths.originalSuffix.count))
    case .sidecar: String(path.dropLast(PhotoPaths.sidecarSuffix.count))
    case .journal: String(path.dropLast(PhotoPaths.journalSuffix.count))
    case .lock: String(path.dropLast(PhotoPaths.lockSuffix.count))
    case .temporary:
      path.ranges(of: PhotoPaths.tempMarker).last.map { String(path[..<$0.lowerBound]) } ?? path
    }
  }
}
