import Codecs
import PhotoCore

/// Reading adjustment data, after Photos' `canHandleAdjustmentData`: decode the identifier and
/// version first; migrate an older version of our own format step by step; refuse a newer
/// version, another tool's identifier, an unknown filter or invalid JSON, naming the reason.
extension AdjustmentData {
  /// One migration step: turns the JSON of version `n` into the JSON of version `n + 1`.
  package typealias Migration = @Sendable ([String: JSONValue]) throws(StoreError) -> [String: JSONValue]

  /// `migrations[n]` upgrades version n to n + 1; the chain ends at `currentVersion`.
  package static let migrations: [Int: Migration] = [0: migrateVersion0, 1: migrateVersion1, 2: { $0 }]

  /// What reading found besides the data itself.
  package struct ReadResult: Sendable {
    package var data: AdjustmentData
    /// The version the file had, when it was older and was migrated in memory.
    package var migratedFrom: Int?
    /// True when a step had an older filter version and was migrated.
    package var stepsMigrated: Bool
  }

  /// Decodes and checks sidecar bytes: every step is read against `registry`, with its
  /// derived state; the sidecar must name its original and its render.
  package static func read(_ bytes: [UInt8], registry: [any Filter.Type]) throws(StoreError) -> ReadResult {
    let (object, found) = try topLevel(bytes)
    guard let original = object["original"] else { throw .invalidRecipe(.missing(field: "original")) }
    guard let render = object["render"] else { throw .invalidRecipe(.missing(field: "render")) }
    var migrated = false
    func step(_ json: JSONValue, _ field: String) throws(StoreError) -> Step {
      let e = try envelope(json, field)
      do {
        let step = try Filters.step(
          filter: e.filter, version: e.version, parameters: e.parameters, derived: e.derived, in: registry)
        if step.version != e.version { migrated = true }
        return step
      } catch {
        throw .step(index: nil, error)
      }
    }
    var steps: [Step] = []
    for (i, e) in try list(object, "operations").enumerated() {
      do { steps.append(try step(e, "operations[\(i)]")) } catch {
        if case .step(_, let e) = error { throw .step(index: i, e) }
        throw error
      }
    }
    var history: [Change] = []
    for (i, e) in try list(object, "history").enumerated() {
      history.append(try Change(json: e, field: "history[\(i)]", step: step))
    }
    var undone: [Change] = []
    for (i, e) in try list(object, "undone").enumerated() {
      undone.append(try Change(json: e, field: "undone[\(i)]", step: step))
    }
    // The history must lead to these steps, and what was undone must apply to them again, one
    // change at a time: otherwise undo or redo would make a recipe nobody made.
    var before = steps
    for (i, change) in history.enumerated().reversed() {
      guard let earlier = change.takenBack(from: before) else {
        throw .invalidRecipe(.badValue(field: "history[\(i)]", value: change.stored))
      }
      before = earlier
    }
    var after = steps
    for (i, change) in undone.enumerated().reversed() {
      guard let later = change.made(on: after) else {
        throw .invalidRecipe(.badValue(field: "undone[\(i)]", value: change.stored))
      }
      after = later
    }
    var data = AdjustmentData(
      original: try Original(json: original),
      render: try RenderRecord(json: render), steps: steps, history: history, undone: undone)
    if let review = object["review"], found >= currentVersion {
      data.review = try ReviewRecord(json: review)
    }
    if let request = object["request"] {
      guard let sha = SHA256Digest(request) else {
        throw .invalidRecipe(.badValue(field: "request", value: request))
      }
      data.request = sha
    }
    // Version 2 is version 3 without a review record: nothing to migrate, nothing stale.
    return ReadResult(
      data: data, migratedFrom: found < versionWithoutReview ? found : nil, stepsMigrated: migrated)
  }

  /// The portable requests of a sidecar or recipe file's steps, for another photo (`apply
  /// --recipe`): derived state and the parameters that belong to one photo are left out.
  package static func portableRequests(_ bytes: [UInt8], registry: [any Filter.Type]) throws(StoreError)
    -> [StepRequest]
  {
    let (object, _) = try topLevel(bytes)
    var requests: [StepRequest] = []
    for (i, json) in try list(object, "operations").enumerated() {
      let envelope = try envelope(json, "operations[\(i)]")
      do {
        requests.append(
          try Filters.portableRequest(
            filter: envelope.filter, version: envelope.version, parameters: envelope.parameters, in: registry)
        )
      } catch {
        throw .step(index: i, error)
      }
    }
    return requests
  }

  /// The JSON object with its identifier checked and its version migrated to the current one,
  /// and the version the file had.
  private static func topLevel(_ bytes: [UInt8]) throws(StoreError) -> ([String: JSONValue], Int) {
    let json: JSONValue
    do {
      json = try JSONParser.parse(bytes)
    } catch {
      throw .invalidJSON(detail: error.located(in: bytes), looksLike: ContentKind(bytes))
    }
    guard var object = json.object else {
      throw .invalidJSON(detail: "the top level is not an object", looksLike: nil)
    }
    guard let identifierValue = object["formatIdentifier"] else {
      throw .invalidRecipe(.missing(field: "formatIdentifier"))
    }
    guard let identifier = identifierValue.string, identifier == Self.identifier else {
      throw .foreignFormat(identifier: identifierValue.string ?? "\(identifierValue)")
    }
    guard let versionNumber = object["formatVersion"]?.number, versionNumber == versionNumber.rounded(),
      abs(versionNumber) < 1e9
    else { throw .invalidRecipe(.badValue(field: "formatVersion", value: object["formatVersion"])) }
    var version = Int(versionNumber)
    if version > currentVersion { throw .newerFormat(found: version, supported: currentVersion) }
    let found = version
    while version < currentVersion {
      guard let step = migrations[version] else { throw .tooOldFormat(found: version) }
      object = try step(object)
      version += 1
      object["formatVersion"] = .number(Double(version))
    }
    return (object, found)
  }

