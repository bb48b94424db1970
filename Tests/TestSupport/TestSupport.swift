import Foundation
import PhotoCore

// What every test target shares: the repository's fixtures, temporary folders and deterministic
// test images. Tests never read anything outside the repository.

/// The repository's Fixtures folder, found from this file.
public let fixtures = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

/// The path of a fixture, e.g. `fixturePath("jpeg/testorig.jpg")`.
public func fixturePath(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }

/// The bytes of a fixture, e.g. `fixture("jpeg/testorig.jpg")`.
public func fixture(_ relative: String) throws -> [UInt8] {
  guard let data = FileManager.default.contents(atPath: fixturePath(relative)) else {
    throw FixtureMissing(path: relative)
  }
  return [UInt8](data)
}

public struct FixtureMissing: Error, CustomStringConvertible {
  public let path: String
  public init(path: String) { self.path = path }
  public var description: String { "fixture \(path) is missing" }
}

/// A fresh folder under the system's temporary folder, removed when the value goes away (or by
/// `cleanUp`).
public final class TemporaryFolder: @unchecked Sendable {
  public let url: URL

  public init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("photoedit-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { cleanUp() }

  public func cleanUp() { try? FileManager.default.removeItem(at: url) }

  /// The path of `name` in the folder.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// Copies a fixture in under `name`; returns its path.
  @discardableResult
  public func copy(_ fixture: String, as name: String) throws -> String {
    let destination = path(name)
    try FileManager.default.copyItem(atPath: fixturePath(fixture), toPath: destination)
    return destination
  }

  public func write(_ name: String, _ bytes: [UInt8]) {
    _ = FileManager.default.createFile(atPath: path(name), contents: Data(bytes))
  }

  public func read(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path(name)).map(Array.init)
  }

  public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

  /// Every entry's name, sorted.
  public func names() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }

  /// Names of the store's temporary, lock or journal files.
  public func leftovers() -> [String] {
    names().filter { $0.contains(".photoedit-tmp-") || $0.hasSuffix(".lock") || $0.hasSuffix(".journal") }
  }
}

/// A deterministic pseudo-random generator (SplitMix64), so test images are the same every run.
public struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// An image of random bytes; alpha random too unless `opaque`.
public func noiseImage(width: Int, height: Int, seed: UInt64 = 1, opaque: Bool = true) -> Image {
  var rng = SplitMix(seed: seed)
  var bytes = [UInt8](repeating: 0, count: width * height * 4)
  for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
  if opaque { for i in stride(from: 3, to: bytes.count, by: 4) { bytes[i] = 255 } }
  return Image(width: width, height: height, bytes: bytes)
}

/// A face detector that finds no face: faceblur's check when a test is not about it (every hidden
/// face passes, if its pixels changed).
public struct FindsNothing: FaceDetector {
  public init() {}
  public var identity: DetectorIdentity { DetectorIdentity(name: "nothing", version: 1) }
  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] { [] }
}
