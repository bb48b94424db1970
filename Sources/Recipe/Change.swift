import PhotoCore

/// One change to a recipe, with what it takes to make it again or take it back: `undo` takes back
/// the last change (an `apply` of several filters at once, an `edit`, a removal, a move), `redo`
/// makes it again. Step numbers count from 1, as `show` numbers them.
public enum Change: Equatable, Sendable {
  /// Steps appended at the end of the recipe (one `apply`, however many filters it gave).
  case apply(added: [Step])
  /// Step `step` replaced: its parameters changed (faces found again, when a detector setting
  /// changed).
  case edit(step: Int, before: Step, after: Step)
  /// Step `step` taken out of the recipe.
  case remove(step: Int, removed: Step)
  /// The step at `from` moved so that it became step `to`.
  case move(from: Int, to: Int)
  /// An edit, removal or move, and the later steps it made again because the image entering
  /// them changed (faceblur found its faces again), each replaced in the order given. Never
  /// nested.
  indirect case refreshing(Change, refreshed: [StepRefresh])

  /// The recipe's steps after this change is made on `steps`, or nil when the change does not
  /// fit them (a sidecar whose history was edited by hand).
  package func made(on steps: [Step]) -> [Step]? {
    var out = steps
    switch self {
    case .apply(let added):
      out += added
    case .edit(let n, let before, let after):
      guard out.indices.contains(n - 1), out[n - 1] == before else { return nil }
      out[n - 1] = after
    case .remove(let n, let removed):
      guard out.indices.contains(n - 1), out[n - 1] == removed else { return nil }
      out.remove(at: n - 1)
    case .move(let from, let to):
      guard out.indices.contains(from - 1), out.indices.contains(to - 1) else { return nil }
      out.insert(out.remove(at: from - 1), at: to - 1)
    case .refreshing(let base, let refreshed):
      guard var steps = base.made(on: out) else { return nil }
      for r in refreshed {
        guard steps.indices.contains(r.step - 1), steps[r.step - 1] == r.before else { return nil }
        steps[r.step - 1] = r.after
      }
      out = steps
    }
    return out
  }

  /// The recipe's steps before this change, given the steps after it, or nil when the change
  /// does not fit them.
  package func takenBack(from steps: [Step]) -> [Step]? {
    var out = steps
    switch self {
    case .apply(let added):
      guard out.count >= added.count, Array(out.suffix(added.count)) == added else { return nil }
      out.removeLast(added.count)
    case .edit(let n, let before, let after):
      guard out.indices.contains(n - 1), out[n - 1] == after else { return nil }
      out[n - 1] = before
    case .remove(let n, let removed):
      guard n >= 1, n <= out.count + 1 else { return nil }
      out.insert(removed, at: n - 1)
    case .move(let from, let to):
      guard out.indices.contains(from - 1), out.indices.contains(to - 1) else { return nil }
      out.insert(out.remove(at: to - 1), at: from - 1)
    case .refreshing(let base, let refreshed):
      for r in refreshed.reversed() {
        guard out.indices.contains(r.step - 1), out[r.step - 1] == r.after else { return nil }
        out[r.step - 1] = r.before
      }
      return base.takenBack(from: out)
    }
    return out
  }

  /// The change itself, without the steps it made again.
  public var base: Change {
    if case .refreshing(let base, _) = self { return base }
    return self
  }

  /// The later steps the change made again (empty for most changes).
  public var refreshed: [StepRefresh] {
    if case .refreshing(_, let refreshed) = self { return refreshed }
    return []
  }

  /// The steps the change names, for reading them against the filter registry.
  package var steps: [Step] {
    switch self {
    case .apply(let added): added
    case .edit(_, let before, let after): [before, after]
    case .remove(_, let removed): [removed]
    case .move: []
    case .refreshing(let base, let refreshed): base.steps + refreshed.flatMap { [$0.before, $0.after] }
    }
  }
}

