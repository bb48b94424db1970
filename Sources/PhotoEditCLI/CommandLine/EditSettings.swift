import Codecs
import PhotoCore
import Recipe
import Store
import Synchronization

/// The options every editing command shares, validated once before any file is touched.
struct EditSettings: Sendable {
  var force: Bool
  var dryRun: Bool
  var quality: Int?
  var subsampling: ChromaSubsampling?
  /// `--strip-identifying` or `--keep-identifying`; nil keeps the recipe's choice.
  var metadata: MetadataPolicy?
  var maxPixels: Int
  var timings: Bool
  var maxFileBytes: Int
  var detectors: DetectorLoader

  /// What the commands that write a photo's files take (revert: `force`, `dryRun` and
  /// `maxFileSize` only).
  static let writing: [any OptionDeclaration] = [
    CommonOptions.force, CommonOptions.dryRun, CommonOptions.maxPixels, CommonOptions.maxMemory,
    CommonOptions.maxFileSize,
    CommonOptions.timings,
  ]
  /// Of the commands that may search for faces (apply, edit).
  static let detectorOptions: [any OptionDeclaration] = [CommonOptions.cascade, CommonOptions.model]
  static let encodingOptions: [any OptionDeclaration] =
    [CommonOptions.quality, CommonOptions.subsampling] + metadataOptions
  /// Of the commands that render (apply, edit, undo, redo, render).
  static let metadataOptions: [any OptionDeclaration] = [
    CommonOptions.stripIdentifying, CommonOptions.keepIdentifying,
  ]

  /// The settings a command line gives; an option the command does not take is at its default.
  init(_ args: ParsedArguments) throws(UsageError) {
    force = args[CommonOptions.force]
    dryRun = args[CommonOptions.dryRun]
    quality = args[CommonOptions.quality]
    subsampling = args[CommonOptions.subsampling]
    switch (args[CommonOptions.stripIdentifying], args[CommonOptions.keepIdentifying]) {
    case (true, true):
      throw UsageError("give --strip-identifying or --keep-identifying, not both", command: args.command)
    case (true, false): metadata = .stripped
    case (false, true): metadata = .kept
    case (false, false): metadata = nil
    }
    maxPixels = args[CommonOptions.maxPixels] ?? DecodeOptions.defaultMaxPixels
    timings = args[CommonOptions.timings]
    maxFileBytes = Self.maxFileBytes(args)
    detectors = Self.detectors(args)
  }

  /// `--max-file-size MB`: the largest sidecar, recipe, strokes file or cascade read.
  static func maxFileBytes(_ args: ParsedArguments) -> Int {
    args[CommonOptions.maxFileSize].map { $0 << 20 } ?? FileLimits.defaultDataFileBytes
  }

  /// The face detectors' loader: the cascade `--cascade FILE`, else `$PHOTOEDIT_CASCADE`, else
  /// the default; the CenterFace model `--model FILE`, else `$PHOTOEDIT_CENTERFACE`, else the
  /// places `DetectorLoader.defaultModelSearch` lists.
  static func detectors(_ args: ParsedArguments) -> DetectorLoader {
    func environment(_ name: String) -> String? {
      FileSystem.environment(name).flatMap { $0.isEmpty ? nil : $0 }
    }
    return DetectorLoader(
      cascadePath: args[CommonOptions.cascade] ?? environment("PHOTOEDIT_CASCADE"),
      modelPath: args[CommonOptions.model] ?? environment("PHOTOEDIT_CENTERFACE"),
      maxBytes: maxFileBytes(args))
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
    s.maxPixels = maxPixels
    return s
  }
}

/// Output paths for commands that can write elsewhere than in place.
struct OutputTarget: Sendable {
  var file: String?
  var folder: String?
  /// The folders `--output-dir` made in this run.
  private let made = MadeFolders()

  static let output = Option.file(
    "output", short: "o", help: "write here instead (one input only)")
  static let outputDir = Option.folder(
    "output-dir", help: "write each result into DIR, same file name (with -r, same path below DIR)")
  static let options: [any OptionDeclaration] = [output, outputDir]

  init(_ args: ParsedArguments) throws(UsageError) {
    file = args[Self.output]
    folder = args[Self.outputDir]
    if file != nil && folder != nil {
      throw UsageError("give -o/--output or --output-dir, not both", command: args.command)
    }
    if file != nil && (args.operands.count != 1 || args.operands == ["-"] || args[CommonOptions.recursive]) {
      throw UsageError(
        "-o/--output takes exactly one input; use --output-dir for many", command: args.command)
    }
    if let f = file, ImageFormat(pathExtension: f) == nil {
      throw UsageError(
        "the output '\(f)' must end in \(FormatRegistry.writableExtensions)", command: args.command)
    }
  }

  /// True when results are written in place (no -o, no --output-dir).
  var isInPlace: Bool { file == nil && folder == nil }

