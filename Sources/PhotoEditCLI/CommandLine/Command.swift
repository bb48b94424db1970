/// A subcommand: its metadata drives parsing, help and the tests; `run` does the work.
struct Command: Sendable {
  var name: String
  var summary: String
  /// The usage line without the leading "usage: ".
  var usage: String
  /// Paragraphs shown by `photoedit help NAME` after the usage.
  var discussion: String = ""
  var options: [OptionSpec]
  /// More help computed only when asked for (the filter catalogue for `apply`).
  var moreHelp: (@Sendable () -> String)? = nil
  /// Runs a parsed command line and returns the exit status. Usage errors are thrown before any
  /// file is touched.
  var run: @Sendable (ParsedArguments, Console) throws(UsageError) -> Int32

  /// The help text for `photoedit help NAME`.
  var help: String {
    var text = "usage: \(usage)\n\n\(summary)\n"
    if !discussion.isEmpty { text += "\n\(discussion)\n" }
    if !options.isEmpty {
      text += "\noptions:\n"
      let width = options.map(\.synopsis.count).max() ?? 0
      for option in options {
        let pad = String(repeating: " ", count: width - option.synopsis.count)
        text += "  \(option.synopsis)\(pad)  \(option.help)\n"
      }
    }
    if let moreHelp { text += "\n" + moreHelp() }
    return text
  }
}

/// Options shared by the commands that take files.
enum CommonOptions {
  static let help = OptionSpec(long: "help", short: "h", help: "show this help")
  static let recursive = OptionSpec(
    long: "recursive", short: "r",
    help: "walk folders for .jpg, .jpeg, .png and .webp photos (HEIC, GIF and others are counted as skipped)")
  static let null = OptionSpec(
    long: "null", short: "0", help: "file names read from standard input ('-') are NUL-separated")
  static let jobs = OptionSpec(
    long: "jobs", short: "j", valueName: "N", help: "parallel workers (default: the number of cores)")
  static let json = OptionSpec(
    long: "json", help: "one JSON line per file on standard output; nothing else there")
  static let quiet = OptionSpec(long: "quiet", short: "q", help: "no progress bar or summary")
  static let shard = OptionSpec(
    long: "shard", valueName: "K/N",
    help: "only the K-th of N parts of the photos, chosen by a hash of each name (1 <= K <= N)")
  static let dryRun = OptionSpec(long: "dry-run", help: "say what would happen; change nothing")
  static let force = OptionSpec(
    long: "force", help: "replace a render changed by another program, or an existing output")
  static let maxPixels = OptionSpec(
    long: "max-pixels", valueName: "N",
    help: "refuse images with more pixels than N (default 250000000)")
  static let timings = OptionSpec(long: "timings", help: "print each stage's time on standard error")
  static let maxFileSize = OptionSpec(
    long: "max-file-size", valueName: "MB",
    help: "refuse sidecars, recipes, strokes files and cascades larger than MB megabytes (default 64)")
  static let cascade = OptionSpec(
    long: "cascade", valueName: "FILE",
    help: "the Haar cascade XML (default: $PHOTOEDIT_CASCADE, else OpenCV's frontal face cascade)")
  static let model = OptionSpec(
    long: "model", valueName: "FILE",
    help:
      "the CenterFace ONNX model (default: $PHOTOEDIT_CENTERFACE, else ~/.cache/photoedit/centerface.onnx, else PREFIX/share/photoedit)"
  )
  static let quality = OptionSpec(
    long: "quality", valueName: "Q",
    help:
      "re-encode the whole JPEG at quality 1-100 (default: the original's own), in later renders too; without it, local steps keep the original's blocks outside the edits"
  )
  static let subsampling = OptionSpec(
    long: "subsampling", valueName: "444|422|420",
    help:
      "re-encode with this JPEG chroma subsampling (default: the input's; 420 for PNG input), in later renders too"
  )
  static let stripIdentifying = OptionSpec(
    long: "strip-identifying",
    help: "drop identifying metadata (GPS, serial numbers, names, XMP, comments), in later renders too")
  static let keepIdentifying = OptionSpec(
    long: "keep-identifying", help: "carry the original's metadata again (the default)")

  /// What every file-taking command accepts.
  static let batch = [help, recursive, null, jobs, json, quiet, shard]
}
