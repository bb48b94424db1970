import Codecs
import PhotoCore
import Recipe

/// The one place that turns the store's outcomes into words (text lines) and `--json` fields.
extension FileResult {
  init(_ o: ApplyOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "operations": .number(Double(o.stepCount)), "added": .array(o.added.map { .string($0.filter) }),
      "render": .string(o.renderSHA256),
    ]
    if let output = o.output { fields["output"] = .string(output) }
    if o.dryRun { fields["dryRun"] = .bool(true) }
    lines = Self.lines(o.recovery)
    let names = o.added.map(\.filter).joined(separator: ", ")
    lines.append(
      "\(o.dryRun ? "would apply" : "applied") \(names)\(o.output.map { " to \($0)" } ?? "") (\(Self.count(o.stepCount, "operation")))"
    )
  }

  init(_ o: HistoryOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "operations": .number(Double(o.stepCount)), "undone": .number(Double(o.undoneCount)),
      (o.undid ? "removed" : "restored"): .string(o.moved.filter), "render": .string(o.renderSHA256),
    ]
    lines = Self.lines(o.recovery)
    let verb = o.dryRun ? (o.undid ? "would undo" : "would redo") : (o.undid ? "undid" : "redid")
    lines.append(
      "\(verb) \(o.moved.filter) (\(Self.count(o.stepCount, "operation")), \(o.undoneCount) undone)")
  }

  init(_ o: RevertOutcome) {
    self.init()
    lines = Self.lines(o.recovery)
    guard o.reverted, let sha = o.originalSHA256 else {
      fields = ["reverted": .bool(false)]
      lines.append("unedited; nothing to revert")
      return
    }
    fields = ["reverted": .bool(true), "original": .string(sha)]
    if let c = o.conversion {
      fields["converted"] = .string(c.written.rawValue)
      lines.append(
        "\(o.dryRun ? "would revert" : "reverted") to the original, re-encoded as \(c.written.displayName) for this name (the original, \(o.originalPath ?? ""), is a \(c.original.displayName))"
      )
    } else {
      lines.append(
        o.dryRun ? "would revert to the original" : "reverted to the original (sha256 \(sha.prefix(12)))")
    }
  }

  init(_ o: RenderOutcome) {
    self.init(warnings: o.warnings)
    fields = ["render": .string(o.renderSHA256), "changed": .bool(o.changed)]
    lines = Self.lines(o.recovery)
    lines.append(
      o.changed
        ? "\(o.dryRun ? "would re-render" : "re-rendered") (\(Self.count(o.stepCount, "operation")))"
        : "render is current")
  }

  init(_ o: ExportOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "output": .string(o.output), "width": .number(Double(o.width)), "height": .number(Double(o.height)),
      "render": .string(o.renderSHA256),
    ]
    lines = Self.lines(o.recovery)
    lines.append("\(o.dryRun ? "would export" : "exported") \(o.output) (\(o.width)x\(o.height))")
  }

  init(status s: PhotoStatus) {
    self.init()
    fields = ["state": .string(s.state.rawValue)]
    if let problem = s.problem { fields["reason"] = .string(ErrorText.message(problem)) }
    var line = s.state.rawValue
    if let data = s.data {
      fields["operations"] = .number(Double(data.steps.count))
      if s.state == .edited { line += " (\(Self.count(data.steps.count, "operation")))" }
    }
    if let problem = s.problem { line += ": \(ErrorText.message(problem))" }
    lines = [line]
  }

  init(show s: PhotoStatus) {
    self.init()
    guard let data = s.data, let original = data.original, let render = data.render else {
      fields = ["state": .string("unedited"), "operations": .array([]), "undone": .array([])]
      lines = ["unedited"]
      return
    }
    let reason = s.problem.map(ErrorText.message)
    fields = [
      "state": .string(s.state.rawValue), "formatVersion": .number(Double(data.formatVersion)),
      "operations": .array(data.steps.map(\.stored)), "undone": .array(data.undone.map(\.stored)),
      "original": .object([
        "path": .string(original.path), "sha256": .string(original.sha256),
        "bytes": .number(Double(original.bytes)),
        "width": .number(Double(original.width)), "height": .number(Double(original.height)),
        "orientation": .number(Double(original.orientation)),
      ]),
      "render": Self.json(render), "current": .bool(s.state == .edited),
    ]
    if let version = s.migratedFrom { fields["migratedFrom"] = .number(Double(version)) }
    if let reason { fields["reason"] = .string(reason) }
    lines = [
      "\(s.state.rawValue): \(Self.count(data.steps.count, "operation")), \(data.undone.count) undone"
        + (reason.map { " (\($0))" } ?? ""),
      "original: \(original.path), \(original.width)x\(original.height), \(original.bytes) bytes, orientation \(original.orientation), sha256 \(original.sha256.prefix(12))",
      "render: \(render.format.rawValue), quality \(render.quality)\(render.subsampling.map { ", \($0.rawValue)" } ?? ""), sha256 \(render.sha256.prefix(12)), \(s.state == .edited ? "current" : "not current")",
    ]
    for (i, step) in data.steps.enumerated() { lines.append("\(i + 1). \(Self.describe(step))") }
    for step in data.undone.reversed() { lines.append("undone: \(Self.describe(step))") }
  }

  init(_ o: CheckOutcome) {
    self.init()
    lines = Self.lines(o.recovery)
    if let r = o.rerendered { lines += FileResult(r).lines }
    if o.absent {
      fields = ["state": .string("absent")]
      return
    }
    fields = ["state": .string(o.state.rawValue)]
    if let n = o.stepCount {
      fields["operations"] = .number(Double(n))
      lines.append("ok: original and render match the sidecar")
    } else {
      lines.append("ok: unedited")
    }
  }

  init(_ o: DetectOutcome) {
    self.init(warnings: o.warnings)
    fields["width"] = .number(Double(o.width))
    fields["height"] = .number(Double(o.height))
    fields["faces"] = .array(
      o.faces.map { f in
        .object([
          "x": .number(f.x), "y": .number(f.y), "width": .number(f.width), "height": .number(f.height),
        ])
      })
    if let original = o.searchedOriginal { fields["searched"] = .string(original) }
    lines = ["\(Self.count(o.faces.count, "face")) (\(o.width)x\(o.height))"]
    if let original = o.searchedOriginal { lines[0] += ", searched in its original \(original)" }
    for (i, f) in o.faces.enumerated() {
      lines.append(
        "  #\(i)  x=\(ValueText.number(f.x)) y=\(ValueText.number(f.y)) width=\(ValueText.number(f.width)) height=\(ValueText.number(f.height))"
      )
    }
  }

  // MARK: Pieces

  static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

  /// What cleaning up after a crash did, as lines.
  static func lines(_ r: CrashRecovery) -> [String] {
    var lines: [String] = []
    if r.finishedEdit { lines.append("finished an edit that a crash had interrupted") }
    if r.removedTemporaryFiles > 0 {
      lines.append("removed \(count(r.removedTemporaryFiles, "temporary file")) a crash left behind")
    }
    return lines
  }

  static func json(_ r: RenderRecord) -> JSONValue {
    var o: [String: JSONValue] = [
      "sha256": .string(r.sha256), "format": .string(r.format.rawValue),
      "quality": .number(Double(r.quality)),
    ]
    if let s = r.subsampling { o["subsampling"] = .string(s.rawValue) }
    return .object(o)
  }

  /// `sepia v1 intensity=0.8`, with derived state summarised (`[faces: 2]`).
  static func describe(_ step: Step) -> String {
    var text = "\(step.filter) v\(step.version)"
    guard case .object(let o) = step.stored else { return text }
    let parameters = o["parameters"]?.object ?? [:]
    for key in parameters.keys.sorted() { text += " \(key)=\(describe(parameters[key]!))" }
    let derived = o["derived"]?.object ?? [:]
    for key in derived.keys.sorted() {
      if let list = derived[key]!.array {
        text += " [\(key): \(list.count)]"
      } else {
        text += " [\(key)=\(describe(derived[key]!))]"
      }
    }
    return text
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let b): "\(b)"
    case .number(let n): ValueText.number(n)
    case .string(let s): s
    case .array(let a): a.map(describe).joined(separator: "/")
    case .object(let o):
      "{" + o.keys.sorted().map { "\($0): \(describe(o[$0]!))" }.joined(separator: ", ") + "}"
    }
  }
}