  /// Where the result for `input` goes, or nil for in place: `-o`'s file, or below
  /// `--output-dir` the photo's path relative to the folder a walk found it in (`a/x.jpg`), or
  /// for a photo named directly its name alone.
  func path(for input: PhotoFolder.Entry) -> String? {
    if let file { return file }
    guard let folder else { return nil }
    let name =
      input.relative
      ?? input.path.unicodeScalars.split(separator: "/").last.map { String(Substring($0)) } ?? input.path
    return folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }

  /// Runs `work` with where the result for `input` goes (nil for in place). `--output-dir` and
  /// the folders below it that the photo's relative path names are made first when missing
  /// (not in a dry run), and when the photo fails, what this run made of them is taken back
  /// (``MadeFolders``).
  func writing<T>(for input: PhotoFolder.Entry, dryRun: Bool, _ work: (String?) throws -> T) throws -> T {
    guard !dryRun, let (folder, relative) = folderToMake(for: input) else {
      return try work(path(for: input))
    }
    try made.enter(folder, for: relative)
    do {
      let result = try work(path(for: input))
      made.leave(failed: false)
      return result
    } catch {
      made.leave(failed: true)
      throw error
    }
  }

  /// The folder to make before writing `input`'s result, with the path below it: `--output-dir`
  /// and the photo's relative path, or the folder `-o` names (`out/x.jpg` makes `out`, as
  /// `--output-dir out` would).
  private func folderToMake(for input: PhotoFolder.Entry) -> (String, String?)? {
    if let folder { return (folder, input.relative) }
    guard let file, let slash = file.utf8.lastIndex(of: UInt8(ascii: "/")), slash != file.utf8.startIndex
    else {
      return nil
    }
    return (String(file[..<slash]), nil)
  }

  /// Refuses, before any file is touched, two inputs that `--output-dir` would write to the
  /// same file.
  func checkDistinctOutputs(_ entries: [PhotoFolder.Entry], command: String) throws(UsageError) {
    guard folder != nil else { return }
    // Keyed by bytes: two names that differ only in Unicode normalisation are two files.
    var seen: [[UInt8]: String] = [:]
    for entry in entries where entry.problem == nil {
      guard let out = path(for: entry) else { continue }
      if let first = seen[PathName.bytes(out)] {
        throw UsageError(
          "'\(first)' and '\(entry.path)' would both be written to '\(out)'; give them separate runs",
          command: command)
      }
      seen[PathName.bytes(out)] = entry.path
    }
  }
}

/// The folders one run made for `--output-dir` (the folder and its missing parents), so that a
/// run whose photos fail leaves none of them behind.
///
/// Each photo `enter`s before its work, making the folder when it is missing, and `leave`s after
/// it. When a photo has failed and no other photo of the run is between the two (one could be
/// about to write there), the folders this run made are removed deepest first, each only while
/// it is empty (rmdir(2), so a folder that holds anything stays, whoever put it there); a
/// folder that existed before the run is never removed. A crash in between can leave an empty
/// folder, which the next run uses.
final class MadeFolders: Sendable {
  private struct State {
    /// Made by this run and not removed since, parents first.
    var made: [String] = []
    /// Photos between `enter` and `leave`.
    var working = 0
    /// A photo failed since the last removal.
    var failed = false
  }
  private let state = Mutex(State())

  /// Makes `folder` (and its missing parents) unless it exists, then the folders below it that
  /// hold the file `relative` (`a/b` for `a/b/x.jpg`; each a real folder, never a link), for one
  /// photo's work.
  func enter(_ folder: String, for relative: String? = nil) throws(StoreError) {
    try state.withLock { s throws(StoreError) in
      s.working += 1
      do throws(StoreError) { try EditStore.createFolder(folder, for: relative, made: &s.made) } catch {
        Self.leave(&s, failed: true)
        throw error
      }
    }
  }

  /// Ends one photo's work; after a failure, removes the empty folders this run made once no
  /// photo is working.
  func leave(failed: Bool) { state.withLock { Self.leave(&$0, failed: failed) } }

  private static func leave(_ s: inout State, failed: Bool) {
    s.working -= 1
    s.failed = s.failed || failed
    guard s.working == 0, s.failed else { return }
    s.failed = false
    // Deepest first (a folder is made after its parents); one that holds anything stays.
    s.made = s.made.reversed().filter { !EditStore.removeFolderIfEmpty($0) }.reversed()
  }
}

extension DetectorLoader {
  /// Loads the detectors `choices` name before the first photo is touched, so that a missing or
  /// unusable model or cascade is one line and one status for the whole run (66 missing or
  /// unreadable, 65 not a model or cascade), not the same error for every photo. Returns that
  /// status after printing the line, or nil when all load.
  func preflight(_ choices: Set<DetectorChoice>, console: Console) -> Int32? {
    for choice in choices.sorted(by: { $0.rawValue < $1.rawValue }) {
      do throws(DetectorError) { _ = try detector(choice) } catch {
        console.printError("photoedit: \(ErrorText.message(error))")
        return ExitStatus.of(StoreError.detector(error))
      }
    }
    return nil
  }
}
