import Codecs
import Foundation
import PhotoCore
@_exported import TestSupport
import Testing

@testable import Recipe
@testable import Store

/// A tiny synthetic image format and a handful of filters, so the store's file protocol is
/// tested without depending on the real codecs and filters (tested in their own suites).
///
/// Format: "FAKE", format letter (j/p), quality, subsampling letter, width and height as
/// little-endian UInt16, then the RGBA bytes. Deterministic by construction.
struct FakeEngine: RenderEngine {
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

  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(CodecError) -> DecodedImage {
    guard let image = Self.pixels(of: bytes) else { throw .notAnImage }
    if image.width * image.height > maxPixels {
      throw .tooLarge(width: image.width, height: image.height, limit: maxPixels)
    }
    var metadata = ImageMetadata()
    metadata.comments = [Array("fake".utf8)]
    let png = bytes[4] == UInt8(ascii: "p")
    return DecodedImage(
      image: image,
      details: ImageDetails(
        format: png ? .png : .jpeg, subsampling: png ? nil : .s422, metadata: metadata,
        fullWidth: image.width, fullHeight: image.height))
  }

  func format(of bytes: [UInt8]) -> ImageFormat? {
    guard Self.pixels(of: bytes) != nil else { return nil }
    return bytes[4] == UInt8(ascii: "p") ? .png : .jpeg
  }

  func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    Self.header(
      format: format, quality: options.quality, subsampling: options.subsampling.rawValue.first!,
      width: image.width, height: image.height) + image.bytes
  }
}

/// Fake filters, registered only in the store tests' registry.
struct InvertFake: Filter {
  static let name = "invert", summary = "inverts", version = 1
  struct Parameters: ParameterSet { static let fields: [ParameterField<Self>] = [] }
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
      for c in 0..<3 { image.bytes[i + c] = 255 - image.bytes[i + c] }
    }
  }
}

struct AddFake: Filter {
  static let name = "add", summary = "adds", version = 1
  struct Parameters: ParameterSet {
    var amount = 1
    static let fields: [ParameterField<Self>] = [.integer("amount", \.amount, 0...255, help: "added")]
  }
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {
    add(p.amount, &image)
  }
  static func add(_ amount: Int, _ image: inout Image) {
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
      for c in 0..<3 { image.bytes[i + c] &+= UInt8(amount) }
    }
  }
}

/// Records the width of the image it met as derived state; changes no pixel.
struct MarkFake: Filter {
  static let name = "mark", summary = "marks", version = 1
  struct Parameters: ParameterSet {
    var scale = 1.0
    static let fields: [ParameterField<Self>] = [.number("scale", \.scale, 0...10, help: "unused")]
  }
  struct Derived: ParameterSet {
    var width: Int?
    static let fields: [ParameterField<Self>] = [.integer("width", \.width, 1...100_000, help: "the width")]
  }
  static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError) -> Derived {
    var d = Derived()
    d.width = context.size.width
    return d
  }
  static func render(_ p: Parameters, _ d: Derived, on image: inout Image) throws(FilterError) {}
}

/// Named like real filters, changing nothing, so sidecars written by hand in tests read.
struct SepiaFake: Filter {
  static let name = "sepia", summary = "none", version = 1
  struct Parameters: ParameterSet {
    var intensity = 1.0
    static let fields: [ParameterField<Self>] = [.number("intensity", \.intensity, 0...1, help: "unused")]
  }
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {}
}

struct VignetteFake: Filter {
  static let name = "vignette", summary = "none", version = 1
  struct Parameters: ParameterSet { static let fields: [ParameterField<Self>] = [] }
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {}
}

/// Version 1 is `amount`; version 0, kept typed, called it `value`.
struct OldFake: Filter {
  static let name = "old", summary = "migrates", version = 1
  struct Parameters: ParameterSet {
    var amount = 1
    static let fields: [ParameterField<Self>] = [.integer("amount", \.amount, 0...255, help: "added")]
  }
  struct V0: ParameterSet {
    var value = 1
    static let fields: [ParameterField<Self>] = [.integer("value", \.value, 0...255, help: "added")]
  }
  static let legacyVersions = [
    LegacyParameters<OldFake>(version: 0, V0.self) { old in
      var p = Parameters()
      p.amount = old.value
      return p
    }
  ]
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {
    AddFake.add(p.amount, &image)
  }
}

/// Always fails to render.
struct FailFake: Filter {
  static let name = "fail", summary = "fails", version = 1
  struct Parameters: ParameterSet { static let fields: [ParameterField<Self>] = [] }
  static let failure = FilterError.badDerivedState(filter: "fail", key: "always")
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {
    throw failure
  }
}

let fakeRegistry: [any Filter.Type] = [
  InvertFake.self, AddFake.self, MarkFake.self, SepiaFake.self, VignetteFake.self, OldFake.self,
  FailFake.self,
]

/// A request for a fake filter, with typed values.
func step(_ filter: String, _ values: [String: ParameterValue] = [:]) -> StepRequest {
  try! Filters.request(filter, values: values, in: fakeRegistry)
}

/// A stored step of a fake filter.
func stored(_ filter: String, _ parameters: [String: JSONValue] = [:], derived: [String: JSONValue] = [:])
  throws -> Step
{
  try Filters.step(filter: filter, version: 1, parameters: parameters, derived: derived, in: fakeRegistry)
}

func fakeSettings(force: Bool = false, dryRun: Bool = false) -> StoreSettings {
  var s = StoreSettings(detectors: DetectorLoader(cascadePath: "/nonexistent/cascade.xml"))
  s.engine = FakeEngine()
  s.registry = fakeRegistry
  s.force = force
  s.dryRun = dryRun
  s.lockTimeoutSeconds = 60
  return s
}

func fakeStore(force: Bool = false, dryRun: Bool = false) -> EditStore {
  EditStore(settings: fakeSettings(force: force, dryRun: dryRun))
}

/// Reads sidecar bytes against the fake filters.
func readSidecar(_ bytes: [UInt8]) throws -> AdjustmentData.ReadResult {
  try AdjustmentData.read(bytes, registry: fakeRegistry)
}

extension TemporaryFolder {
  /// Name → SHA-256 of every file, optionally without lock files.
  func state(ignoringLocks: Bool = true) -> [String: String] {
    var state: [String: String] = [:]
    for name in names() where !(ignoringLocks && name.hasSuffix(".photoedit.lock")) {
      state[name] = SHA256.hex(read(name) ?? [])
    }
    return state
  }
}
