import PhotoCore

/// Why a file could not be decoded or encoded.
///
/// Each case names the fact; `description` is one line without the file name (the CLI prefixes
/// `photoedit: FILE: `). Every decoding failure means the input is bad data.
public enum CodecError: Error, Equatable, CustomStringConvertible, Sendable {
  /// Zero bytes.
  case empty
  /// The bytes start with the signature of no format photoedit reads or knows.
  case notAnImage
  /// The bytes are a photo in a format photoedit does not read (`UnreadablePhotoFormat`): its
  /// name (`GIF`, `JPEG XL`, `CR2`).
  case unreadableFormat(String)
  /// The file ends before the image data is complete.
  case truncated(ImageFormat)
  /// The structure or the compressed data is damaged; the string says where or how.
  case corruptData(ImageFormat, String)
  /// A valid file that this program cannot decode (12-bit JPEG, lossless JPEG, ...).
  case unsupported(String)
  /// The header claims more pixels than the limit allows; nothing was allocated.
  case tooLarge(width: Int, height: Int, limit: Int)
  /// The encoder failed (libjpeg-turbo or libpng said why).
  case encodingFailed(ImageFormat, String)
  /// A JPEG with more scans than the limit, counted by a marker walk before decoding.
  case tooManyScans(count: Int, limit: Int)
  /// An image so narrow for its height that its rows alone cost more than the pixel limit
  /// (each row costs the decoder as much as `ImageCodec.rowCostInPixels` pixels).
  case tooManyRows(width: Int, height: Int, limit: Int)
  /// Decoding would need more memory than `DecodeOptions.maxMemoryBytes`; estimated from the
  /// header, nothing was allocated.
  case memoryBudgetExceeded(estimate: Int, budget: Int)
  /// Decoding would fit the process's memory budget (`MemoryBudget.process`) on its own, but
  /// not beside what other photos (or this photo's earlier stages) hold while they wait too.
  case memoryBudgetShared(MemoryBudget.Exceeded)

  public var description: String {
    switch self {
    case .empty: "empty file"
    case .notAnImage: "not a \(FormatRegistry.list(FormatRegistry.formats.map(\.name), and: "or")) image"
    case .unreadableFormat(let name):
      "\(name) is not supported (photoedit reads \(ImageFormat.readableNames))"
    case .truncated(let format): "truncated \(format.displayName) (the file ends early)"
    case .corruptData(let format, let detail): "corrupt \(format.displayName): \(detail)"
    case .unsupported(let detail): "unsupported image: \(detail)"
    case .tooLarge(let width, let height, let limit):
      "image too large: \(width)x\(height) is \(width * height) pixels, more than the limit of \(limit)"
    case .encodingFailed(let format, let detail): "cannot encode \(format.displayName): \(detail)"
    case .tooManyScans(let count, let limit):
      "JPEG with \(count) scans, more than the limit of \(limit) (cameras and encoders write about 10)"
    case .tooManyRows(let width, let height, let limit):
      "image too narrow for its height: \(width)x\(height) has more than \(limit) rows, the most"
        + " the pixel limit allows at that width"
    case .memoryBudgetExceeded(let estimate, let budget):
      "decoding needs about \(mebibytes(estimate)) MiB (\(estimate) bytes), more than the memory"
        + " budget of \(mebibytes(budget)) MiB (\(budget) bytes)"
    case .memoryBudgetShared(let exceeded): exceeded.description
    }
  }
}

/// Bytes in whole MiB, rounded up, for messages.
private func mebibytes(_ bytes: Int) -> Int { bytes / (1 << 20) + (bytes % (1 << 20) == 0 ? 0 : 1) }

extension ImageFormat {
  /// "JPEG, PNG, HEIC, AVIF and WebP": the formats photoedit reads, for messages.
  public static var readableNames: String { FormatRegistry.readableNames }
}
