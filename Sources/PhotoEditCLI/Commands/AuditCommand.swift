import Codecs
import PhotoCore
import Recipe
import Store
import Synchronization

enum AuditCommand {
  static let command = Command(
    name: "audit",
    summary:
      "Report what published files still reveal: faces, thumbnails, identifying metadata, store files.",
    usage: "photoedit audit [options] FILE|DIR...",
    discussion: """
      Reads each file as it would be published, and never writes anything. A photo is reported
      when CenterFace finds a face in its pixels (at --threshold, default 0.4, at full size), when
      it holds a picture besides its own (an EXIF or XMP thumbnail, a Photoshop thumbnail, MPF,
      data after the image...), or identifying metadata (GPS, serial numbers, names, XMP
      locations and history, maker notes): what --strip-identifying drops. With -r, a folder
      stands for every file a copy of it would publish, hidden ones too, and the store's own
      files are reported: originals kept by in-place edits, sidecars (they name the original and
      the hidden faces' boxes), journals, locks, temporary files. Audit the copy that leaves:
      photoedit's sidecars are never trusted to excuse a face.

      Exits 0 when no file has a finding, 1 when some file has one (or, among several, some
      file cannot be read, or a walk skipped a photo in a format photoedit does not read), 65
      or 66 when the one file named cannot be read or is missing.
      docs/audit.md has the rules and how the threshold was measured.
      """,
    options: [
      CommonOptions.help, recursive, CommonOptions.null, CommonOptions.jobs, CommonOptions.json,
      CommonOptions.quiet, CommonOptions.shard, threshold, CommonOptions.model, CommonOptions.maxPixels,
      CommonOptions.maxMemory,
      CommonOptions.maxFileSize, CommonOptions.timings,
    ],
    run: { args, console throws(UsageError) in
      var options = AuditOptions()
      options.threshold = args[threshold] ?? options.threshold
      let maxPixels = args[CommonOptions.maxPixels] ?? DecodeOptions.defaultMaxPixels
      let detectors = EditSettings.detectors(args)
      let timings = args[CommonOptions.timings]
      let audit = options
      if let status = detectors.preflight([.centerface], console: console) { return status }
      let found = Atomic<Bool>(false)
      var runner = BatchRunner(arguments: args, console: console)
      runner.publishing = true
      // A photo audit cannot read is not vouched for: counted as skipped, and the run exits 1.
      runner.skippedFails = true
      // A file named twice is read once; its later lines repeat what the first found.
      runner.repeatedForDuplicates = ["findings", "width", "height"]
      let status = try runner.run { path in
        let clock = StageClock(console: console, file: path, enabled: timings)
        var settings = StoreSettings(detectors: detectors)
        settings.recordTiming = { stage, seconds in clock.record(stage, seconds) }
        settings.maxPixels = maxPixels
        let outcome = try EditStore(settings: settings).audit(path, options: audit)
        if !outcome.isClean { found.store(true, ordering: .relaxed) }
        return FileResult(outcome)
      }
      return status == ExitStatus.success && found.load(ordering: .relaxed) ? ExitStatus.someFailed : status
    })

  /// `-r` walks for more than photos here.
  static let recursive = Flag(
    "recursive", short: "r",
    help: "walk folders: every photo and store file a copy of them would publish, hidden ones too")
  static let threshold = Option.number(
    "threshold", valueName: "T", DetectionOptions.thresholdRange, default: AuditOptions.defaultThreshold,
    help: "the CenterFace score from which a face counts as visible")
}