/// A later step a change made again: step `step` (from 1, in the recipe after the change) was
/// `before` and became `after`.
public struct StepRefresh: Equatable, Sendable {
  public var step: Int
  public var before: Step
  public var after: Step
  public init(step: Int, before: Step, after: Step) {
    (self.step, self.before, self.after) = (step, before, after)
  }
}

// MARK: - The stored form

extension Change {
  /// `{"change": "apply", "steps": [...]}`, `{"change": "edit", "step": N, "before": {...},
  /// "after": {...}}`, `{"change": "remove", "step": N, "removed": {...}}`, `{"change": "move",
  /// "from": N, "to": M}`.
  public var stored: JSONValue {
    switch self {
    case .apply(let added): .object(["change": .string("apply"), "steps": .array(added.map(\.stored))])
    case .edit(let n, let before, let after):
      .object([
        "change": .string("edit"), "step": .number(Double(n)), "before": before.stored, "after": after.stored,
      ])
    case .remove(let n, let removed):
      .object(["change": .string("remove"), "step": .number(Double(n)), "removed": removed.stored])
    case .move(let from, let to):
      .object(["change": .string("move"), "from": .number(Double(from)), "to": .number(Double(to))])
    case .refreshing(let base, let refreshed):
      .object(
        (base.stored.object ?? [:]).merging(
          [
            "refreshed": .array(
              refreshed.map {
                .object([
                  "step": .number(Double($0.step)), "before": $0.before.stored, "after": $0.after.stored,
                ])
              })
          ], uniquingKeysWith: { $1 }))
    }
  }

  /// Reads a stored change at `field` (`history[3]`); `step` reads a stored step.
  package init(json: JSONValue, field: String, step: (JSONValue, String) throws(StoreError) -> Step)
    throws(StoreError)
  {
    guard let o = json.object, let kind = o["change"]?.string else {
      throw .invalidRecipe(.wrongType(field: field))
    }
    func number(_ key: String) throws(StoreError) -> Int {
      guard let v = o[key]?.integer, (1...1_000_000).contains(v) else {
        throw .invalidRecipe(.badValue(field: "\(field).\(key)", value: o[key]))
      }
      return v
    }
    func stored(_ key: String) throws(StoreError) -> Step {
      guard let value = o[key] else { throw .invalidRecipe(.missing(field: "\(field).\(key)")) }
      return try step(value, "\(field).\(key)")
    }
    var base: Change
    switch kind {
    case "apply":
      guard let list = o["steps"]?.array, !list.isEmpty else {
        throw .invalidRecipe(.badValue(field: "\(field).steps", value: o["steps"]))
      }
      var added: [Step] = []
      for (i, item) in list.enumerated() { added.append(try step(item, "\(field).steps[\(i)]")) }
      base = .apply(added: added)
    case "edit":
      base = .edit(step: try number("step"), before: try stored("before"), after: try stored("after"))
    case "remove": base = .remove(step: try number("step"), removed: try stored("removed"))
    case "move": base = .move(from: try number("from"), to: try number("to"))
    default: throw .invalidRecipe(.badValue(field: "\(field).change", value: o["change"]))
    }
    guard let list = o["refreshed"] else {
      self = base
      return
    }
    guard kind != "apply", let items = list.array, !items.isEmpty, items.count <= 1000 else {
      throw .invalidRecipe(.badValue(field: "\(field).refreshed", value: list))
    }
    var refreshed: [StepRefresh] = []
    for (i, item) in items.enumerated() {
      let at = "\(field).refreshed[\(i)]"
      guard let r = item.object, let v = r["step"]?.integer, (1...1_000_000).contains(v),
        let before = r["before"], let after = r["after"]
      else { throw .invalidRecipe(.badValue(field: at, value: item)) }
      refreshed.append(
        StepRefresh(step: v, before: try step(before, "\(at).before"), after: try step(after, "\(at).after")))
    }
    self = .refreshing(base, refreshed: refreshed)
  }
}
