import PhotoCore
import Synchronization

/// Loads the face detector once per process, and only when a command needs it.
///
/// The Haar cascade is the file given, else Debian's opencv-data frontal face cascade.
public final class DetectorLoader: Sendable {
  /// Where Debian's opencv-data package installs the default frontal face cascade.
  public static let defaultCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

  /// The cascade file.
  public let cascadePath: String
  /// True when `cascadePath` is the default (nothing was named).
  public let isDefault: Bool
  private let loaded = Mutex<Result<HaarFaceDetector, DetectorError>?>(nil)

  /// The largest cascade file read, in bytes.
  public let maxBytes: Int

  /// - Parameter cascadePath: the cascade to use, or nil for the default.
  public init(cascadePath: String? = nil, maxBytes: Int = FileLimits.defaultDataFileBytes) {
    self.cascadePath = cascadePath ?? Self.defaultCascadePath
    isDefault = cascadePath == nil
    self.maxBytes = maxBytes
  }

  /// The detector, loaded on first use; the same error on every call when it cannot be loaded.
  public func detector() throws(DetectorError) -> HaarFaceDetector {
    let result = loaded.withLock { slot in
      if let slot { return slot }
      let result = load()
      slot = result
      return result
    }
    return try result.get()
  }

  private func load() -> Result<HaarFaceDetector, DetectorError> {
    let data: [UInt8]
    do {
      data = try FileSystem.read(cascadePath, limit: maxBytes)
    } catch {
      if error.isNotFound { return .failure(.cascadeMissing(path: cascadePath, isDefault: isDefault)) }
      return .failure(.cascadeUnreadable(path: cascadePath, error.system, isDefault: isDefault))
    }
    do {
      return .success(HaarFaceDetector(cascade: try HaarCascade(xml: data), model: SHA256.hex(data)))
    } catch {
      return .failure(.cascadeInvalid(path: cascadePath, error, isDefault: isDefault))
    }
  }
}

/// A detector that reports how long each search took.
struct TimedDetector: FaceDetector {
  let base: any FaceDetector
  let record: @Sendable (_ stage: String, _ seconds: Double) -> Void

  var identity: DetectorIdentity { base.identity }

  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    let clock = ContinuousClock()
    let start = clock.now
    let faces = try base.faces(in: image, options: options)
    let elapsed = start.duration(to: clock.now)
    record("detect", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    return faces
  }
}
