import PhotoCore

/// The store's JSON files (sidecars, journals, corrections) and the request key's text: PhotoCore's
/// one writer in its indented layout, keys sorted, with a final newline. `JSONParser` reads them.
package enum JSONCoding {
  package static func encode(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value, layout: .indented) }
}
