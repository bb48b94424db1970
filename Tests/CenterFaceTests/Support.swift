import Codecs
import Foundation
import PhotoCore

@testable import CenterFace

/// The repository's Fixtures folder, found from this file.
let fixtures = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

struct TestSetupError: Error, CustomStringConvertible {
  let description: String
}

/// Where the tests find the model: `$PHOTOEDIT_CENTERFACE`, else the cache that `make model` fills.
let modelPath: String = {
  let env = ProcessInfo.processInfo.environment
  if let path = env["PHOTOEDIT_CENTERFACE"], !path.isEmpty { return path }
  let cache = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
  return cache + "/photoedit/centerface.onnx"
}()

/// The model file's bytes; a missing model fails the test with what to do.
let modelBytes: Result<[UInt8], any Error> = Result {
  guard let data = FileManager.default.contents(atPath: modelPath) else {
    throw TestSetupError(
      description:
        "\(modelPath) is missing: run `make model` (or set PHOTOEDIT_CENTERFACE to centerface.onnx)")
  }
  return [UInt8](data)
}

/// The model for each kernel build this processor runs, parsed once.
let models: Result<[CenterFaceKernel: CenterFaceModel], any Error> = Result {
  let bytes = try modelBytes.get()
  var all: [CenterFaceKernel: CenterFaceModel] = [:]
  for k in CenterFaceKernel.allCases where k.isAvailable {
    all[k] = try CenterFaceModel(onnx: bytes, kernel: k)
  }
  return all
}

/// The model for the fastest kernel build.
func model(_ kernel: CenterFaceKernel = .best) throws -> CenterFaceModel {
  guard let m = try models.get()[kernel] else { throw TestSetupError(description: "no \(kernel) model") }
  return m
}

/// The bytes of a fixture, e.g. `fixture("faces/hopper.jpg")`.
func fixture(_ path: String) throws -> [UInt8] {
  guard let data = FileManager.default.contents(atPath: fixtures.appendingPathComponent(path).path)
  else { throw TestSetupError(description: "fixture \(path) is missing") }
  return [UInt8](data)
}

/// A fixture photo decoded upright (EXIF orientation applied).
func decodedFixture(_ path: String) throws -> Image {
  try ImageCodec.decode(fixture(path)).image
}

/// The sum of the R, G and B bytes, to check that our decoder gives the reference's pixels.
func pixelSum(_ image: Image) -> Int {
  var sum = 0
  for i in stride(from: 0, to: image.bytes.count, by: 4) {
    sum += Int(image.bytes[i]) + Int(image.bytes[i + 1]) + Int(image.bytes[i + 2])
  }
  return sum
}

/// Intersection over union of two boxes given as (x, y, width, height).
func iou(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
  let w = min(a.0 + a.2, b.0 + b.2) - max(a.0, b.0)
  let h = min(a.1 + a.3, b.1 + b.3) - max(a.1, b.1)
  guard w > 0, h > 0 else { return 0 }
  return w * h / (a.2 * a.3 + b.2 * b.3 - w * h)
}

func box(_ d: CenterFaceDetection) -> (Double, Double, Double, Double) { (d.x, d.y, d.width, d.height) }
