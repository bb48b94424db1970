import PhotoCore
import Recipe

extension EditStore {
  /// A corrections file, read with the store's rules for data files (a regular file of at most
  /// `settings.maxFileBytes`, `--max-file-size`) and checked whole against the photos under
  /// `folder`: every photo must be one a walk of `folder` finds, be edited, and have a faceblur
  /// step `step` whose detector faces are the ones reviewed, and every excluded face must be one
  /// the step will have. Nothing is changed.
  ///
  /// - Returns: each entry with the path of its photo (`folder` joined with its name), and
  ///   whether its step already has these `exclude` and `add` (applied before: nothing to do).
  /// - Throws: `CorrectionsError` for the first problem found.
  public func checkCorrections(_ file: String, in folder: String) throws(CorrectionsError)
    -> [(path: String, entry: Corrections.Entry, done: Bool)]
  {
    var checked: [(path: String, entry: Corrections.Entry, done: Bool)] = []
    for result in try checkEachCorrection(file, in: folder) {
      switch result.outcome {
      case .success(let c): checked.append((c.path, result.entry, c.done))
      case .failure(let error): throw error
      }
    }
    return checked
  }

  /// A corrections file read and checked as `checkCorrections(_:in:)` does, but entry by entry:
  /// a problem of the file itself (unreadable, not JSON, another format, a field of the wrong
  /// shape, a photo named twice) throws, while an entry whose photo cannot take it (not under
  /// `folder`, missing, damaged, edited since the review, a face it does not have) comes back
  /// as that entry's failure, the others unaffected. Nothing is changed.
  public func checkEachCorrection(_ file: String, in folder: String) throws(CorrectionsError)
    -> [(entry: Corrections.Entry, outcome: Result<(path: String, done: Bool), CorrectionsError>)]
  {
    try checkCorrectionsFile(file, in: folder).entries
  }

  /// A corrections file's entries and `reviewed` states, each checked against its photo under
  /// `folder` (the file is read once).
  public struct CheckedFile: Sendable {
    public var entries:
      [(entry: Corrections.Entry, outcome: Result<(path: String, done: Bool), CorrectionsError>)]
    public var reviews:
      [(review: Corrections.Review, outcome: Result<(path: String, done: Bool), CorrectionsError>)]
  }

  /// A corrections file read and checked as `checkEachCorrection(_:in:)` does, with its
  /// `reviewed` states checked too (`checkReview`). Nothing is changed.
  public func checkCorrectionsFile(_ file: String, in folder: String) throws(CorrectionsError) -> CheckedFile
  {
    let bytes: [UInt8]
    do { bytes = try Self.readFile(file, limit: settings.maxFileBytes) } catch { throw .unreadable(error) }
    let corrections = try Corrections.read(bytes)
    func each<T>(_ items: [T], _ check: (T) throws(CorrectionsError) -> (path: String, done: Bool))
      -> [(T, Result<(path: String, done: Bool), CorrectionsError>)]
    {
      items.map { item in
        do throws(CorrectionsError) { return (item, .success(try check(item))) } catch {
          return (item, .failure(error))
        }
      }
    }
    let entries = each(corrections.photos) { entry throws(CorrectionsError) in
      try check(entry, in: folder, recorded: corrections.folder)
    }
    // Photos whose correction this file already made: their render is the corrected one.
    var corrected: Set<String> = []
    for (entry, outcome) in entries {
      if case .success(let c) = outcome, c.done { corrected.insert(entry.photo) }
    }
    let reviews = each(corrections.reviewed) { review throws(CorrectionsError) in
      try checkReview(
        review, in: folder, recorded: corrections.folder, corrected: corrected.contains(review.photo))
    }
    return CheckedFile(entries: entries, reviews: reviews)
  }

