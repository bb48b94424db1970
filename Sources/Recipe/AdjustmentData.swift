import Foundation
import PhotoCore

/// A recipe step (PhotoCore's, not Foundation's `Operation`).
typealias Operation = PhotoCore.Operation

/// The adjustment data: a photo's recipe and its provenance, stored as the sidecar
/// `PHOTO.photoedit.json`, modelled on Photos' PHAdjustmentData.
///
/// A recipe file (for `apply --recipe`) has the same shape without `original` and `render`.
/// Written pretty-printed with sorted keys, so the same data always gives the same bytes.
struct AdjustmentData: Codable, Equatable, Sendable {
  /// The one identifier photoedit writes and reads.
  static let identifier = "org.photoedit.adjustments"
  /// The format version this photoedit writes; raised on every incompatible change.
  static let currentVersion = 1

  var formatIdentifier = AdjustmentData.identifier
  var formatVersion = AdjustmentData.currentVersion
  var original: Original?
  var render: Render?
  /// The operations in the order they apply.
  var operations: [Operation]
  /// The operations `undo` took off, the most recently undone last; `redo` takes from the end.
  var undone: [Operation]

  /// The untouched original this recipe applies to.
  struct Original: Codable, Equatable, Sendable {
    /// Relative to the sidecar's folder (or absolute, when the original is on another root).
    var path: String
    /// Lowercase hexadecimal SHA-256 of the original file's bytes.
    var sha256: String
    /// The original file's size in bytes.
    var bytes: Int
    /// Upright size in pixels (after the EXIF orientation is applied).
    var width: Int
    var height: Int
    /// The EXIF orientation the original file had, 1...8.
    var orientation: Int
  }

  /// The render photoedit last wrote, so a change by another program is detected.
  struct Render: Codable, Equatable, Sendable {
    /// Lowercase hexadecimal SHA-256 of the rendered file's bytes.
    var sha256: String
    /// "jpeg" or "png".
    var format: String
    /// JPEG quality 1...100 (kept for PNG too, so a later JPEG export uses it).
    var quality: Int
    /// JPEG chroma subsampling, "444", "422" or "420"; absent for PNG.
    var subsampling: String?
  }

  init(original: Original?, render: Render?, operations: [Operation], undone: [Operation] = []) {
    (self.original, self.render, self.operations, self.undone) = (original, render, operations, undone)
  }

  /// The sidecar's bytes: pretty-printed JSON with sorted keys and a final newline.
  func encoded() -> [UInt8] { JSONCoding.encode(self) }
}
