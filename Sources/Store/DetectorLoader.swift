import CenterFace
import Dispatch
import PhotoCore
import Recipe
import Synchronization

/// Loads the face detectors once per process, and each only when a command needs it: the
/// frontal Haar cascade, the profile cascade and the CenterFace model, united as a
/// `DetectorChoice` asks.
///
/// Every file is read with the store's rules (a regular file, bounded before it is read) and is
/// untrusted: a cascade or model that is not one is refused with the reason.
public final class DetectorLoader: Sendable {
  /// Where Debian's opencv-data package installs the default frontal face cascade.
  public static let defaultCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
  /// And the profile face cascade.
  public static let defaultProfileCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_profileface.xml"
  /// The CenterFace model's file name in the places it is looked for.
  public static let modelFileName = "centerface.onnx"

  /// The frontal cascade file.
  public let cascadePath: String
  /// True when `cascadePath` is the default (nothing was named).
  public let isDefault: Bool
  /// The profile cascade file (always opencv-data's unless a test names another).
  public let profileCascadePath: String
  /// The CenterFace model named (`--model`, `PHOTOEDIT_CENTERFACE`), or nil to look in `modelSearch`.
  public let modelPath: String?
  /// Where the model is looked for when none is named, in order.
  public let modelSearch: [String]
  /// The largest cascade file read, in bytes.
  public let maxBytes: Int

  private let loaded = Mutex<[DetectorKind: Result<any FaceDetector, DetectorError>]>([:])

  /// - Parameters:
  ///   - cascadePath: the frontal cascade to use, or nil for the default.
  ///   - modelPath: the CenterFace model to use, or nil to look in `modelSearch`.
  ///   - modelSearch: where to look for the model (default `defaultModelSearch()`).
  public init(
    cascadePath: String? = nil, profileCascadePath: String? = nil, modelPath: String? = nil,
    modelSearch: [String]? = nil, maxBytes: Int = FileLimits.defaultDataFileBytes
  ) {
    self.cascadePath = cascadePath ?? Self.defaultCascadePath
    isDefault = cascadePath == nil
    self.profileCascadePath = profileCascadePath ?? Self.defaultProfileCascadePath
    self.modelPath = modelPath
    self.modelSearch = modelSearch ?? Self.defaultModelSearch()
    self.maxBytes = maxBytes
  }

