import Codecs
import Dispatch
import PhotoCore
import Recipe
import Store
import Synchronization

enum ReviewCommand {
  static let defaultMaxSize = 1024
  static let output = Option.file("output", short: "o", valueName: "PAGE.html", help: "the page to write")
  static let noOriginals = Flag("no-originals", help: "show the renders only (no unredacted previews)")
  static let noDetails = Flag(
    "no-details",
    help:
      "write no full-size detail of each face for the loupe (faster, smaller; the loupe shows the previews)")
  static let maxSize = Option.integer(
    "max-size", 16...8192, default: defaultMaxSize, help: "longest side of the previews in pixels")
  static let recursive = Flag(
    "recursive", short: "r", help: "accepted and ignored: folders are always walked")
  static let scores = Flag(
    "scores",
    help:
      "give each face its detector's score (CenterFace's): searches each original again, as detect does (slow)"
  )
  static let force = Flag("force", help: "replace a file at PAGE.html that is not a review page")

  static let command = Command(
    name: "review", summary: "Write a web page to check and correct what faceblur did to each photo.",
    usage: "photoedit review FILE|DIR... -o PAGE.html [--no-originals] [--max-size N] [options]",
    discussion: """
      The page shows each photo's render beside its original, with every face box of its faceblur
      step drawn and numbered as detect and exclude= number them (added boxes marked +), and says
      which faces are hidden and which excluded. Folders are walked as 'status -r' walks them. The
      previews are in a folder named after the page (PAGE_files/) beside it; a re-run replaces the
      page and the folder. The originals' previews show every face: keep the page private, or give
      --no-originals. The page writes no file: clicking a face switches it between hidden and
      excluded, dragging on a preview adds a box, and the corrections are exported as a JSON file
      for 'photoedit apply --corrections FILE DIR', or as the equivalent 'photoedit edit' lines.
      More than 50 photos open as a grid. Keys ('?' on the page lists them) move between photos and
      faces, switch a face, approve or flag a photo, undo, and open a loupe (4x, or each face's
      region at up to full size, from a detail written beside the previews); the work is kept in
      the browser's local storage until exported, and the export carries the approvals. The page
      must be outside the reviewed folders.
      """,
    options: [
      CommonOptions.help, output, noOriginals, noDetails, maxSize, recursive, scores, CommonOptions.cascade,
      CommonOptions.model, CommonOptions.jobs, CommonOptions.quiet, CommonOptions.shard, force,
      CommonOptions.maxPixels, CommonOptions.maxMemory, CommonOptions.maxFileSize,
    ],
    run: { args, console throws(UsageError) in
      guard let page = args[output] else {
        throw UsageError("give the page to write with -o PAGE.html", command: "review")
      }
      let lower = page.lowercased()
      guard lower.hasSuffix(".html") || lower.hasSuffix(".htm") else {
        throw UsageError("the page '\(page)' must end in .html or .htm", command: "review")
      }
      guard !args.operands.isEmpty, !args.operands.contains("-") else {
        throw UsageError("give the photos or folders to review", command: "review")
      }
      let maxSize = args[ReviewCommand.maxSize] ?? defaultMaxSize
      let jobs = args[CommonOptions.jobs] ?? Parallel.workerCount
      var settings = StoreSettings(detectors: EditSettings.detectors(args))
      settings.maxFileBytes = EditSettings.maxFileBytes(args)
      settings.maxPixels = args[CommonOptions.maxPixels] ?? DecodeOptions.defaultMaxPixels
      let shard = args[CommonOptions.shard]
      let selection = try ReviewSelection(args.operands, shard: shard)
      if !args[CommonOptions.quiet], !selection.skipped.isEmpty {
        // Not on the page: their faces were not looked for, let alone hidden.
        console.printError(
          "photoedit: \(FileResult.count(selection.skipped.count, "photo")) skipped: \(BatchRunner.skippedReason) ("
            + BatchRunner.distinct(selection.skipped).joined(separator: ", ") + ")")
      }
      if let shard, selection.photos.isEmpty {
        if !args[CommonOptions.quiet] {
          console.printError(
            "photoedit: nothing to do: shard \(shard.description) holds none of the \(FileResult.count(selection.total, "photo")); no page written"
          )
        }
        return ExitStatus.success
      }
      var output = ReviewOutput(page: page)
      try refuseInside(output, operands: args.operands)
      do throws(ReviewOutput.Failure) { try output.begin(force: args[force]) } catch {
        return report(error, console: console)
      }
      let originals = !args[noOriginals]
      let items = makeItems(
        selection, output: output, settings: settings, maxSize: maxSize, originals: originals,
        details: !args[noDetails],
        scores: args[scores], jobs: jobs, console: console, quiet: args[CommonOptions.quiet])
      let failed = items.filter { $0.views.isEmpty && $0.problem != nil }
      if !items.isEmpty && failed.count == items.count {
        // A page of failures only shows nothing to check: none is written (one there stays).
        output.abandon()
        if items.count == 1 { return failed[0].status ?? ExitStatus.dataError }
        if !args[CommonOptions.quiet] {
          console.printError(
            "photoedit: none of the \(items.count) photos could be previewed; no page written")
        }
        return ExitStatus.someFailed
      }
      let html = ReviewPage(
        items: sorted(items), previewsURL: output.folderURL,
        previewsName: output.folderName + "/",
        folder: selection.folder, originals: originals,
        title: "photoedit review of "
          + (args.operands.count == 1
            ? PathName.display(args.operands[0]) : "\(args.operands.count) operands")
      ).html()
      do throws(ReviewOutput.Failure) { try output.commit(html) } catch {
        output.abandon()
        return report(error, console: console)
      }
      if !args[CommonOptions.quiet] {
        let faces = items.reduce(0) { $0 + $1.faces.count }
        let look = items.filter(\.isFirst).count
        console.print(
          "\(page): \(FileResult.count(items.count, "photo")), \(FileResult.count(faces, "face")), \(look) to look at first; previews in \(output.folderName)/"
            + (originals ? " (unredacted: keep them private)" : ""))
      }
      if failed.isEmpty { return ExitStatus.success }
      // One photo: its failure's status (66 when it is missing), as every command gives.
      if items.count == 1 { return failed[0].status ?? ExitStatus.dataError }
      if !args[CommonOptions.quiet] {
        console.printError("photoedit: \(failed.count) of \(items.count) photos could not be previewed")
      }
      return ExitStatus.someFailed
    })

