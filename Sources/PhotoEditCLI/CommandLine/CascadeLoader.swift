import Foundation
import PhotoCore
import Recipe
import Synchronization

/// Finds and loads the face cascade once per process, only when a command needs it.
///
/// The file is `--cascade FILE`, else `$PHOTOEDIT_CASCADE`, else OpenCV's
/// haarcascade_frontalface_default.xml from Debian's opencv-data package.
final class CascadeLoader: Sendable {
  static let defaultPath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

  let path: String
  private let loaded = Mutex<Result<HaarCascade, CascadeLoadError>?>(nil)

  init(option: String?, environment: [String: String] = CascadeLoader.processEnvironment) {
    path = option ?? environment["PHOTOEDIT_CASCADE"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath
  }

  /// PHOTOEDIT_CASCADE from the process's environment, with its bytes (it may name a file that
  /// is not UTF-8).
  static var processEnvironment: [String: String] {
    FileSystem.environment("PHOTOEDIT_CASCADE").map { ["PHOTOEDIT_CASCADE": $0] } ?? [:]
  }

  /// The cascade, loaded on first use; the same error on every call when it cannot be loaded.
  func cascade() throws(CascadeLoadError) -> HaarCascade {
    let result = loaded.withLock { slot in
      if let slot { return slot }
      let result = Self.load(path)
      slot = result
      return result
    }
    return try result.get()
  }

  private static func load(_ path: String) -> Result<HaarCascade, CascadeLoadError> {
    let hint =
      path == defaultPath
      ? "install Debian's opencv-data (apt-get install opencv-data), or name a cascade with --cascade FILE or PHOTOEDIT_CASCADE"
      : "name an OpenCV Haar cascade XML with --cascade FILE or PHOTOEDIT_CASCADE"
    let data: [UInt8]
    do {
      data = try FileSystem.read(path)
    } catch {
      let problem = error.isNotFound ? "face cascade \(path) not found" : "cannot read face cascade \(path)"
      return .failure(CascadeLoadError(status: ExitStatus.noInput, description: "\(problem): \(hint)"))
    }
    do {
      return .success(try HaarCascade(xml: data))
    } catch {
      return .failure(
        CascadeLoadError(
          status: ExitStatus.dataError, description: "face cascade \(path) is not usable: \(error); \(hint)"))
    }
  }
}

/// The cascade could not be loaded; the message says how to install or name one.
struct CascadeLoadError: Error, CustomStringConvertible {
  var status: Int32
  var description: String
}
