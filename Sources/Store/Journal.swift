import PhotoCore
import Recipe

/// The redo journal that makes a multi-file edit atomic.
///
/// A command first writes every new file as a synced temporary file. It then writes the journal
/// `PHOTO.photoedit.journal` (itself through a synced temporary file and a rename): that rename
/// is the commit point. Only then does it carry out the journal's steps, in order, sync the
/// folder and remove the journal. Every step can be run again after a crash without harm, so
/// whoever finds a journal (the next command on the photo, or `check --repair`) finishes the
/// edit; whoever finds temporary files without a journal removes them (the edit never happened).
///
/// A journal names no file: every path a step touches is derived from the photo's own name (its
/// render, its sidecar, its preserved original, one of its temporary files), so a planted or
/// damaged journal can never make a command touch anything else. One that cannot be read, or
/// that names anything but these, is reported as damage and never run.
struct Journal: Equatable, Sendable {
  /// One idempotent step.
  enum Step: Equatable, Sendable {
    /// Preserve the original: hard-link the unedited photo as `PHOTO.original` (which must not
    /// exist), or copy it where hard links are impossible. `sha256` is the original's checksum.
    case preserve(sha256: SHA256Digest)
    /// Rename the synced temporary file `temp` (one of the photo's `PHOTO.photoedit-tmp-…`
    /// names) over the photo's render or sidecar, whose new checksum is `sha256`.
    case replace(temp: String, role: Role, sha256: SHA256Digest)
    /// Remove the photo's sidecar or preserved original; the original only when the photo holds
    /// its bytes (`guardSHA256`).
    case remove(role: Role, guardSHA256: SHA256Digest?)

    /// Which of the photo's files a step changes.
    enum Role: String, Sendable { case original, sidecar, render }

    var crashPoint: CrashPoint {
      switch self {
      case .preserve: .afterOriginal
      case .replace(_, let role, _), .remove(let role, _):
        switch role {
        case .original: .afterOriginal
        case .sidecar: .afterSidecar
        case .render: .afterRender
        }
      }
    }

    var json: JSONValue {
      switch self {
      case .preserve(let sha): .object(["step": .string("preserve"), "sha256": sha.json])
      case .replace(let temp, let role, let sha):
        .object([
          "step": .string("replace"), "temp": .string(temp), "role": .string(role.rawValue),
          "sha256": sha.json,
        ])
      case .remove(let role, let guardSHA):
        .object(
          ["step": .string("remove"), "role": .string(role.rawValue)].merging(
            guardSHA.map { ["guardSHA256": $0.json] } ?? [:], uniquingKeysWith: { a, _ in a }))
      }
    }

    /// Reads a step, or nil when it is not one this program writes for `paths`' photo: a
    /// temporary file of another name, a role a step of its kind never has, a checksum that is
    /// not one, an unknown key.
    init?(json: JSONValue, paths: PhotoPaths) {
      guard let o = json.object, let kind = o["step"]?.string else { return nil }
      func sha(_ key: String) -> SHA256Digest? { SHA256Digest(o[key]) }
      let role = o["role"]?.string.flatMap(Role.init(rawValue:))
      switch kind {
      case "preserve":
        guard Set(o.keys) == ["step", "sha256"], let sha = sha("sha256") else { return nil }
        self = .preserve(sha256: sha)
      case "replace":
        guard Set(o.keys) == ["step", "temp", "role", "sha256"], let temp = o["temp"]?.string,
          paths.isTempName(temp), let role, role != .original, let sha = sha("sha256")
        else { return nil }
        self = .replace(temp: temp, role: role, sha256: sha)
      case "remove":
        guard let role, role != .render else { return nil }
        if role == .original {
          guard Set(o.keys) == ["step", "role", "guardSHA256"], let guardSHA = sha("guardSHA256") else {
            return nil
          }
          self = .remove(role: role, guardSHA256: guardSHA)
        } else {
          guard Set(o.keys) == ["step", "role"] else { return nil }
          self = .remove(role: role, guardSHA256: nil)
        }
      default:
        return nil
      }
    }
  }

  var steps: [Step]

  func encoded() -> [UInt8] { JSONCoding.encode(JSONValue.object(["steps": .array(steps.map(\.json))])) }