  /// The photos, most in need of a look first, then by name (the page's first order, also
  /// without its script).
  static func sorted(_ items: [ReviewItem]) -> [ReviewItem] {
    items.sorted { a, b in
      if a.urgency != b.urgency { return a.urgency < b.urgency }
      if a.visibleScore != b.visibleScore { return a.visibleScore > b.visibleScore }
      return a.name.unicodeScalars.lexicographicallyPrecedes(b.name.unicodeScalars)
    }
  }

  /// Each photo's previews, made in parallel and written to the page's folder as they come.
  static func makeItems(
    _ selection: ReviewSelection, output: ReviewOutput, settings: StoreSettings, maxSize: Int,
    originals: Bool, details: Bool = true, scores: Bool, jobs: Int, console: Console, quiet: Bool
  ) -> [ReviewItem] {
    let photos = selection.photos
    let results = Mutex([ReviewItem?](repeating: nil, count: photos.count))
    let progress = Progress(
      total: photos.count, console: console, enabled: console.errorIsTerminal && !quiet && photos.count > 1)
    let store = EditStore(settings: settings)
    // A photo refused memory that other photos held, before any preview of its was written, is
    // made again alone at the end.
    BatchRunner.forEachRetryingSharedRefusals(
      photos.count, workers: max(1, min(jobs, photos.count)),
      attempt: { i in
        makeItem(
          i, photos[i], store: store, output: output, maxSize: maxSize, originals: originals,
          details: details, scores: scores)
      },
      failed: { $0.views.isEmpty && $0.problem != nil },
      deliver: { i, item in
        progress.tick()
        if item.views.isEmpty, let problem = item.problem {
          progress.clear()
          console.printError("photoedit: \(TextEscaping.controls(photos[i].path)): \(problem)")
        }
        results.withLock { $0[i] = item }
      })
    progress.finish()
    return results.withLock { $0.map { $0! } }
  }

