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
  func inspect(_ photo: String) -> Inspection {
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
    if !FileSystem.exists(photo) && !FileSystem.exists(paths.sidecar) { throw .missing(path: photo) }
    if FileSystem.exists(paths.journal) { throw .interrupted }
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
    if !FileSystem.exists(photo) && !FileSystem.exists(paths.sidecar) && !FileSystem.exists(paths.journal) {
      throw .missing(path: photo)
    }
    var lines: [String] = []
    if repair && !settings.dryRun {
      let outcome = try locked(paths) { outcome throws(StoreError) in outcome }
      lines += outcome.lines
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