  /// Reads a journal for `paths`' photo, or nil when it is not one this program wrote.
  init?(_ bytes: [UInt8], paths: PhotoPaths) {
    guard let json = try? JSONParser.parse(bytes), let o = json.object,
      Set(o.keys) == ["steps"], let list = o["steps"]?.array, (1...8).contains(list.count)
    else { return nil }
    var steps: [Step] = []
    for item in list {
      guard let step = Step(json: item, paths: paths) else { return nil }
      steps.append(step)
    }
    self.steps = steps
  }

  init(steps: [Step]) { self.steps = steps }
}

/// One edit of one photo's files, built up from staged temporary files and committed at once.
struct Transaction {
  let paths: PhotoPaths
  private(set) var staged: [String] = []
  private(set) var steps: [Journal.Step] = []

  init(_ paths: PhotoPaths) { self.paths = paths }

  /// Writes `bytes` to a new synced temporary file in the photo's folder; returns its name.
  mutating func stage(_ bytes: [UInt8], access: FileSystem.NewFileAccess) throws(StoreError) -> String {
    let name = paths.newTempName()
    let first = staged.isEmpty
    do {
      try paths.createSynced(name, bytes: bytes, access: access) {
        if first { CrashPoint.midTemp.reached(in: paths.directory) }
      }
    } catch {
      abandon()
      throw .cannotWrite(path: paths.inFolder(name), error.system)
    }
    staged.append(name)
    return name
  }

  /// A temporary name for an existing file of the folder (`entry`, a name in it): a hard link,
  /// or a synced copy where the file system has none.
  mutating func stageCopy(
    of entry: String, bytes: [UInt8], access: FileSystem.NewFileAccess
  ) throws(StoreError) -> String {
    let name = paths.newTempName()
    do {
      try paths.link(entry, to: name)
    } catch {
      guard error.linkUnsupported else {
        abandon()
        throw .cannotWrite(path: paths.inFolder(name), error.system)
      }
      return try stage(bytes, access: access)
    }
    staged.append(name)
    return name
  }

  mutating func add(_ step: Journal.Step) { steps.append(step) }

  /// Proves, before the commit point, that every step is permitted, so that a permission error
  /// never strands a half-run journal: writing in the folder is proven by the staged files; a
  /// rename over, or a removal of, an existing file of the photo is checked against the sticky
  /// bit (another user's photo in a shared `/tmp`-like folder); preserving the original is
  /// tried as a hard link under a temporary name, removed at once (a file system or a policy
  /// without such links takes the copy route, which needs only the folder).
  func provePermitted() throws(StoreError) {
    for step in steps {
      switch step {
      case .preserve:
        if paths.exists(paths.originalName) { continue }
        let trial = paths.newTempName()
        do {
          try paths.link(paths.name, to: trial)
          try paths.remove(trial)
        } catch {
          if error.linkUnsupported { continue }
          try? paths.remove(trial)
          throw .cannotWrite(path: paths.original, error.system)
        }
      case .replace(_, let role, _), .remove(let role, _):
        let (target, shown) =
          switch role {
          case .original: (paths.originalName, paths.original)
          case .sidecar: (paths.sidecarName, paths.sidecar)
          case .render: (paths.name, paths.photo)
          }
        do { try paths.checkReplaceable(target) } catch {
          throw .cannotWrite(path: shown, error.system)
        }
      }
    }
  }

  /// Removes every staged temporary file (the edit is abandoned; nothing else was touched).
  func abandon() {
    for name in staged { try? paths.remove(name) }
  }

  /// Writes the journal (the commit point), runs its steps, and removes it.
  ///
  /// - Throws: `.cannotWrite` before the commit point (all temporary files are then removed and
  ///   nothing changed), among others when a step would not be permitted (`provePermitted`);
  ///   after it, `.interrupted` if a step fails (the journal stays for repair).
  func commit() throws(StoreError) {
    CrashPoint.afterTemps.reached(in: paths.directory)
    do { try provePermitted() } catch {
      abandon()
      throw error
    }
    let journal = Journal(steps: steps)
    let journalTemp = paths.newTempName()
    do {
      try paths.createSynced(journalTemp, bytes: journal.encoded(), access: .init(mode: 0o644))
      try paths.rename(journalTemp, to: paths.journalName)
      try paths.syncFolder()
    } catch {
      try? paths.remove(journalTemp)
      // A rename that failed left no journal; a failed folder sync after it must not strand one.
      if paths.exists(paths.journalName) { try? paths.remove(paths.journalName) }
      abandon()
      throw .cannotWrite(path: paths.directory, error.system)
    }
    CrashPoint.afterJournal.reached(in: paths.directory)
    try Recovery.run(journal, paths: paths, verify: false)
  }
}
