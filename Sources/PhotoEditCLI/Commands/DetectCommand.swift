import PhotoCore
import Recipe

enum DetectCommand {
  static let command = Command(
    name: "detect", summary: "Print the faces found in each photo, without editing it.",
    usage: "photoedit detect [options] FILE...",
    discussion: """
      Boxes are in pixels of the upright photo (EXIF orientation applied), found at full size,
      numbered in reading order (left to right): face #K is the one faceblur's exclude=K leaves
      alone. An edited photo is searched in its original, not in its render.

      --detector centerface (the default) is a small neural network that finds frontal, turned,
      tilted and profile faces (run 'make model' once to fetch it); haar is OpenCV's frontal face
      cascade, with its detectMultiScale rules and boxes; haar+profile, centerface+haar and
      centerface+haar+profile unite several, one box per face. The README compares them.
      """,
    options: CommonOptions.batch + [
      OptionSpec(
        long: "detector", valueName: "NAME",
        help: "\(DetectorChoice.allCases.map(\.rawValue).joined(separator: "|")) (default centerface)"),
      OptionSpec(
        long: "threshold", valueName: "T",
        help:
          "CenterFace: the score a face needs, \(ValueText.range(.number(DetectionOptions.thresholdRange))) (default 0.3)"
      ),
      OptionSpec(
        long: "scale-factor", valueName: "F",
        help: "pyramid step, \(ValueText.range(.number(DetectionOptions.scaleFactorRange))) (default 1.1)"),
      OptionSpec(
        long: "min-neighbors", valueName: "N",
        help:
          "detections a face needs, \(ValueText.range(.integer(DetectionOptions.minNeighborsRange))) (default 3)"
      ),
      OptionSpec(long: "min-face", valueName: "PX", help: "smallest face side in pixels (default: none)"),
      OptionSpec(long: "max-face", valueName: "PX", help: "largest face side in pixels (default: none)"),
      CommonOptions.cascade, CommonOptions.model, CommonOptions.maxPixels, CommonOptions.maxFileSize,
      CommonOptions.timings,
    ],
    run: { args, console throws(UsageError) in
      var options = DetectionOptions()
      if let name = args.value("detector") {
        guard let choice = DetectorChoice(rawValue: name) else {
          throw UsageError(
            "--detector must be one of \(DetectorChoice.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'",
            command: "detect")
        }
        options.detector = choice
      }
      options.threshold =
        try args.decimal("threshold", in: DetectionOptions.thresholdRange) ?? options.threshold
      // An option of a detector that is not searched would change nothing: say so, never ignore it.
      if args.value("threshold") != nil, !options.detector.runsCenterFace {
        throw UsageError(
          "--threshold is CenterFace's; --detector \(options.detector.rawValue) does not run it",
          command: "detect")
      }
      for haarOption in ["scale-factor", "min-neighbors"] where args.value(haarOption) != nil {
        if !options.detector.runsHaar {
          throw UsageError(
            "--\(haarOption) is the Haar cascade's; --detector \(options.detector.rawValue) does not run it",
            command: "detect")
        }
      }
      options.scaleFactor =
        try args.decimal("scale-factor", in: DetectionOptions.scaleFactorRange) ?? options.scaleFactor
      options.minNeighbors =
        try args.integer("min-neighbors", in: DetectionOptions.minNeighborsRange) ?? options.minNeighbors
      options.minSize = try args.integer("min-face", in: DetectionOptions.faceSizeRange)
      options.maxSize = try args.integer("max-face", in: DetectionOptions.faceSizeRange)
      if let lo = options.minSize, let hi = options.maxSize, lo > hi {
        throw UsageError("--max-face (\(hi)) must be at least --min-face (\(lo))", command: "detect")
      }
      let maxPixels = try args.integer("max-pixels", in: 1...Int(Int32.max))
      let detectors = EditSettings.detectors(args)
      let timings = args.flag("timings")
      let search = options
      if let status = detectors.preflight([options.detector], console: console) { return status }
      return try BatchRunner(arguments: args, console: console).run { path in
        let clock = StageClock(console: console, file: path, enabled: timings)
        var settings = StoreSettings(detectors: detectors)
        settings.recordTiming = { stage, seconds in clock.record(stage, seconds) }
        if let maxPixels { settings.maxPixels = maxPixels }
        return FileResult(try EditStore(settings: settings).detect(path, options: search))
      }
    })
}
