import Codecs
import PhotoCore
import Recipe

/// What `edit` does to one step.
public enum EditAction: Sendable {
  /// New values for some of the step's parameters. `values` reads them for the step's filter
  /// (from the caller's syntax), so that each photo's step is checked as `apply` checks it;
  /// `files` names the file a value was read from (a brush's strokes), by key, for refusals.
  case set(
    files: [String: String] = [:],
    values:
      @Sendable (_ step: Int, _ filter: Filters.Description) throws(StoreError) -> [String: ParameterValue])
  /// Take the step out of the recipe.
  case remove
  /// Move the step so that it becomes step `to` (the steps between shift by one).
  case move(to: Int)
}

extension EditStore {
  /// Changes step `n` (counting from 1) of the photo's recipe and re-renders from the original:
  /// the render is the one a fresh `apply` of the resulting recipe would give. faceblur keeps its
  /// faces when only `exclude`, `add` or how faces are hidden change, and finds them again when
  /// a detector setting changes, carrying each exclusion to its face (or dropping it, noted).
  ///
  /// - Throws: `.noSuchStep` for a step the photo's recipe does not have, `.step` for a value its
  ///   filter refuses; nothing changes on disk.
  /// - Parameter review: a review state to record in the same sidecar write (`apply
  ///   --corrections`), for the new render; the outcome's `review` says what was recorded.
  public func edit(_ photo: String, step n: Int, _ action: EditAction, review: ReviewMark? = nil)
    throws(StoreError) -> EditOutcome
  {
    var refreshNotes: [EditOutcome.Refreshed] = []
    let result = try changingRecipe(photo, unedited: .noSuchStep(step: n, count: 0), review: review) {
      data, edited throws(StoreError) -> (Change, [RevisionNote]) in
      guard data.steps.indices.contains(n - 1) else { throw .noSuchStep(step: n, count: data.steps.count) }
      var change: Change
      var notes: [RevisionNote] = []
      switch action {
      case .remove:
        change = .remove(step: n, removed: data.steps[n - 1])
      case .move(let m):
        guard data.steps.indices.contains(m - 1) else { throw .noSuchStep(step: m, count: data.steps.count) }
        change = .move(from: n, to: m)
      case .set(let files, let read):
        let old = data.steps[n - 1]
        let values = try read(n, old.declaration)
        let needs: FilterRequirements
        do throws(FilterError) { needs = try old.revisionRequirements(with: values) } catch {
          throw .step(index: n - 1, error.naming(files: files))
        }
        let image = try imageEntering(step: n, of: data.steps, original: edited.originalBytes)
        let context = try context(needs, for: image)
        let revised: (step: Step, notes: [RevisionNote])
        do throws(FilterError) { revised = try old.revised(with: values, in: context) } catch {
          if case .detection(_, let e) = error { throw .detection(e) }
          throw .step(index: n - 1, error.naming(files: files))
        }
        change = .edit(step: n, before: old, after: revised.step)
        notes = revised.notes
      }
      guard let steps = change.made(on: data.steps) else {
        throw .noSuchStep(step: n, count: data.steps.count)
      }
      let first: Int
      switch action {
      case .set: first = n + 1
      case .remove: first = n
      case .move(let m): first = min(n, m)
      }
      // Moving a step to where it is, or setting what it already has, changes nothing.
      if steps == data.steps { return (change, notes) }
      let refreshed = try refresh(steps, from: first, original: edited.originalBytes)
      if !refreshed.changes.isEmpty { change = .refreshing(change, refreshed: refreshed.changes) }
      refreshNotes = refreshed.notes
      guard let next = data.making(change) else { throw .noSuchStep(step: n, count: data.steps.count) }
      data = next
      return (change, notes)
    }
    var outcome = EditOutcome(
      change: result.change, notes: result.notes, refreshed: refreshNotes, stepCount: result.data.steps.count,
      renderSHA256: result.data.render!.sha256, dryRun: result.dryRun, recovery: result.recovery,
      warnings: result.warnings, unchanged: result.unchanged, renderedOnly: result.renderedOnly,
      stripsIdentifying: result.stripsIdentifying)
    if review != nil && !result.unchanged {
      outcome.review = result.reviewRefusal.map { .failure($0) } ?? .success(result.data.review)
    }
    return outcome
  }

  /// Makes again each step from number `first` on (counting from 1) whose filter reads the
  /// pixels entering it (faceblur: its faces are found again), in order, each for the image the
  /// steps before it now give; steps that come out the same are left out.
  private func refresh(_ steps: [Step], from first: Int, original: [UInt8]) throws(StoreError)
    -> (changes: [StepRefresh], notes: [EditOutcome.Refreshed])
  {
    let start = max(first, 1)
    // Steps after the last one that reads pixels are neither looked at nor rendered here.
    guard steps.count >= start, let last = steps.lastIndex(where: { $0.requirements.pixels }),
      last >= start - 1
    else {
      return ([], [])
    }
    var image = try imageEntering(step: start, of: steps, original: original)
    var changes: [StepRefresh] = []
    var notes: [EditOutcome.Refreshed] = []
    for k in (start - 1)...last {
      var step = steps[k]
      let needs = step.requirements
      if needs.pixels {
        let context = try context(needs, for: image)
        let remade: (step: Step, notes: [RevisionNote])
        do throws(FilterError) { remade = try step.rederived(in: context) } catch {
          if case .detection(_, let e) = error { throw .detection(e) }
          throw .step(index: k, error)
        }
        if remade.step != step {
          changes.append(StepRefresh(step: k + 1, before: step, after: remade.step))
          notes.append(EditOutcome.Refreshed(step: k + 1, filter: step.filter, notes: remade.notes))
          step = remade.step
        }
      }
      if k < last {
        do { try step.render(on: &image) } catch { throw .step(index: k, error) }
      }
    }
    return (changes, notes)
  }

  /// The image as it enters step `n`: the original with the steps before it.
  private func imageEntering(step n: Int, of steps: [Step], original: [UInt8]) throws(StoreError) -> Image {
    try render(original: original, steps: Array(steps.prefix(n - 1))).image!
  }
}