  /// The photo an entry names under `folder`, its path and its state; a photo that is missing,
  /// damaged, or modified outside photoedit (without `--force`) is refused.
  func checkedStatus(_ photo: String, in folder: String, recorded: String?) throws(CorrectionsError)
    -> (path: String, status: PhotoStatus)
  {
    let path = try Self.photoPath(photo, in: folder)
    let status: PhotoStatus
    do { status = try show(path) } catch {
      if case .missing = error {
        throw .notFound(photo: photo, folder: folder, recorded: recorded)
      }
      throw .photo(photo: photo, error)
    }
    if status.state == .damaged, let problem = status.problem, case .error(let e) = problem {
      throw .photo(photo: photo, e)
    }
    if status.state == .modified && !settings.force { throw .photo(photo: photo, .renderModified) }
    return (path, status)
  }

  /// One entry checked against its photo under `folder`: its path, and whether its step already
  /// has these corrections.
  private func check(_ entry: Corrections.Entry, in folder: String, recorded: String?)
    throws(CorrectionsError) -> (path: String, done: Bool)
  {
    let (path, status) = try checkedStatus(entry.photo, in: folder, recorded: recorded)
    guard let data = status.data, !data.steps.isEmpty else {
      throw .noFaceblurStep(photo: entry.photo, step: entry.step, filter: nil, count: 0)
    }
    guard data.steps.indices.contains(entry.step - 1) else {
      throw .noFaceblurStep(photo: entry.photo, step: entry.step, filter: nil, count: data.steps.count)
    }
    let step = data.steps[entry.step - 1]
    guard let (parameters, derived) = step.typed(FaceblurFilter.self) else {
      throw .noFaceblurStep(
        photo: entry.photo, step: entry.step, filter: step.filter, count: data.steps.count)
    }
    let found = Array(derived.faces.prefix(max(0, derived.faces.count - parameters.add.count)))
    guard Self.sameBoxes(found, entry.found) else {
      throw .facesChanged(
        photo: entry.photo, step: entry.step, reviewed: entry.found.count, now: found.count)
    }
    let count = found.count + entry.add.count
    if let face = FaceblurFilter.missingFace(in: entry.exclude, faces: count) {
      throw .noSuchFace(photo: entry.photo, step: entry.step, face: face, count: count)
    }
    let added = derived.faces.suffix(parameters.add.count)
    let done = Set(parameters.exclude) == Set(entry.exclude) && Self.sameBoxes(Array(added), entry.add)
    return (path, done)
  }

  /// Applies one checked entry: `edit --step N --set exclude=...,add=...` through the store's
  /// safety protocol (lock, journal, re-render from the original).
  ///
  /// - Parameter review: the photo's review state, recorded in the same sidecar write.
  public func applyCorrection(_ entry: Corrections.Entry, to path: String, review: ReviewMark? = nil)
    throws(StoreError) -> EditOutcome
  {
    let values: [String: ParameterValue] = ["exclude": .integers(entry.exclude), "add": .boxes(entry.add)]
    return try edit(path, step: entry.step, .set { _, _ throws(StoreError) in values }, review: review)
  }

  /// `name` below `folder`, when it is a photo a walk of `folder` finds: a relative path of
  /// folders that are neither hidden nor links, ending in a photo's name that is not a store
  /// file.
  static func photoPath(_ name: String, in folder: String) throws(CorrectionsError) -> String {
    let refuse = CorrectionsError.notUnderFolder(photo: name, folder: folder)
    // Split on the "/" byte's scalar: a Character split would miss a slash before a combining mark.
    let parts = name.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map {
      String(String.UnicodeScalarView($0))
    }
    guard !name.hasPrefix("/"), !parts.isEmpty,
      parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && !$0.contains("\0") }),
      PhotoFolder.isPhotoName(parts.last!), !PhotoPaths.isStoreFile(name)
    else { throw refuse }
    var path = folder
    for (i, part) in parts.enumerated() {
      path = path == "." ? part : Path.join(path, part)
      if i < parts.count - 1 && PhotoFolder.kind(of: path, followingLinks: false) != .directory {
        throw refuse
      }
    }
    return path
  }

  /// True when two lists of fraction boxes are the same (to a billionth: a JSON round trip).
  static func sameBoxes(_ a: [Box], _ b: [Box]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).allSatisfy { p, q in
      zip([p.x, p.y, p.width, p.height], [q.x, q.y, q.width, q.height]).allSatisfy {
        abs($0.fraction(of: 1) - $1.fraction(of: 1)) <= 1e-9
      }
    }
  }
}
