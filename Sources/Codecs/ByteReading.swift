/// Big- and little-endian reads from byte arrays. Callers check bounds first.
extension Array where Element == UInt8 {
  @inline(__always) func uint16BE(at i: Int) -> Int { Int(self[i]) << 8 | Int(self[i + 1]) }
  @inline(__always) func uint32BE(at i: Int) -> Int {
    Int(self[i]) << 24 | Int(self[i + 1]) << 16 | Int(self[i + 2]) << 8 | Int(self[i + 3])
  }
  /// True when the bytes at `offset` are `prefix`.
  func hasBytes(_ prefix: [UInt8], at offset: Int) -> Bool {
    guard offset >= 0, offset + prefix.count <= count else { return false }
    for (k, byte) in prefix.enumerated() where self[offset + k] != byte { return false }
    return true
  }

  mutating func appendUInt16BE(_ value: Int) {
    append(UInt8(truncatingIfNeeded: value >> 8))
    append(UInt8(truncatingIfNeeded: value))
  }
  mutating func appendUInt32BE(_ value: Int) {
    append(UInt8(truncatingIfNeeded: value >> 24))
    append(UInt8(truncatingIfNeeded: value >> 16))
    append(UInt8(truncatingIfNeeded: value >> 8))
    append(UInt8(truncatingIfNeeded: value))
  }
}

extension String {
  /// The ASCII bytes of a literal signature.
  var asciiBytes: [UInt8] { Array(utf8) }
}

extension String {
  /// The text a C shim wrote into a message buffer, up to its NUL.
  init(cMessage buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
