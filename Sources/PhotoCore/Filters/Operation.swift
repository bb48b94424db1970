/// One step of a recipe, as stored in the sidecar's `operations` list.
///
/// `parameters` are portable: geometry is normalised to the image as it enters this step (0...1 of
/// its width or height), so the step fits a photo of any size. `derived` is state that belongs to
/// one photo only, such as the face boxes faceblur found when it was applied; it is empty for most
/// filters and is dropped when a recipe is copied to another photo.
public struct Operation: Sendable, Hashable, Codable {
  public var filter: String
  public var version: Int
  public var parameters: [String: JSONValue]
  public var derived: [String: JSONValue]

  public init(
    filter: String, version: Int, parameters: [String: JSONValue], derived: [String: JSONValue] = [:]
  ) {
    (self.filter, self.version, self.parameters, self.derived) = (filter, version, parameters, derived)
  }

  enum CodingKeys: String, CodingKey { case filter, version, parameters, derived }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    filter = try c.decode(String.self, forKey: .filter)
    version = try c.decode(Int.self, forKey: .version)
    parameters = try c.decodeIfPresent([String: JSONValue].self, forKey: .parameters) ?? [:]
    derived = try c.decodeIfPresent([String: JSONValue].self, forKey: .derived) ?? [:]
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(filter, forKey: .filter)
    try c.encode(version, forKey: .version)
    try c.encode(parameters, forKey: .parameters)
    if !derived.isEmpty { try c.encode(derived, forKey: .derived) }
  }
}
