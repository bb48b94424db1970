import Codecs
import Foundation
import PhotoCore
import Testing

@testable import Recipe

typealias Operation = PhotoCore.Operation

/// A tiny synthetic image format and a handful of filters, so the store's file protocol is
/// tested without depending on the real codecs and filters (tested in their own suites).
///
/// Format: "FAKE", format letter (j/p), quality, subsampling letter, width and height as
/// little-endian UInt16, then the RGBA bytes. Deterministic by construction.
struct FakeEngine: RenderEngine {
  static let filters: Set<String> = ["invert", "add", "mark", "sepia", "vignette", "old", "fail"]

  static func imageFile(width: Int, height: Int, seed: UInt8) -> [UInt8] {
    var pixels = [UInt8]()
    for i in 0..<(width * height) {
      pixels += [UInt8(truncatingIfNeeded: i &+ Int(seed)), seed, UInt8(truncatingIfNeeded: i / 7), 255]
    }
    return header(format: .jpeg, quality: 0, subsampling: "0", width: width, height: height) + pixels
  }

  static func header(format: ImageFormat, quality: Int, subsampling: Character, width: Int, height: Int)
    -> [UInt8]
  {
    Array("FAKE".utf8) + [format == .jpeg ? UInt8(ascii: "j") : UInt8(ascii: "p"), UInt8(quality)]
      + [
        subsampling.asciiValue!, UInt8(width & 255), UInt8(width >> 8), UInt8(height & 255),
        UInt8(height >> 8),
      ]
  }

  static func pixels(of file: [UInt8]) -> Image? {
    guard file.count >= 11, Array(file[0..<4]) == Array("FAKE".utf8) else { return nil }
    let w = Int(file[7]) | Int(file[8]) << 8
    let h = Int(file[9]) | Int(file[10]) << 8
    guard file.count == 11 + w * h * 4, w > 0, h > 0 else { return nil }
    return Image(width: w, height: h, bytes: Array(file[11...]))
  }

  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(StoreError) -> DecodedPhoto {
    guard let image = Self.pixels(of: bytes) else { throw .codec("not a fake image") }
    if image.width * image.height > maxPixels { throw .codec("too large") }
    var metadata = ImageMetadata()
    metadata.comments = [Array("fake".utf8)]
    return DecodedPhoto(
      image: image, format: bytes[4] == UInt8(ascii: "p") ? .png : .jpeg, orientation: 1,
      subsampling: bytes[4] == UInt8(ascii: "p") ? nil : .s422, metadata: metadata,
      fullWidth: image.width, fullHeight: image.height, warnings: [])
  }

  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8] {
    Self.header(
      format: format, quality: quality, subsampling: subsampling.rawValue.first!, width: image.width,
      height: image.height) + image.bytes
  }

  func validate(_ operation: Operation) throws(StoreError) -> Operation {
    guard Self.filters.contains(operation.filter) else { throw .unknownFilter(name: operation.filter) }
    if operation.version > 1 {
      throw .filter("\(operation.filter) version \(operation.version) is newer than 1")
    }
    var op = operation
    if op.filter == "old" && op.version == 0 {
      op.version = 1
      op.parameters["amount"] = op.parameters["value"]
      op.parameters["value"] = nil
    }
    return op
  }

  func render(_ operation: Operation, on image: inout Image, context: FilterContext) throws(StoreError) {
    switch operation.filter {
    case "invert":
      for i in stride(from: 0, to: image.bytes.count, by: 4) {
        for c in 0..<3 { image.bytes[i + c] = 255 - image.bytes[i + c] }
      }
    case "add", "old":
      let amount = UInt8(truncatingIfNeeded: Int(operation.parameters["amount"]?.number ?? 1))
      for i in stride(from: 0, to: image.bytes.count, by: 4) {
        for c in 0..<3 { image.bytes[i + c] &+= amount }
      }
    case "fail": throw .filter("fail always fails")
    default: break
    }
  }

  func resolve(_ pending: PendingOperation, for image: Image, context: FilterContext) throws(StoreError)
    -> Operation
  {
    throw .filter("the fake engine resolves NewStep closures only")
  }

  func pending(from operation: Operation) throws(StoreError) -> PendingOperation {
    throw .filter("the fake engine has no PendingOperation")
  }

  func flattened(_ image: Image, operations: [Operation]) -> Image {
    image.flattened(over: RGBA(255, 255, 255))
  }

  func resampled(_ image: Image, longestSide: Int) -> Image {
    image.resampled(longestSide: longestSide)
  }
}

/// A step that stores `filter` with `parameters`; "mark" also records derived state.
func step(_ filter: String, _ parameters: [String: JSONValue] = [:]) -> NewStep {
  NewStep(filter: filter) { image, _ throws(StoreError) in
    var op = Operation(filter: filter, version: 1, parameters: parameters)
    if filter == "mark" { op.derived = ["width": .number(Double(image.width))] }
    return op
  }
}

func fakeSettings(force: Bool = false, dryRun: Bool = false) -> StoreSettings {
  var s = StoreSettings(context: FilterContext(cascade: { throw CascadeError("no cascade in tests") }))
  s.engine = FakeEngine()
  s.force = force
  s.dryRun = dryRun
  s.lockTimeoutSeconds = 60
  return s
}

func fakeStore(force: Bool = false, dryRun: Bool = false) -> Store {
  Store(settings: fakeSettings(force: force, dryRun: dryRun))
}

/// A fresh folder under the system's temporary folder, removed when the value goes away.
final class TempFolder: @unchecked Sendable {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "/recipe-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  func write(_ name: String, _ bytes: [UInt8]) {
    FileManager.default.createFile(atPath: file(name), contents: Data(bytes))
  }

  func read(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: file(name)).map(Array.init)
  }

  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

  /// Every entry's name, sorted.
  func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

  /// Name → SHA-256 of every file, optionally without lock files.
  func state(ignoringLocks: Bool = true) -> [String: String] {
    var state: [String: String] = [:]
    for name in names() where !(ignoringLocks && name.hasSuffix(".photoedit.lock")) {
      state[name] = SHA256.hex(read(name) ?? [])
    }
    return state
  }

  /// Names of temporary, lock or journal files.
  func leftovers() -> [String] {
    names().filter { $0.contains(".photoedit-tmp-") || $0.hasSuffix(".lock") || $0.hasSuffix(".journal") }
  }
}

/// The repository's Fixtures folder, found from this file's path.
func fixture(_ relative: String) -> String {
  let here = URL(fileURLWithPath: #filePath)
  return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent(relative).path
}
