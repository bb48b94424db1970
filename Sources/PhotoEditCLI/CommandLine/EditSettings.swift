import Codecs
import PhotoCore
import Recipe

/// The options every editing command shares, validated once before any file is touched.
struct EditSettings: Sendable {
  var force: Bool
  var dryRun: Bool
  var quality: Int?
  var subsampling: ChromaSubsampling?
  /// `--strip-identifying` or `--keep-identifying`; nil keeps the recipe's choice.
  var metadata: MetadataPolicy?
  var maxPixels: Int?
  var timings: Bool
  var maxFileBytes: Int
  var detectors: DetectorLoader

  static let options = [
    CommonOptions.force, CommonOptions.dryRun, CommonOptions.maxPixels, CommonOptions.maxFileSize,
    CommonOptions.timings, CommonOptions.cascade, CommonOptions.model,
  ]
  static let encodingOptions = [CommonOptions.quality, CommonOptions.subsampling] + metadataOptions
  /// Of the commands that render (apply, edit, undo, redo, render).
  static let metadataOptions = [CommonOptions.stripIdentifying, CommonOptions.keepIdentifying]

  init(_ args: ParsedArguments) throws(UsageError) {
    force = args.flag("force")
    dryRun = args.flag("dry-run")
    quality = try args.integer("quality", in: EncodeOptions.qualityRange)
    if let text = args.value("subsampling") {
      guard let s = ChromaSubsampling(rawValue: text) else {
        throw UsageError("--subsampling must be 444, 422 or 420, not '\(text)'", command: args.command)
      }
      subsampling = s
    }
    switch (args.flag("strip-identifying"), args.flag("keep-identifying")) {
    case (true, true):
      throw UsageError("give --strip-identifying or --keep-identifying, not both", command: args.command)
    case (true, false): metadata = .stripped
    case (false, true): metadata = .kept
    case (false, false): metadata = nil
    }
    maxPixels = try args.integer("max-pixels", in: 1...Int(Int32.max))
    timings = args.flag("timings")
    maxFileBytes = try Self.maxFileBytes(args)
    detectors = Self.detectors(args)
  }

  /// `--max-file-size MB`: the largest sidecar, recipe, strokes file or cascade read.
  static func maxFileBytes(_ args: ParsedArguments) throws(UsageError) -> Int {
    (try args.integer("max-file-size", in: 1...4096)).map { $0 << 20 } ?? FileLimits.defaultDataFileBytes
  }

  /// The face detectors' loader: the cascade `--cascade FILE`, else `$PHOTOEDIT_CASCADE`, else
  /// the default; the CenterFace model `--model FILE`, else `$PHOTOEDIT_CENTERFACE`, else the
  /// places `DetectorLoader.defaultModelSearch` lists.
  static func detectors(_ args: ParsedArguments) -> DetectorLoader {
    func environment(_ name: String) -> String? { FileSystem.environment(name).flatMap { $0.isEmpty ? nil : $0 } }
    let limit = (try? maxFileBytes(args)) ?? FileLimits.defaultDataFileBytes
    return DetectorLoader(
      cascadePath: args.value("cascade") ?? environment("PHOTOEDIT_CASCADE"),
      modelPath: args.value("model") ?? environment("PHOTOEDIT_CENTERFACE"), maxBytes: limit)
  }

  /// The store's settings for one file; stage times are printed with that file's name.
  func store(for file: String, console: Console) -> StoreSettings {
    let clock = StageClock(console: console, file: file, enabled: timings)
    var s = StoreSettings(detectors: detectors)
    s.recordTiming = { stage, seconds in clock.record(stage, seconds) }
    s.force = force
    s.dryRun = dryRun
    s.quality = quality
    s.subsampling = subsampling
    s.metadata = metadata
    s.maxFileBytes = maxFileBytes
    if let maxPixels { s.maxPixels = maxPixels }
    return s
  }
}

/// Output paths for commands that can write elsewhere than in place.
struct OutputTarget: Sendable {
  var file: String?
  var folder: String?

  static let options = [
    OptionSpec(long: "output", short: "o", valueName: "FILE", help: "write here instead (one input only)"),
    OptionSpec(long: "output-dir", valueName: "DIR", help: "write each result into DIR, same file name"),
  ]

  init(_ args: ParsedArguments) throws(UsageError) {
    file = args.value("output")
    folder = args.value("output-dir")
    if file != nil && folder != nil {
      throw UsageError("give -o/--output or --output-dir, not both", command: args.command)
    }
    if file != nil && (args.operands.count != 1 || args.operands == ["-"] || args.flag("recursive")) {
      throw UsageError(
        "-o/--output takes exactly one input; use --output-dir for many", command: args.command)
    }
    if let f = file, ImageFormat(pathExtension: f) == nil {
      throw UsageError("the output '\(f)' must end in .jpg, .jpeg or .png", command: args.command)
    }
  }

  /// Where the result for `input` goes, or nil for in place. `--output-dir` is created when
  /// missing (unless this is a dry run).
  func path(for input: String, dryRun: Bool = false) throws(StoreError) -> String? {
    if let file { return file }
    guard let folder else { return nil }
    if !dryRun { try EditStore.createFolder(folder) }
    let name = input.unicodeScalars.split(separator: "/").last.map { String(Substring($0)) } ?? input
    return folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }

  /// Refuses, before any file is touched, two inputs that `--output-dir` would write to the
  /// same file.
  func checkDistinctOutputs(_ entries: [PhotoFolder.Entry], command: String) throws(UsageError) {
    guard folder != nil else { return }
    // Keyed by bytes: two names that differ only in Unicode normalisation are two files.
    var seen: [[UInt8]: String] = [:]
    for entry in entries where entry.problem == nil {
      guard let out = try? path(for: entry.path, dryRun: true) else { continue }
      if let first = seen[PathName.bytes(out)] {
        throw UsageError(
          "'\(first)' and '\(entry.path)' would both be written to '\(out)'; give them separate runs",
          command: command)
      }
      seen[PathName.bytes(out)] = entry.path
    }
  }
}
