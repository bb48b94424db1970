import Codecs
import PhotoCore
import Recipe
import Store

/// A subcommand: its declarations drive parsing, help, the manual page, completion and the
/// tests; `run` does the work.
struct Command: Sendable {
  var name: String
  var summary: String
  /// The usage line without the leading "usage: ".
  var usage: String
  /// Paragraphs shown by `photoedit help NAME` after the usage.
  var discussion: String = ""
  /// Every option the command takes, and only those, in the order help lists them.
  var options: [OptionSpec]
  /// More help computed only when asked for (the filter catalogue for `apply`).
  var moreHelp: (@Sendable () -> String)? = nil
  /// Runs a parsed command line and returns the exit status. Usage errors are thrown before any
  /// file is touched.
  var run: @Sendable (ParsedArguments, Console) throws(UsageError) -> Int32

  init(
    name: String, summary: String, usage: String, discussion: String = "", options: [any OptionDeclaration],
    moreHelp: (@Sendable () -> String)? = nil,
    run: @escaping @Sendable (ParsedArguments, Console) throws(UsageError) -> Int32
  ) {
    (self.name, self.summary, self.usage, self.discussion) = (name, summary, usage, discussion)
    self.options = options.map(\.spec)
    (self.moreHelp, self.run) = (moreHelp, run)
  }

  /// The help text for `photoedit help NAME`: every line at most `TextLayout.width` columns.
  var help: String {
    var lines = ["usage: \(usage)", ""] + TextLayout.wrap(summary)
    if !discussion.isEmpty {
      lines += [""] + discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
    if !options.isEmpty {
      lines += ["", "options:"] + TextLayout.table(options.map { ($0.synopsis, $0.description) })
    }
    var text = lines.joined(separator: "\n") + "\n"
    if let moreHelp { text += "\n" + moreHelp() }
    return text
  }
}

/// Options shared by several commands, each declared once.
enum CommonOptions {
  static let help = Flag("help", short: "h", help: "show this help")
  static let recursive = Flag(
    "recursive", short: "r",
    help:
      "walk folders for .jpg, .jpeg, .png, .heic, .heif, .hif, .avif, .webp, .tif and .tiff photos (GIF and others are counted as skipped)"
  )
  static let null = Flag(
    "null", short: "0", help: "file names read from standard input ('-') are NUL-separated")
  static let jobs = Option.integer(
    "jobs", short: "j", 1...256, defaultText: "the number of cores", help: "parallel workers")
  static let json = Flag("json", help: "one JSON line per file on standard output; nothing else there")
  static let quiet = Flag("quiet", short: "q", help: "no progress bar or summary")
  static let shard = Option<Shard>.custom(
    "shard", valueName: "K/N",
    help: "only the K-th of N parts of the photos (K from 1 to N), chosen by a hash of each name"
  ) { text, command in
    do throws(UsageError) { return .success(try Shard.parse(text, command: command)) } catch {
      return .failure(error)
    }
  }
  static let dryRun = Flag("dry-run", help: "say what would happen; change nothing")
  static let force = Flag("force", help: "replace a render changed by another program, or an existing output")
  static let maxPixels = Option.integer(
    "max-pixels", 1...Int(Int32.max), default: DecodeOptions.defaultMaxPixels,
    help: "refuse images with more pixels than N")
  static let maxMemory = Option.integer(
    "max-memory", valueName: "MB", 64...(1 << 22), default: MemoryBudget.defaultLimit >> 20,
    help: "hold at most MB megabytes of pixels and detector buffers at once, over all photos in parallel")
  static let timings = Flag("timings", help: "print each stage's time on standard error")
  static let maxFileSize = Option.integer(
    "max-file-size", valueName: "MB", 1...4096, default: FileLimits.defaultDataFileBytes >> 20,
    help: "refuse sidecars, recipes, strokes files and cascades larger than MB megabytes")
  static let cascade = Option.file(
    "cascade", defaultText: "$PHOTOEDIT_CASCADE, else OpenCV's frontal face cascade",
    help: "the Haar cascade XML")
  static let model = Option.file(
    "model",
    defaultText:
      "$PHOTOEDIT_CENTERFACE, else ~/.cache/photoedit/centerface.onnx, else PREFIX/share/photoedit",
    help: "the CenterFace ONNX model")
  static let quality = Option.integer(
    "quality", valueName: "Q", EncodeOptions.qualityRange, defaultText: "the original's own",
    help:
      "re-encode the whole JPEG at this quality, in later renders too; without it, local steps keep the original's blocks outside the edits"
  )
  static let subsampling = Option<ChromaSubsampling>.choice(
    "subsampling", defaultText: "the input's; 420 for PNG input",
    help: "re-encode with this JPEG chroma subsampling, in later renders too")
  static let stripIdentifying = Flag(
    "strip-identifying",
    help: "drop identifying metadata (GPS, serial numbers, names, XMP, comments), in later renders too")
  static let keepIdentifying = Flag(
    "keep-identifying", help: "carry the original's metadata again (the default)")

  /// What every file-taking command accepts.
  static let batch: [any OptionDeclaration] = [help, recursive, null, jobs, json, quiet, shard]
}
