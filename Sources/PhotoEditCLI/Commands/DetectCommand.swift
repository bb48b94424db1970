import Codecs
import Dispatch
import Foundation
import PhotoCore
import Recipe

enum DetectCommand {
  static let command = Command(
    name: "detect", summary: "Print the faces found in each photo, without editing it.",
    usage: "photoedit detect [options] FILE...",
    discussion: """
      Boxes are in pixels of the upright photo (EXIF orientation applied), found at full size with
      OpenCV's detectMultiScale rules. Each face's index is the one faceblur's exclude= takes.
      """,
    options: CommonOptions.batch + [
      OptionSpec(long: "scale-factor", valueName: "F", help: "pyramid step, 1.01-4 (default 1.1)"),
      OptionSpec(long: "min-neighbors", valueName: "N", help: "detections a face needs, 0-100 (default 3)"),
      OptionSpec(long: "min-face", valueName: "PX", help: "smallest face side in pixels (default: none)"),
      OptionSpec(long: "max-face", valueName: "PX", help: "largest face side in pixels (default: none)"),
      CommonOptions.cascade, CommonOptions.maxPixels, CommonOptions.timings,
    ],
    run: { args, console throws(UsageError) in
      var options = DetectionOptions()
      options.scaleFactor = try args.decimal("scale-factor", in: 1.01...4) ?? options.scaleFactor
      options.minNeighbors = try args.integer("min-neighbors", in: 0...100) ?? options.minNeighbors
      // The same ranges as faceblur's detector parameters.
      options.minSize = try args.integer("min-face", in: 1...100_000)
      options.maxSize = try args.integer("max-face", in: 1...100_000)
      if let lo = options.minSize, let hi = options.maxSize, lo > hi {
        throw UsageError("--max-face (\(hi)) must be at least --min-face (\(lo))", command: "detect")
      }
      var decodeOptions = DecodeOptions()
      decodeOptions.maxPixels =
        try args.integer("max-pixels", in: 1...Int(Int32.max)) ?? decodeOptions.maxPixels
      let loader = CascadeLoader(option: args.value("cascade"))
      let timings = args.flag("timings")
      let (settings, decodeSettings) = (options, decodeOptions)
      return try BatchRunner(arguments: args, console: console).run { path in
        let clock = StageClock(console: console, file: path, enabled: timings)
        let bytes = try EditStore.readFile(path)
        let decoded = try clock.time("decode") { () throws(CodecError) in
          try ImageCodec.decode(bytes, options: decodeSettings)
        }
        let cascade = try loader.cascade()
        let faces = try clock.time("detect") { () throws(DetectionError) in
          try FaceDetector.detect(in: decoded.image, cascade: cascade, options: settings)
        }
        return report(path, decoded.image, faces)
      }
    })

  static func report(_ path: String, _ image: Image, _ faces: [FaceBox]) -> FileResult {
    var result = FileResult()
    result.fields["width"] = .number(Double(image.width))
    result.fields["height"] = .number(Double(image.height))
    result.fields["faces"] = .array(
      faces.map { f in
        .object([
          "x": .number(Double(f.x)), "y": .number(Double(f.y)),
          "width": .number(Double(f.width)), "height": .number(Double(f.height)),
        ])
      })
    let noun = faces.count == 1 ? "face" : "faces"
    result.lines = ["\(faces.count) \(noun) (\(image.width)x\(image.height))"]
    for (i, f) in faces.enumerated() {
      result.lines.append("  #\(i)  x=\(f.x) y=\(f.y) width=\(f.width) height=\(f.height)")
    }
    return result
  }
}
