import Codecs
import PhotoCore
import Recipe
import Store

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
    options: CommonOptions.batch + DetectCommand.settings.map { $0.option as any OptionDeclaration } + [
      CommonOptions.cascade, CommonOptions.model, CommonOptions.maxPixels, CommonOptions.maxMemory,
      CommonOptions.maxFileSize,
      CommonOptions.timings,
    ],
    run: { args, console throws(UsageError) in
      var values: [String: ParameterValue] = [:]
      for setting in DetectCommand.settings {
        if let value = args[setting.option] { values[setting.key] = value }
      }
      let options = try DetectCommand.detection(values)
      let maxPixels = args[CommonOptions.maxPixels] ?? DecodeOptions.defaultMaxPixels
      let detectors = EditSettings.detectors(args)
      let timings = args[CommonOptions.timings]
      let search = options
      if let status = detectors.preflight([options.detector], console: console) { return status }
      return try BatchRunner(arguments: args, console: console).run { path in
        let clock = StageClock(console: console, file: path, enabled: timings)
        var settings = StoreSettings(detectors: detectors)
        settings.recordTiming = { stage, seconds in clock.record(stage, seconds) }
        settings.maxPixels = maxPixels
        return FileResult(try EditStore(settings: settings).detect(path, options: search))
      }
    })

  /// One of faceblur's detector settings as detect's option: `--min-face` is faceblur's
  /// `minFace`, with its kind, range, default and help.
  struct Setting: Sendable {
    /// The parameter's name in faceblur's declaration.
    var key: String
    var option: Option<ParameterValue>
  }

  /// The faceblur parameters detect takes: `detector`, every detector kind's settings (from the
  /// registry, `Detectors.settings`) and the face sizes. Everything about them but the value name
  /// help gives is faceblur's declaration (`FaceblurFilter.Parameters.fields`), and so are the
  /// checks of their values against each other: detect finds the faces faceblur would.
  static let settings: [Setting] = (["detector"] + Detectors.settings + ["minFace", "maxFace"]).map { key in
    guard let field = FaceblurFilter.Parameters.field(named: key) else {
      preconditionFailure("faceblur has no parameter \(key)")
    }
    return Setting(key: key, option: .parameter(field, valueName: valueNames[key] ?? "VALUE"))
  }

  /// How help writes each setting's value.
  static let valueNames = [
    "detector": "NAME", "threshold": "T", "scaleFactor": "F", "minNeighbors": "N", "minFace": "PX",
    "maxFace": "PX",
  ]

  /// The search the settings given ask for, checked as faceblur checks them.
  static func detection(_ values: [String: ParameterValue]) throws(UsageError) -> DetectionOptions {
    func flag(_ key: String) -> String {
      let word = key.split(separator: "=", maxSplits: 1)
      let option = settings.first { $0.key == word[0] }.map { "--" + $0.option.spec.long } ?? String(word[0])
      return word.count == 2 ? "\(option) \(word[1])" : option
    }
    if case .integer(let lo)? = values["minFace"], case .integer(let hi)? = values["maxFace"], lo > hi {
      throw UsageError(
        "\(flag("maxFace")) (\(hi)) must be at least \(flag("minFace")) (\(lo))", command: "detect")
    }
    do throws(FilterError) {
      return try FaceblurFilter.Parameters(filter: FaceblurFilter.name, values: values).detection
    } catch {
      // An option of a detector that is not searched would change nothing: say so, never ignore it.
      if case .conflictingParameters(_, let keys) = error, keys.count == 2 {
        throw UsageError(
          "\(flag(keys[1])) changes nothing with \(flag(keys[0])), which does not run the detector it is for",
          command: "detect")
      }
      throw UsageError(ErrorText.message(error), command: "detect")
    }
  }
}

extension Option where Value == ParameterValue {
  /// A filter parameter as a command-line option: `minFace` is `--min-face`, with the parameter's
  /// kind (a whole number, a number or a word), range, default and help.
  static func parameter<P>(_ field: ParameterField<P>, valueName: String) -> Self {
    let long = field.name.reduce(into: "") { out, c in out += c.isUppercase ? "-" + c.lowercased() : String(c)
    }
    let kind: OptionKind
    let decode: @Sendable (String) -> ParameterValue?
    switch field.kind {
    case .integer(let r): (kind, decode) = (.integer(r), { Int($0).map(ParameterValue.integer) })
    case .number(let r): (kind, decode) = (.number(r), { Double($0).map(ParameterValue.number) })
    case .choice(let words): (kind, decode) = (.choice(words), { ParameterValue.choice($0) })
    default: preconditionFailure("\(field.name): a \(field.kind) parameter has no option")
    }
    return Self(
      spec: OptionSpec(
        long: long, valueName: valueName, kind: kind, help: field.help,
        defaultText: field.defaultValue.map(ValueText.value) ?? "none"),
      decode: decode)
  }
}
