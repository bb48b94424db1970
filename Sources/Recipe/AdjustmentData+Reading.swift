import Foundation
import PhotoCore

/// Reading adjustment data, after Photos' `canHandleAdjustmentData`: decode the identifier and
/// version first; migrate an older version of our own format step by step; refuse a newer
/// version, another tool's identifier, an unknown filter or invalid JSON, naming the reason.
extension AdjustmentData {
  /// One migration step: turns the JSON of version `n` into the JSON of version `n + 1`.
  typealias Migration = @Sendable ([String: JSONValue]) throws(StoreError) -> [String: JSONValue]

  /// `migrations[n]` upgrades version n to n + 1; the chain ends at `currentVersion`.
  static let migrations: [Int: Migration] = [0: migrateVersion0]

  /// What reading found besides the data itself.
  struct ReadResult: Sendable {
    var data: AdjustmentData
    /// The version the file had, when it was older and was migrated in memory.
    var migratedFrom: Int?
    /// True when an operation had an older filter version and was migrated.
    var operationsMigrated: Bool
  }

  /// Decodes and validates sidecar or recipe bytes.
  ///
  /// - Parameters:
  ///   - requireProvenance: true for a sidecar, which must name its original and its render.
  ///   - validate: checks each operation (known filter, version, parameters) and migrates it.
  static func read(
    _ bytes: [UInt8], requireProvenance: Bool,
    validate: (Operation) throws(StoreError) -> Operation
  ) throws(StoreError) -> ReadResult {
    let json: JSONValue
    do {
      json = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    } catch {
      throw .invalidJSON(detail: jsonProblem(error))
    }
    guard var object = json.object else { throw .invalidJSON(detail: "the top level is not an object") }
    guard let identifierValue = object["formatIdentifier"] else {
      throw .invalidRecipe(detail: "no 'formatIdentifier'")
    }
    guard let identifier = identifierValue.string, identifier == Self.identifier else {
      throw .foreignFormat(identifier: identifierValue.string ?? "\(identifierValue)")
    }
    guard let versionNumber = object["formatVersion"]?.number, versionNumber == versionNumber.rounded(),
      abs(versionNumber) < 1e9
    else { throw .invalidRecipe(detail: "'formatVersion' is not an integer") }
    var version = Int(versionNumber)
    if version > currentVersion { throw .newerFormat(found: version, supported: currentVersion) }
    let found = version
    while version < currentVersion {
      guard let step = migrations[version] else {
        throw .invalidRecipe(detail: "format version \(version) is too old to migrate")
      }
      object = try step(object)
      version += 1
      object["formatVersion"] = .number(Double(version))
    }
    var data: AdjustmentData
    do {
      let migrated = try JSONEncoder().encode(JSONValue.object(object))
      data = try JSONDecoder().decode(AdjustmentData.self, from: migrated)
    } catch {
      throw .invalidRecipe(detail: fieldProblem(error))
    }
    if requireProvenance {
      if data.original == nil { throw .invalidRecipe(detail: "no 'original'") }
      if data.render == nil { throw .invalidRecipe(detail: "no 'render'") }
    }
    var operationsMigrated = false
    for i in data.operations.indices {
      let checked = try validate(data.operations[i])
      if checked != data.operations[i] { operationsMigrated = true }
      data.operations[i] = checked
    }
    for i in data.undone.indices { data.undone[i] = try validate(data.undone[i]) }
    return ReadResult(
      data: data, migratedFrom: found < currentVersion ? found : nil,
      operationsMigrated: operationsMigrated)
  }

  /// Version 0 (photoedit's pre-release format) named the list `adjustments`, each step's filter
  /// `name` without a per-filter version, and the original's `file` and `size`; it had no
  /// `undone` list and kept the render's subsampling out.
  @Sendable static func migrateVersion0(_ old: [String: JSONValue]) throws(StoreError) -> [String: JSONValue]
  {
    var new = old
    guard let steps = old["adjustments"]?.array else {
      throw .invalidRecipe(detail: "version 0 data without 'adjustments'")
    }
    new["adjustments"] = nil
    var operations: [JSONValue] = []
    for step in steps {
      guard var fields = step.object, let name = fields["name"] else {
        throw .invalidRecipe(detail: "a version 0 adjustment without 'name'")
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

  private static func jsonProblem(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
      if let underlying = context.underlyingError as NSError?,
        let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
      {
        return detail
      }
      return context.debugDescription
    }
    return "\(error)"
  }

  private static func fieldProblem(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
    switch error {
    case DecodingError.keyNotFound(let key, let context):
      let at = path(context.codingPath + [key])
      return "'\(at)' is missing"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      return "'\(path(context.codingPath))' has the wrong type"
    case DecodingError.dataCorrupted(let context):
      return "'\(path(context.codingPath))': \(context.debugDescription)"
    default: return "\(error)"
    }
  }
}