  /// One stored step's envelope: `{"filter", "version", "parameters", "derived"}`.
  private struct Envelope {
    var filter: String, version: Int
    var parameters: [String: JSONValue], derived: [String: JSONValue]
  }

  /// The list at `key` (`operations` is required; `history` and `undone` may be absent).
  private static func list(_ object: [String: JSONValue], _ key: String) throws(StoreError) -> [JSONValue] {
    guard let list = object[key] else {
      if key != "operations" { return [] }
      throw .invalidRecipe(.missing(field: key))
    }
    guard let items = list.array else { throw .invalidRecipe(.wrongType(field: key)) }
    return items
  }

  /// A stored step's envelope at `at` (`operations[2]`).
  private static func envelope(_ item: JSONValue, _ at: String) throws(StoreError) -> Envelope {
    guard let o = item.object else { throw .invalidRecipe(.wrongType(field: at)) }
    guard let filterValue = o["filter"] else { throw .invalidRecipe(.missing(field: "\(at).filter")) }
    guard let filter = filterValue.string else { throw .invalidRecipe(.wrongType(field: "\(at).filter")) }
    guard let versionValue = o["version"] else { throw .invalidRecipe(.missing(field: "\(at).version")) }
    guard let v = versionValue.number, v == v.rounded(), abs(v) < 1e9 else {
      throw .invalidRecipe(.wrongType(field: "\(at).version"))
    }
    func object(_ name: String) throws(StoreError) -> [String: JSONValue] {
      guard let value = o[name] else { return [:] }
      guard let dictionary = value.object else { throw .invalidRecipe(.wrongType(field: "\(at).\(name)")) }
      return dictionary
    }
    return Envelope(
      filter: filter, version: Int(v), parameters: try object("parameters"), derived: try object("derived"))
  }

  /// Version 1 kept `undone` as a list of steps, redone one at a time from the end, and undid one
  /// step at a time. Version 2 keeps changes: the migrated history is one `apply` per step, so
  /// `undo` takes them back one at a time as before, and each undone step is an `apply` to redo.
  @Sendable package static func migrateVersion1(_ old: [String: JSONValue]) throws(StoreError)
    -> [String: JSONValue]
  {
    var new = old
    func applies(_ key: String) throws(StoreError) -> JSONValue {
      guard let value = old[key] else { return .array([]) }
      guard let steps = value.array else { throw .invalidRecipe(.wrongType(field: key)) }
      return .array(steps.map { .object(["change": .string("apply"), "steps": .array([$0])]) })
    }
    new["history"] = try applies("operations")
    new["undone"] = try applies("undone")
    return new
  }

  /// Version 0 (photoedit's pre-release format) named the list `adjustments`, each step's filter
  /// `name` without a per-filter version, and the original's `file` and `size`; it had no
  /// `undone` list and kept the render's subsampling out.
  @Sendable package static func migrateVersion0(_ old: [String: JSONValue]) throws(StoreError)
    -> [String: JSONValue]
  {
    var new = old
    guard let steps = old["adjustments"]?.array else { throw .invalidRecipe(.missing(field: "adjustments")) }
    new["adjustments"] = nil
    var operations: [JSONValue] = []
    for (i, step) in steps.enumerated() {
      guard var fields = step.object, let name = fields["name"] else {
        throw .invalidRecipe(.missing(field: "adjustments[\(i)].name"))
      }
      fields["name"] = nil
      fields["filter"] = name
      if fields["version"] == nil { fields["version"] = .number(1) }
      operations.append(.object(fields))
    }
    new["operations"] = .array(operations)
    if new["undone"] == nil { new["undone"] = .array([]) }
    if var original = old["original"]?.object {
      if let file = original["file"] {
        original["path"] = file
        original["file"] = nil
      }
      if let size = original["size"] {
        original["bytes"] = size
        original["size"] = nil
      }
      if original["orientation"] == nil { original["orientation"] = .number(1) }
      new["original"] = .object(original)
    }
    return new
  }
}

/// What a file that should be JSON looks like instead, so a refusal can say what it got.
public enum ContentKind: Sendable, Equatable {
  /// A photo in a format photoedit reads (`ImageCodec.format(of:)`).
  case image(ImageFormat)
  case xml, binary

  /// The kind of `bytes` when it is clearly not JSON text, else nil.
  package init?(_ bytes: [UInt8]) {
    let start = bytes.drop {
      $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
    }
    if let format = try? ImageCodec.format(of: bytes) {
      self = .image(format)
    } else if start.first == UInt8(ascii: "<") {
      self = .xml
    } else if bytes.prefix(512).contains(0) {
      self = .binary
    } else {
      return nil
    }
  }
}