  static func makeItem(
    _ index: Int, _ photo: ReviewSelection.Photo, store: EditStore, output: ReviewOutput, maxSize: Int,
    originals: Bool, details: Bool = true, scores: Bool = false
  ) -> ReviewItem {
    if let problem = photo.problem { return ReviewItem(index: index, photo: photo, error: problem) }
    let number = String(index + 1)
    let stem = String(repeating: "0", count: max(0, 5 - number.count)) + number
    let files = (render: "\(stem)-render.jpg", other: "\(stem)-original.jpg")
    do {
      let preview = try store.preview(photo.path, maxSize: maxSize) { steps in
        guard !steps.isEmpty else { return [] }
        return [ReviewItem.reviewedStep(steps) ?? 1]
      }
      var item = ReviewItem(index: index, photo: photo, preview: preview, files: files, originals: originals)
      if scores, item.correctable, let options = ReviewItem.detection(preview.status.data?.steps ?? []) {
        if item.step != 1 {
          item.scoresNote = "no scores: faceblur is not the first step, so detect does not search what it saw"
        } else if !options.detector.kinds.contains(where: \.scores) {
          item.scoresNote = "no scores: the \(options.detector.rawValue) detector gives none"
        } else {
          do { item.attachScores(try store.detect(photo.path, options: options)) } catch {
            item.scoresNote = "no scores: \(ErrorText.describe(error).message)"
          }
        }
      }
      if let render = preview.render { item.secondLook(at: render, store: store) }
      for view in item.views {
        let image = view.kind == .render ? preview.render : preview.entering[item.step ?? 1]
        if let image { try output.write(image.jpeg, as: view.file) }
      }
      if details { try writeDetails(of: &item, from: preview, store: store, output: output) }
      return item
    } catch {
      return ReviewItem(index: index, photo: photo, error: error)
    }
  }

  /// The loupe's details of a photo (`ReviewItem.detailRegions`): cut from one more decode of
  /// the original the previews were made from, each written beside the previews
  /// (`00001-render-face3.jpg`, `00001-original-face3.jpg`, `00001-render-seen0.jpg`). A photo
  /// whose details cannot be made (its original no longer decodes at that size) keeps its
  /// previews, and the loupe shows those.
  static func writeDetails(
    of item: inout ReviewItem, from preview: PhotoPreview, store: EditStore, output: ReviewOutput
  ) throws(ReviewOutput.Failure) {
    let wanted = item.detailRegions()
    guard let source = preview.source, !wanted.isEmpty,
      let cut = try? store.details(
        of: source, regions: wanted.map(\.region), longestSide: ReviewItem.detailSize)
    else { return }
    for (w, detail) in zip(wanted, cut) {
      guard let detail else { continue }
      let name = item.views[w.view].file
      let stem = name.hasSuffix(".jpg") ? String(name.dropLast(4)) : name
      let file: String
      switch w.key {
      case .face(let k): file = "\(stem)-face\(k).jpg"
      case .seen(let k): file = "\(stem)-seen\(k).jpg"
      }
      try output.write(detail.image.jpeg, as: file)
      item.views[w.view].details[w.key] = ReviewItem.Detail(
        file: file, width: detail.image.width, height: detail.image.height, x: detail.x, y: detail.y,
        w: detail.width, h: detail.height)
    }
  }

  /// Refuses a page whose folder would be inside a reviewed folder, or the folder of a reviewed
  /// photo: its unredacted previews would be published with the photos, and walks of the folder
  /// (`apply -r`) would take them for photos.
  static func refuseInside(_ output: ReviewOutput, operands: [String]) throws(UsageError) {
    let pageFolder = PagePath.resolved(output.parentPath)
    for operand in operands {
      let path = Path.anchored(operand)
      let isFolder = PhotoFolder.kind(of: operand) == .directory
      let reviewed = PagePath.resolved(isFolder ? path : Path.parent(path))
      if pageFolder == reviewed || pageFolder.hasPrefix(reviewed == "/" ? "/" : reviewed + "/") {
        let place =
          isFolder
          ? "inside '\(operand == path ? reviewed : operand)', which is reviewed"
          : "inside '\(reviewed)', the folder of the reviewed photo '\(operand)'"
        throw UsageError(
          "the page's previews would be \(place); write the page elsewhere (-o ../review.html)",
          command: "review")
      }
    }
  }

  static func report(_ error: ReviewOutput.Failure, console: Console) -> Int32 {
    let (status, message) = ErrorText.describe(error)
    console.printError("photoedit: \(message)")
    return status
  }
}
