// centerface-detect: runs the CenterFace engine on photos, for benchmarks and for measuring recall
// until the detector is wired into photoedit itself.
//
//   centerface-detect [--model FILE] [--scale S] [--threshold T] [--nms IOU] [--kernel baseline|avx2]
//                     [--tile-pixels N] [--margin M] [--repeat N] [--json] FILE...
//
// Prints, per file, the faces (pixels of the upright photo) and the time of the detection alone
// (`timing: detect 0.412s`, the median of --repeat runs) on standard error.
import CenterFace
import Codecs
import Foundation
import PhotoCore

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("centerface-detect: \(message)\n".utf8))
  exit(64)
}

func number<T: LosslessStringConvertible>(_ text: String, _ name: String) -> T {
  guard let v = T(text) else { fail("bad \(name) \(text)") }
  return v
}

/// User and system CPU time of the whole process so far.
func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
  return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}

var arguments = Array(CommandLine.arguments.dropFirst())
var options = CenterFaceOptions()
var modelPath: String? = ProcessInfo.processInfo.environment["PHOTOEDIT_CENTERFACE"]
var kernel = CenterFaceKernel.best
var repeats = 1
var json = false
var files: [String] = []
while !arguments.isEmpty {
  let a = arguments.removeFirst()
  func value() -> String {
    guard !arguments.isEmpty else { fail("\(a) needs a value") }
    return arguments.removeFirst()
  }
  switch a {
  case "--model": modelPath = value()
  case "--scale": options.inputScale = number(value(), a)
  case "--threshold": options.threshold = number(value(), a)
  case "--nms": options.nmsIoU = number(value(), a)
  case "--tile-pixels": options.maxTilePixels = number(value(), a)
  case "--margin": options.tileMargin = number(value(), a)
  case "--repeat": repeats = max(1, number(value(), a) as Int)
  case "--kernel":
    guard let k = CenterFaceKernel(rawValue: value()), k.isAvailable else {
      fail("kernel not available here")
    }
    kernel = k
  case "--json": json = true
  default: files.append(a)
  }
}
guard options.inputScale > 0 && options.inputScale <= 1 else { fail("--scale must be in (0, 1]") }
guard options.threshold > 0 && options.threshold < 1 else { fail("--threshold must be in (0, 1)") }
guard options.tileMargin >= 0 && options.tileMargin % 32 == 0 else {
  fail("--margin must be a multiple of 32")
}
guard !files.isEmpty else { fail("no files") }

let path =
  modelPath
  ?? ((ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache"))
    + "/photoedit/centerface.onnx")
guard let modelData = FileManager.default.contents(atPath: path) else {
  fail("\(path): missing (run make model)")
}
let model: CenterFaceModel
do {
  model = try CenterFaceModel(onnx: [UInt8](modelData), kernel: kernel)
} catch {
  fail("\(path): \(error)")
}

var status: Int32 = 0
for file in files {
  guard let data = FileManager.default.contents(atPath: file) else {
    FileHandle.standardError.write(Data("centerface-detect: \(file): cannot read\n".utf8))
    status = 66
    continue
  }
  let image: Image
  do {
    image = try ImageCodec.decode([UInt8](data)).image
  } catch {
    FileHandle.standardError.write(Data("centerface-detect: \(file): \(error)\n".utf8))
    status = 65
    continue
  }
  var times: [Double] = []
  var cpu: [Double] = []
  var faces: [CenterFaceDetection] = []
  var refused: DetectionError?
  for _ in 0..<repeats where refused == nil {
    let start = ContinuousClock.now
    let cpu0 = cpuSeconds()
    do { faces = try model.faces(in: image, options: options) } catch { refused = error }
    cpu.append(cpuSeconds() - cpu0)
    let d = ContinuousClock.now - start
    times.append(Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18)
  }
  if let refused {
    FileHandle.standardError.write(Data("centerface-detect: \(file): \(refused.naming(model: path))\n".utf8))
    status = 65
    continue
  }
  times.sort()
  cpu.sort()
  let median = times[times.count / 2]
  FileHandle.standardError.write(
    Data(
      "timing: detect \(String(format: "%.3f", median))s cpu \(String(format: "%.3f", cpu[cpu.count / 2]))s (\(file))\n"
        .utf8))
  if json {
    let list = faces.map { f in
      "{\"x\":\(f.x),\"y\":\(f.y),\"width\":\(f.width),\"height\":\(f.height),\"score\":\(f.score),\"landmarks\":["
        + f.landmarks.map { "[\($0.x),\($0.y)]" }.joined(separator: ",") + "]}"
    }
    print(
      "{\"file\":\"\(file)\",\"width\":\(image.width),\"height\":\(image.height),\"seconds\":\(median),\"faces\":[\(list.joined(separator: ","))]}"
    )
  } else {
    print("\(file): \(faces.count) faces (\(image.width)x\(image.height))")
    for (i, f) in faces.enumerated() {
      print(
        String(
          format: "  #%d  x=%.1f y=%.1f width=%.1f height=%.1f score=%.3f", i, f.x, f.y, f.width, f.height,
          Double(f.score)))
    }
  }
}
exit(status)
