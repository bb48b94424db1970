import Foundation

/// The store's JSON: pretty-printed, sorted keys, unescaped slashes, a final newline.
enum JSONCoding {
  static func encode<T: Encodable>(_ value: T) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Our own Codable types of strings, numbers and JSONValue always encode.
    return Array(try! encoder.encode(value)) + [0x0A]
  }

  static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try JSONDecoder().decode(type, from: Data(bytes))
  }
}