  /// Where the model is looked for when none is named: the user's cache
  /// (`${XDG_CACHE_HOME:-~/.cache}/photoedit/centerface.onnx`, where `make model` puts it), then
  /// `PREFIX/share/photoedit/centerface.onnx` beside the installed binary (`PREFIX/bin`).
  public static func defaultModelSearch() -> [String] {
    var out: [String] = []
    if let cache = FileSystem.environment("XDG_CACHE_HOME"), cache.hasPrefix("/") {
      out.append(cache + "/photoedit/" + modelFileName)
    } else if let home = FileSystem.environment("HOME"), home.hasPrefix("/") {
      out.append(home + "/.cache/photoedit/" + modelFileName)
    }
    if let exe = FileSystem.executablePath() {
      let bin = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      let prefix = bin.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
        separator: "/")
      out.append(prefix + "/share/photoedit/" + modelFileName)
    }
    return out
  }

  /// The detector `choice` names, its parts loaded on first use; the same error on every call
  /// when one cannot be loaded.
  public func detector(_ choice: DetectorChoice = .centerface) throws(DetectorError) -> any FaceDetector {
    var parts: [any FaceDetector] = []
    for kind in choice.kinds { parts.append(try self.kind(kind)) }
    return parts.count == 1 ? parts[0] : UnitedDetector(parts)
  }

  /// The detectors `requests` need when they become steps: the one each names, and CenterFace
  /// for faceblur's check of its hiding.
  public static func needed(by requests: [StepRequest]) -> Set<DetectorChoice> {
    Set(
      requests.flatMap { r in [r.requirements.detector, r.requirements.checksHiding ? .centerface : nil] }
        .compactMap { $0 })
  }

  /// Starts loading the detector `choice` names on another core, so that it is ready (or its
  /// error known) when `detector(_:)` asks for it: the caller decodes the photo meanwhile. A
  /// `detector(_:)` call during the load waits for it; nothing is loaded twice.
  public func prefetch(_ choice: DetectorChoice) {
    DispatchQueue.global().async { _ = try? self.detector(choice) }
  }

  /// The frontal cascade's detector (what `detect` and faceblur use by default).
  public func frontal() throws(DetectorError) -> HaarFaceDetector {
    try kind(.haar) as! HaarFaceDetector
  }

  private func kind(_ kind: DetectorKind) throws(DetectorError) -> any FaceDetector {
    let result = loaded.withLock { cache in
      if let known = cache[kind] { return known }
      guard let load = Self.loaders[kind.name] else {
        preconditionFailure("no loader for the detector kind \(kind.name)")  // a test checks every kind has one
      }
      let result = load(self)
      cache[kind] = result
      return result
    }
    return try result.get()
  }

  /// How each detector kind of the registry (`Detectors.all`) is loaded, by its name.
  static let loaders: [String: @Sendable (DetectorLoader) -> Result<any FaceDetector, DetectorError>] = [
    DetectorKind.haar.name: { loader in
      loader.loadCascade(loader.cascadePath, isDefault: loader.isDefault, name: DetectorKind.haar.name).map {
        $0
      }
    },
    DetectorKind.profile.name: { loader in
      loader.loadCascade(
        loader.profileCascadePath,
        isDefault: loader.profileCascadePath == DetectorLoader.defaultProfileCascadePath,
        name: DetectorKind.profile.name
      ).map { MirroredDetector($0) }
    },
    DetectorKind.centerface.name: { loader in loader.loadModel() },
  ]

  fileprivate func loadCascade(_ path: String, isDefault: Bool, name: String) -> Result<
    HaarFaceDetector, DetectorError
  > {
    let data: [UInt8]
    do {
      data = try FileSystem.read(path, limit: maxBytes)
    } catch {
      if error.isNotFound { return .failure(.cascadeMissing(path: path, isDefault: isDefault)) }
      return .failure(.cascadeUnreadable(path: path, error.system, isDefault: isDefault))
    }
    do {
      return .success(
        HaarFaceDetector(cascade: try HaarCascade(xml: data), model: SHA256.hex(data), name: name))
    } catch {
      return .failure(.cascadeInvalid(path: path, error, isDefault: isDefault))
    }
  }

  /// The model is at most 64 MiB (CenterFace's is 7 MB); its reader bounds everything inside.
  static let modelBytes = 64 << 20

  private func loadModel() -> Result<any FaceDetector, DetectorError> {
    let candidates = modelPath.map { [$0] } ?? modelSearch
    for path in candidates {
      let data: [UInt8]
      do {
        data = try FileSystem.read(path, limit: Self.modelBytes)
      } catch {
        if error.isNotFound { continue }
        return .failure(.modelUnreadable(path: path, error.system))
      }
      do {
        let model = try CenterFaceModel(onnx: data)
        return .success(CenterFaceDetector(model: model, checksum: SHA256.hex(data), path: path))
      } catch {
        return .failure(.modelInvalid(path: path, error.description))
      }
    }
    return .failure(.modelMissing(searched: candidates, named: modelPath != nil))
  }
}

/// A detector that reports how long each search took.
struct TimedDetector: FaceDetector {
  let base: any FaceDetector
  /// The stage its searches are timed as (`detect`, or `check` for faceblur's check).
  var stage = "detect"
  let record: @Sendable (_ stage: String, _ seconds: Double) -> Void

  var identity: DetectorIdentity { base.identity }

  func cropContext(faceSide side: Double, imageSize: ImageSize, options: DetectionOptions) -> (
    margin: Int, grid: Int
  ) {
    base.cropContext(faceSide: side, imageSize: imageSize, options: options)
  }

  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    try timed { () throws(DetectionError) in try base.faces(in: image, options: options) }
  }

  func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
    throws(DetectionError) -> [Face]
  {
    try timed { () throws(DetectionError) in
      try base.faces(in: image, options: options, near: focus, margin: margin)
    }
  }

  private func timed(_ search: () throws(DetectionError) -> [Face]) throws(DetectionError) -> [Face] {
    let start = ContinuousClock.now
    let faces = try search()
    record(stage, StoreSettings.seconds(start.duration(to: .now)))
    return faces
  }
}
