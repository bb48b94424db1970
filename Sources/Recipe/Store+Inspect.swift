import Codecs
import PhotoCore

/// What `status` says about a photo.
enum PhotoState: String, Sendable {
  /// No sidecar: the photo is as it came.
  case unedited
  /// Sidecar, original and render all agree.
  case edited
  /// The render is missing, or was made from an older recipe format: `render` refreshes it.
  case stale
  /// The render's checksum differs from the sidecar's: another program changed it.
  case modified
  /// The sidecar is unreadable or refused, the original is missing or changed, or an edit was
  /// interrupted.
  case damaged
}

extension Store {
  struct Inspection {
    var state: PhotoState
    var reason: String?
    var read: AdjustmentData.ReadResult?
    var edited: Edited?
  }

  /// Reads a photo's store without changing anything and classifies it.
  ///
  /// Readers take no lock, so a writer may commit while we read: the sidecar is read again at the
  /// end and the journal checked on both sides, and the reading is repeated (for up to about two
  /// seconds while another photoedit holds the photo's lock) until nothing moved meanwhile. A
  /// half-seen edit is therefore never reported as "modified".
  func inspect(_ photo: String) -> Inspection {
    let paths = PhotoPaths(photo)
    var inspection = Inspection(state: .damaged)
    for _ in 0..<100 {
      let sidecarBefore = try? FileSystem.read(paths.sidecar)
      let journalBefore = FileSystem.exists(paths.journal)
      inspection = inspectOnce(photo)
      let settled =
        !journalBefore && !FileSystem.exists(paths.journal)
        && sidecarBefore == (try? FileSystem.read(paths.sidecar))
      if settled { return inspection }
      // A journal nobody is working on is a crash's: report it.
      let writerAlive = FileSystem.Lock.isHeld(paths.lock)
      if FileSystem.exists(paths.journal) && !writerAlive { return inspection }
      if writerAlive { FileSystem.sleep(microseconds: 20_000) }
    }
    return inspection
  }

  /// Waits (up to about two seconds) while a journal is present and its writer is still alive.
  static func waitWhileAnotherCommandCommits(_ paths: PhotoPaths) {
    for _ in 0..<100 {
      guard FileSystem.exists(paths.journal), FileSystem.Lock.isHeld(paths.lock) else { return }
      FileSystem.sleep(microseconds: 20_000)
    }
  }

  private func inspectOnce(_ photo: String) -> Inspection {
    do { try Self.refuseStoreFile(photo) } catch {
      return Inspection(state: .damaged, reason: error.description)
    }
    let paths = PhotoPaths(photo)
    if FileSystem.exists(paths.journal) {
      return Inspection(state: .damaged, reason: StoreError.interrupted.description)
    }
    let read: AdjustmentData.ReadResult?
    do { read = try loadSidecar(paths) } catch {
      return Inspection(state: .damaged, reason: error.description)
    }
    guard let read else {
      if FileSystem.exists(paths.original) {
        return Inspection(
          state: .damaged, reason: StoreError.strayOriginal(original: paths.original).description)
      }
      if !FileSystem.exists(photo) {
        return Inspection(state: .damaged, reason: StoreError.missing(path: photo).description)
      }
      return Inspection(state: .unedited)
    }
    let edited: Edited
    do { edited = try loadEdited(paths, read) } catch {
      return Inspection(state: .damaged, reason: error.description, read: read)
    }
    var inspection = Inspection(state: .edited, read: read, edited: edited)
    if edited.renderSHA256 == nil {
      inspection.state = .stale
      inspection.reason = "the render is missing; 'photoedit render' recreates it"
    } else if edited.isModified {
      inspection.state = .modified
      inspection.reason =
        "the render was modified by another program; 'photoedit render --force' replaces it, 'photoedit revert --force' restores the original"
    } else if let version = read.migratedFrom {
      inspection.state = .stale
      inspection.reason = "the sidecar has format version \(version); 'photoedit render' updates it"
    } else if read.operationsMigrated {
      inspection.state = .stale
      inspection.reason = "an operation has an older filter version; 'photoedit render' updates it"
    }
    return inspection
  }

  func status(_ photo: String) -> PhotoReport {
    let inspection = inspect(photo)
    var report = PhotoReport(fields: ["state": .string(inspection.state.rawValue)])
    if let reason = inspection.reason { report.fields["reason"] = .string(reason) }
    var line = inspection.state.rawValue
    if let data = inspection.read?.data {
      report.fields["operations"] = .number(Double(data.operations.count))
      if inspection.state == .edited { line += " (\(Self.count(data.operations.count, "operation")))" }
    }
    if let reason = inspection.reason { line += ": \(reason)" }
    report.lines = [line]
    return report
  }

