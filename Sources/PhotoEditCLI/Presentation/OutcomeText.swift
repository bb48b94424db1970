import Codecs
import PhotoCore
import Recipe
import Store

/// The one place that turns the store's outcomes into words (text lines) and `--json` fields.
extension FileResult {
  init(_ o: ApplyOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "operations": .number(Double(o.stepCount)), "added": .array(o.added.map { .string($0.filter) }),
      "render": .string(o.renderSHA256.hex),
    ]
    if let output = o.output { fields["output"] = .string(output) }
    if o.dryRun { fields["dryRun"] = .bool(true) }
    lines = Self.lines(o.recovery)
    if o.current {
      current = true
      lines.append(
        "\(o.output ?? "the output") is current (\(Self.count(o.stepCount, "operation"))); nothing to do")
      return
    }
    let names = o.added.map(\.filter).joined(separator: ", ")
    var line =
      "\(o.dryRun ? "would apply" : "applied") \(names)\(o.output.map { " to \($0)" } ?? "") (\(Self.count(o.stepCount, "operation")))"
    let hidden = o.added.compactMap(Self.facesHidden)
    if !hidden.isEmpty {
      let faces = hidden.reduce(0) { $0 + $1.hidden }
      let found = hidden.reduce(0) { $0 + $1.all }
      let stronger = hidden.reduce(0) { $0 + $1.strengthened }
      fields["faces"] = .number(Double(faces))
      fields["strengthened"] = .number(Double(stronger))
      if found == 0 {
        noFaceFound = true
        line +=
          o.added.count == 1 ? ": no face found; the photo's pixels are as they were" : ": no face found"
      } else {
        var notes: [String] = []
        if faces < found { notes.append("\(found - faces) excluded") }
        if stronger > 0 { notes.append("\(stronger) hidden more strongly to pass the check") }
        line +=
          ": \(Self.count(faces, "face")) hidden"
          + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
      }
    }
    lines.append(line)
  }

  /// The faces a faceblur step hides, all it lists, and how many of the hidden ones needed a
  /// stronger hiding to pass its check.
  static func facesHidden(_ step: Step) -> (hidden: Int, all: Int, strengthened: Int)? {
    guard let (p, d) = step.typed(FaceblurFilter.self) else { return nil }
    let excluded = Set(p.exclude).filter { d.faces.indices.contains($0) }
    let stronger = d.faces.indices.filter { !excluded.contains($0) && d.level($0) > 0 }.count
    return (d.faces.count - excluded.count, d.faces.count, stronger)
  }

  init(_ o: HistoryOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "operations": .number(Double(o.stepCount)), "undone": .number(Double(o.undoneCount)),
      (o.undid ? "undid" : "redid"): Self.json(o.change), "render": .string(o.renderSHA256.hex),
    ]
    lines = Self.lines(o.recovery)
    let verb = o.dryRun ? (o.undid ? "would undo" : "would redo") : (o.undid ? "undid" : "redid")
    lines.append(
      "\(verb) \(Self.describe(o.change)) (\(Self.count(o.stepCount, "operation")), \(o.undoneCount) undone)")
    if o.stepCount == 0 { lines.append(Self.noStepLeft(strippingIdentifying: o.stripsIdentifying)) }
  }

  init(_ o: EditOutcome) {
    self.init(warnings: o.warnings)
    fields = [
      "operations": .number(Double(o.stepCount)), "change": Self.json(o.change),
      "render": .string(o.renderSHA256.hex),
    ]
    if o.dryRun { fields["dryRun"] = .bool(true) }
    if !o.notes.isEmpty { fields["notes"] = .array(o.notes.map { .string(Self.describe($0)) }) }
    lines = Self.lines(o.recovery)
    if o.unchanged {
      current = true
      lines.append(
        "\(Self.describeUnchanged(o.change)); nothing changed (\(Self.count(o.stepCount, "operation")))")
      return
    }
    if o.renderedOnly {
      lines.append(
        "\(Self.describeUnchanged(o.change)); \(o.dryRun ? "would render" : "rendered") again as asked"
          + (o.stripsIdentifying ? ", without identifying metadata" : "")
          + " (\(Self.count(o.stepCount, "operation")))")
      return
    }
    lines.append(
      "\(o.dryRun ? "would make the \(Self.describe(o.change))" : Self.describePast(o.change)) (\(Self.count(o.stepCount, "operation")))"
    )
    warnings += o.notes.map(Self.describe)
    // Later steps made again: faceblur looked for its faces in the image it now receives.
    var refreshed: [JSONValue] = []
    for r in o.change.refreshed {
      let faces = Self.facesHidden(r.after)
      let notes = o.refreshed.first { $0.step == r.step }?.notes ?? []
      var entry: [String: JSONValue] = ["step": .number(Double(r.step)), "filter": .string(r.after.filter)]
      if let faces { entry["faces"] = .number(Double(faces.hidden)) }
      if !notes.isEmpty { entry["notes"] = .array(notes.map { .string(Self.describe($0)) }) }
      refreshed.append(.object(entry))
      lines.append(
        "  step \(r.step) (\(r.after.filter)) made again for the image it now receives"
          + (faces.map { ": \(Self.count($0.hidden, "face")) hidden" } ?? ""))
      warnings += notes.map { "step \(r.step) (\(r.after.filter)): \(Self.describe($0))" }
    }
    if !refreshed.isEmpty { fields["refreshed"] = .array(refreshed) }
    if o.stepCount == 0 { lines.append(Self.noStepLeft(strippingIdentifying: o.stripsIdentifying)) }
  }

  /// The line under an undo or edit that leaves no step: the photo is its original, or its
  /// pixels without identifying metadata when renders strip it.
  static func noStepLeft(strippingIdentifying: Bool) -> String {
    strippingIdentifying
      ? "  no step left: the photo is its original without identifying metadata"
        + " (render --keep-identifying, or revert, gives back its exact bytes)"
      : "  no step left: the photo is its original"
  }

  /// `apply sepia, vignette`, `edit of step 2 (vignette)`, ...
  static func describe(_ change: Change) -> String {
    switch change {
    case .apply(let added): "apply \(added.map(\.filter).joined(separator: ", "))"
    case .edit(let n, _, let after): "edit of step \(n) (\(after.filter))"
    case .remove(let n, let removed): "removal of step \(n) (\(removed.filter))"
    case .move(let from, let to): "move of step \(from) to \(to)"
    case .refreshing(let base, let refreshed):
      describe(base) + " (with step\(refreshed.count == 1 ? "" : "s") "
        + refreshed.map { "\($0.step)" }.joined(separator: ", ") + " made again)"
    }
  }

  /// `step 2 (vignette) already has these values`, `step 3 is already step 3`.
  static func describeUnchanged(_ change: Change) -> String {
    switch change {
    case .edit(let n, _, let after): "step \(n) (\(after.filter)) already has these values"
    case .move(let from, _): "step \(from) is already there"
    default: describe(change)
    }
  }

  static func describePast(_ change: Change) -> String {
    switch change {
    case .apply(let added): "applied \(added.map(\.filter).joined(separator: ", "))"
    case .edit(let n, _, let after): "changed step \(n) (\(after.filter))"
    case .remove(let n, let removed): "removed step \(n) (\(removed.filter))"
    case .move(let from, let to): "moved step \(from) to \(to)"
    case .refreshing(let base, _): describePast(base)
    }
  }

  static func describe(_ note: RevisionNote) -> String {
    switch note {
    case .exclusionDropped(let face):
      "exclude=\(face) matches no face found again, so it was dropped: every face found is hidden"
    case .exclusionDroppedWithImage(let face):
      "exclude=\(face) was dropped: the image entering the step changed, and its faces with it, so every face found is hidden"
    case .exclusionMoved(let from, let to): "exclude=\(from) is face \(to) among the faces found again"
    case .facesFoundAgain(let count):
      "the image entering it changed, so its faces were found again: \(Self.count(count, "face"))"
    case .addedFacesKept(let count):
      "its \(Self.count(count, "added face")) kept their places as fractions of the changed image: check they still cover the faces meant (edit --set add=...)"
    case .strengthRaised(let key, let from, let to):
      "\(key)=\(ValueText.value(from)) hid faces more weakly than photoedit now allows, so it became \(key)=\(ValueText.value(to))"
    }
  }

  static func json(_ change: Change) -> JSONValue {
    switch change {
    case .apply(let added):
      .object(["change": .string("apply"), "filters": .array(added.map { .string($0.filter) })])
    case .edit(let n, _, let after):
      .object(["change": .string("edit"), "step": .number(Double(n)), "filter": .string(after.filter)])
    case .remove(let n, let removed):
      .object(["change": .string("remove"), "step": .number(Double(n)), "filter": .string(removed.filter)])
    case .move(let from, let to):
      .object(["change": .string("move"), "from": .number(Double(from)), "to": .number(Double(to))])
    case .refreshing(let base, let refreshed):
      .object(
        (json(base).object ?? [:]).merging(
          ["refreshed": .array(refreshed.map { .number(Double($0.step)) })], uniquingKeysWith: { $1 }))
    }
  }

  init(_ o: RevertOutcome) {
    self.init()
    lines = Self.lines(o.recovery)
    guard o.reverted, let sha = o.originalSHA256 else {
      fields = ["reverted": .bool(false)]
      current = true
      lines.append("unedited; nothing to revert")
      return
    }
    fields = ["reverted": .bool(true), "original": .string(sha.hex)]
    if let u = o.unverified {
      fields["unverified"] = .bool(true)
      fields["removed"] = .array(o.removed.map(JSONValue.string))
      lines.append(
        "\(o.dryRun ? "would put" : "put") \(o.originalPath ?? "") (\(u.bytes) bytes, modified \(Self.date(u.modified))) back as it is, unverified: the sidecar could not be read; \(o.dryRun ? "would remove" : "removed") \(o.removed.joined(separator: ", "))"
      )
      return
    }
    if let c = o.conversion {
      fields["converted"] = .string(c.written.rawValue)
      lines.append(
        "\(o.dryRun ? "would revert" : "reverted") to the original, re-encoded as \(c.written.displayName) for this name (the original, \(o.originalPath ?? ""), is a \(c.original.displayName))"
      )
    } else {
      lines.append(
        o.dryRun ? "would revert to the original" : "reverted to the original (sha256 \(sha.hex.prefix(12)))")
    }
  }

  init(_ o: RenderOutcome) {
    self.init(warnings: o.warnings)
    fields = ["render": .string(o.renderSHA256.hex), "changed": .bool(o.changed)]
    current = !o.changed
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
      "render": .string(o.renderSHA256.hex),
    ]
    lines = Self.lines(o.recovery)
    current = o.current
    if o.unedited { fields["unedited"] = .bool(true) }
    if o.current {
      lines.append("\(o.output) is current (\(o.width)x\(o.height)); nothing to do")
      return
    }
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
    if let review = s.data?.review, let changed = s.changedSinceReview {
      fields["review"] = Self.json(review, changed: changed)
      line += "; " + Self.describe(review, changed: changed)
    }
    lines = [line]
  }

  /// A sidecar's review record as `status` and `show` give it in JSON.
  static func json(_ review: ReviewRecord, changed: Bool) -> JSONValue {
    .object([
      "state": .string(review.state.rawValue), "time": .string(review.time.iso8601),
      "render": .string(review.render.hex), "changedSince": .bool(changed),
    ])
  }

  /// `approved 2026-12-06 18:40 UTC`, and `, changed since review` when it is.
  static func describe(_ review: ReviewRecord, changed: Bool) -> String {
    "\(review.state.rawValue) \(review.time.display)" + (changed ? ", changed since review" : "")
  }

  init(show s: PhotoStatus) {
    self.init()
    guard let data = s.data, let original = data.original, let render = data.render else {
      fields = [
        "state": .string("unedited"), "operations": .array([]), "steps": .array([]), "undone": .array([]),
      ]
      lines = ["unedited"]
      return
    }
    let reason = s.problem.map(ErrorText.message)
    let current = s.state == .edited || s.state == .unedited
    fields = [
      "state": .string(s.state.rawValue), "formatVersion": .number(Double(data.formatVersion)),
      "operations": .array(data.steps.map(\.stored)),
      "steps": .array(data.steps.enumerated().map { Self.controls($0.offset + 1, $0.element) }),
      "history": .array(data.history.map(Self.json)), "undone": .array(data.undone.map(Self.json)),
      "original": .object([
        "path": .string(original.path), "sha256": .string(original.sha256.hex),
        "bytes": .number(Double(original.bytes)),
        "width": .number(Double(original.width)), "height": .number(Double(original.height)),
        "orientation": .number(Double(original.orientation)),
      ]),
      "render": Self.json(render), "current": .bool(current),
    ]
    if let version = s.migratedFrom { fields["migratedFrom"] = .number(Double(version)) }
    if let reason { fields["reason"] = .string(reason) }
    lines = [
      "\(s.state.rawValue): \(Self.count(data.steps.count, "operation")), \(data.undone.count) undone"
        + (reason.map { " (\($0))" } ?? ""),
      "original: \(original.path), \(original.width)x\(original.height), \(original.bytes) bytes, orientation \(original.orientation), sha256 \(original.sha256.hex.prefix(12))",
      "render: \(render.format.rawValue), \(Self.route(render))\(render.subsampling.map { ", \($0.rawValue)" } ?? ""), sha256 \(render.sha256.hex.prefix(12)), \(current ? "current" : "not current")",
      render.metadata == .stripped
        ? "metadata: identifying metadata stripped (GPS, serial numbers, names, XMP, IPTC places, comments)"
        : "metadata: the original's, kept (--strip-identifying removes what identifies)",
    ]
    if let review = data.review, let changed = s.changedSinceReview {
      fields["review"] = Self.json(review, changed: changed)
      lines.append("review: " + Self.describe(review, changed: changed))
    }
    for (i, step) in data.steps.enumerated() { lines += Self.describe(step, number: i + 1) }
    for change in data.undone.reversed() { lines.append("undone: \(Self.describe(change))") }
  }

  /// One step as a front end restores its controls from it: its number, filter and version, and
  /// every parameter (set or not) with its value, its text as the command line writes it, its
  /// default, type and range; then the derived state.
  static func controls(_ number: Int, _ step: Step) -> JSONValue {
    let set = Dictionary(step.values.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    let stored = step.stored.object?["parameters"]?.object ?? [:]
    var parameters: [String: JSONValue] = [:]
    for p in step.declaration.parameters {
      parameters[p.name] = .object([
        "value": stored[p.name] ?? .null, "text": set[p.name].map { .string(ValueText.value($0)) } ?? .null,
        "default": p.defaultValue.map { .string(ValueText.value($0)) } ?? .null,
        "type": .string(ValueText.typeName(p.kind)), "range": .string(ValueText.range(p.kind)),
      ])
    }
    var o: [String: JSONValue] = [
      "step": .number(Double(number)), "filter": .string(step.filter),
      "version": .number(Double(step.version)),
      "parameters": .object(parameters),
    ]
    if let derived = step.stored.object?["derived"] { o["derived"] = derived }
    return .object(o)
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
    fields["detector"] = .string(o.detector)
    fields["faces"] = .array(
      o.faces.map { f in
        var face: [String: JSONValue] = [
          "x": .number(f.x), "y": .number(f.y), "width": .number(f.width), "height": .number(f.height),
        ]
        if let score = f.score { face["score"] = .number(score) }
        if !f.landmarks.isEmpty {
          face["landmarks"] = .array(f.landmarks.map { .array([.number($0.x), .number($0.y)]) })
        }
        return .object(face)
      })
    if let original = o.searchedOriginal { fields["searched"] = .string(original) }
    noFaceFound = o.faces.isEmpty
    lines = ["\(Self.count(o.faces.count, "face")) (\(o.width)x\(o.height), \(o.detector))"]
    if let original = o.searchedOriginal { lines[0] += ", searched in its original \(original)" }
    for (i, f) in o.faces.enumerated() {
      lines.append(
        "  #\(i)  x=\(Self.tenth(f.x)) y=\(Self.tenth(f.y)) width=\(Self.tenth(f.width)) height=\(Self.tenth(f.height))"
          + (f.score.map { " score=\(ValueText.number(($0 * 1000).rounded() / 1000))" } ?? ""))
    }
  }

  // MARK: Pieces

  /// A pixel coordinate to a tenth (`56.3`; whole numbers as `56`), for text: JSON has them all.
  static func tenth(_ v: Double) -> String { ValueText.number((v * 10).rounded() / 10) }

  /// A time as `2026-12-01 09:48:51 UTC` (a file's time outside the years 0 to 9999, which
  /// anyone can set, as the seconds it is from 1970).
  static func date(_ seconds: Int) -> String {
    guard let time = UTCTime(seconds: Int64(seconds)) else {
      return "\(seconds) s from 1970-01-01 00:00:00 UTC"
    }
    return time.displayToTheSecond
  }

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

  /// How the render was coded: `lossless` for a PNG (it has no quality) and a lossless WebP;
  /// for a JPEG, `lossless outside the edits`, or `quality 90` (`, pinned` when a command line's
  /// --quality or --subsampling pinned re-encoding).
  static func route(_ r: RenderRecord) -> String {
    if !r.format.capabilities.lossy || r.lossless { return "lossless" }
    return r.route == .lossless
      ? "lossless outside the edits" : "quality \(r.quality)" + (r.pinned ? ", pinned" : "")
  }

  static func json(_ r: RenderRecord) -> JSONValue {
    var o: [String: JSONValue] = [
      "sha256": .string(r.sha256.hex), "format": .string(r.format.rawValue),
      "quality": .number(Double(r.quality)),
    ]
    if let s = r.subsampling { o["subsampling"] = .string(s.rawValue) }
    o["metadata"] = .string(r.metadata.rawValue)
    if let route = r.route { o["route"] = .string(route.rawValue) }
    o["pinned"] = .bool(r.pinned)
    if r.lossless { o["lossless"] = .bool(true) }
    return .object(o)
  }

  /// `1. sepia v1 intensity=0.8`, with derived state summarised (`[faces: 2]`), and a brush's
  /// strokes as `X:Y` points, one stroke a line. Parameters that do nothing with the others'
  /// (a detector's settings while another runs) are left out.
  static func describe(_ step: Step, number: Int) -> [String] {
    var text = "\(number). \(step.filter) v\(step.version)"
    var more: [String] = []
    let unused = Set(step.unusedKeys)
    for (name, value, _) in step.values.sorted(by: { $0.name < $1.name }) where !unused.contains(name) {
      if case .strokes(let strokes) = value {
        text += " \(name)=\(Self.count(strokes.count, "stroke"))"
        for (i, stroke) in strokes.enumerated() {
          more.append("     stroke \(i + 1): \(stroke.map(ValueText.point).joined(separator: "/"))")
        }
      } else {
        text += " \(name)=\(ValueText.value(value))"
      }
    }
    for (name, value, _) in step.derivedValues {
      if case .boxes(let boxes) = value {
        text += " [\(name): \(boxes.count)]"
      } else if case .digest(let d) = value {
        text += " [\(name) \(d.prefix(12))]"
      } else {
        text += " [\(name)=\(ValueText.value(value))]"
      }
    }
    return [text] + more
  }

}
