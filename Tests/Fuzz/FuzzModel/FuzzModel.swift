// libFuzzer target: the CenterFace model reader, CenterFaceModel(onnx:kernel:) (ProtobufReader,
// ONNXModel, then NetworkPlan: the checks, the fusions and the packing of the weights), as the
// detector reads a model file. A model that reads and is small (at most `maxMACs` multiply-adds
// per input pixel) is then run as the detector runs it, on a 32×32 photo. The kernel build
// is picked by the input's size, among those this processor runs. Built by `make fuzz` only.
import Foundation
import PhotoCore

@testable import CenterFace

let kernels = CenterFaceKernel.allCases.filter(\.isAvailable)
let maxMACs = 20_000.0
/// FUZZ_MODEL_REPORT=1 prints why each input is refused, or what it plans (to check the seeds and
/// triage findings: `FUZZ_MODEL_REPORT=1 .build/fuzz/release/FuzzModel FILE...`).
let report = getenv("FUZZ_MODEL_REPORT") != nil
let photo: Image = {
  var bytes = [UInt8](repeating: 255, count: 32 * 32 * 4)
  for i in bytes.indices where i % 4 != 3 { bytes[i] = UInt8(truncatingIfNeeded: i &* 37 >> 2) }
  return Image(width: 32, height: 32, bytes: bytes)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let model: CenterFaceModel
  do {
    model = try CenterFaceModel(onnx: bytes, kernel: kernels[size % kernels.count])
  } catch {
    if report { print("refused: \(error)") }
    return 0
  }
  if report { print("read: \(model.plan.steps.count) steps, \(model.macsPerInputPixel) MACs per pixel") }
  if model.macsPerInputPixel <= maxMACs {
    // A low threshold, so that the candidates and their suppression are reached too.
    _ = try? model.faces(in: photo, options: CenterFaceOptions(threshold: 0.05))
  }
  return 0
}