  func show(_ photo: String) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    Self.waitWhileAnotherCommandCommits(paths)
    if FileSystem.exists(paths.journal) { throw .interrupted }
    if !paths.anythingExists { throw .missing(path: photo) }
    guard let read = try loadSidecar(paths) else {
      if FileSystem.exists(paths.original) { throw .strayOriginal(original: paths.original) }
      return PhotoReport(
        fields: ["state": .string("unedited"), "operations": .array([]), "undone": .array([])],
        lines: ["unedited"])
    }
    let inspection = inspect(photo)
    let data = read.data
    let original = data.original!
    let render = data.render!
    var fields: [String: JSONValue] = [
      "state": .string(inspection.state.rawValue),
      "formatVersion": .number(Double(data.formatVersion)),
      "operations": Self.json(data.operations),
      "undone": Self.json(data.undone),
      "original": Self.json(original),
      "render": Self.json(render),
      "current": .bool(inspection.state == .edited),
    ]
    if let version = read.migratedFrom { fields["migratedFrom"] = .number(Double(version)) }
    if let reason = inspection.reason { fields["reason"] = .string(reason) }
    var lines = [
      "\(inspection.state.rawValue): \(Self.count(data.operations.count, "operation")), \(data.undone.count) undone"
        + (inspection.reason.map { " (\($0))" } ?? "")
    ]
    lines.append(
      "original: \(original.path), \(original.width)x\(original.height), \(original.bytes) bytes, orientation \(original.orientation), sha256 \(original.sha256.prefix(12))"
    )
    lines.append(
      "render: \(render.format), quality \(render.quality)\(render.subsampling.map { ", \($0)" } ?? ""), sha256 \(render.sha256.prefix(12)), \(inspection.state == .edited ? "current" : "not current")"
    )
    for (i, operation) in data.operations.enumerated() {
      lines.append("\(i + 1). \(Self.describe(operation))")
    }
    for operation in data.undone.reversed() { lines.append("undone: \(Self.describe(operation))") }
    return PhotoReport(fields: fields, lines: lines)
  }

  /// `sepia v1 intensity=0.8`, with derived state summarised (`faces: 2`).
  static func describe(_ operation: Operation) -> String {
    var text = "\(operation.filter) v\(operation.version)"
    for key in operation.parameters.keys.sorted() {
      text += " \(key)=\(describe(operation.parameters[key]!))"
    }
    for key in operation.derived.keys.sorted() {
      if let list = operation.derived[key]!.array {
        text += " [\(key): \(list.count)]"
      } else {
        text += " [\(key)=\(describe(operation.derived[key]!))]"
      }
    }
    return text
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let b): "\(b)"
    case .number(let n): n == n.rounded() && abs(n) < 1e15 ? "\(Int64(n))" : "\(n)"
    case .string(let s): s
    case .array(let a): a.map(describe).joined(separator: "/")
    case .object(let o):
      "{" + o.keys.sorted().map { "\($0): \(describe(o[$0]!))" }.joined(separator: ", ") + "}"
    }
  }

  static func json<T: Encodable>(_ value: T) -> JSONValue {
    (try? JSONCoding.decode(JSONValue.self, from: JSONCoding.encode(value))) ?? .null
  }

  // MARK: check

  func check(_ photo: String, repair: Bool) throws(StoreError) -> PhotoReport {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    var lines: [String] = []
    if repair && !settings.dryRun {
      // Recovery first: a crash may have left only a journal or temporary files.
      let outcome = try locked(paths, scanFolder: true) { outcome throws(StoreError) in outcome }
      lines += outcome.lines
    }
    if !FileSystem.exists(photo) && !FileSystem.exists(paths.sidecar) {
      if !lines.isEmpty { return PhotoReport(fields: ["state": .string("absent")], lines: lines) }
      throw .missing(path: photo)
    }
    if repair && !settings.dryRun {
      let inspection = inspect(photo)
      if inspection.state == .stale {
        var store = self
        store.settings.force = false
        let report = try store.render(photo, output: nil, maxSize: nil)
        lines += report.lines
      }
    }
    let inspection = inspect(photo)
    switch inspection.state {
    case .unedited, .edited:
      var report = PhotoReport(fields: ["state": .string(inspection.state.rawValue)], lines: lines)
      if let data = inspection.read?.data {
        report.fields["operations"] = .number(Double(data.operations.count))
        report.lines.append("ok: original and render match the sidecar")
      } else {
        report.lines.append("ok: unedited")
      }
      return report
    case .stale, .modified, .damaged:
      throw .checkFailed("\(inspection.state.rawValue): \(inspection.reason ?? "")")
    }
  }
}
