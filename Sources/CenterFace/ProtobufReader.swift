/// Reads protobuf's wire format from a byte array, one field at a time, never past its range.
///
/// Every length is checked against the bytes that remain before it is used, so a corrupt or
/// hostile file ends in a `CenterFaceError`, never a trap or an out-of-bounds read. Nothing here
/// recurses: callers parse each nested message they know in a function of its own and skip the
/// rest, so the nesting depth is fixed by the code (ModelProto → GraphProto → NodeProto →
/// AttributeProto, GraphProto → ValueInfoProto → TypeProto → Tensor → TensorShapeProto →
/// Dimension), whatever the file holds.
struct ProtobufReader {
  /// A field's value, as its wire type gives it.
  enum Value {
    case varint(UInt64)
    case fixed64(UInt64)
    /// The byte range of a length-delimited field (a message, string, bytes or packed array).
    case bytes(Range<Int>)
    case fixed32(UInt32)
  }

  let data: [UInt8]
  private(set) var position: Int
  let end: Int

  init(_ data: [UInt8], range: Range<Int>) {
    precondition(range.lowerBound >= 0 && range.upperBound <= data.count)
    self.data = data
    self.position = range.lowerBound
    self.end = range.upperBound
  }

  var isAtEnd: Bool { position >= end }

  /// The next field's number and value, or nil at the end of the range.
  mutating func next() throws(CenterFaceError) -> (number: Int, value: Value)? {
    guard position < end else { return nil }
    let key = try varint()
    let number = key >> 3
    guard number >= 1, number <= 536_870_911 else { throw .malformed("field number \(number)") }
    switch key & 7 {
    case 0: return (Int(number), .varint(try varint()))
    case 1:
      guard end - position >= 8 else { throw .truncated }
      var v: UInt64 = 0
      for i in 0..<8 { v |= UInt64(data[position + i]) << (8 * UInt64(i)) }
      position += 8
      return (Int(number), .fixed64(v))
    case 2:
      let length = try varint()
      guard length <= UInt64(end - position) else { throw .truncated }
      let start = position
      position += Int(length)
      return (Int(number), .bytes(start..<position))
    case 5:
      guard end - position >= 4 else { throw .truncated }
      let v = Self.fixed32(data, at: position)
      position += 4
      return (Int(number), .fixed32(v))
    default:
      // 3 and 4 are the deprecated groups, which no ONNX writer emits; 6 and 7 do not exist.
      throw .malformed("wire type \(key & 7) in field \(number)")
    }
  }

  /// A base-128 varint of at most 10 bytes.
  mutating func varint() throws(CenterFaceError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < end else { throw .truncated }
      let byte = data[position]
      position += 1
      if shift == 63 && byte > 1 { throw .malformed("varint longer than 64 bits") }
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
      if shift > 63 { throw .malformed("varint longer than 10 bytes") }
    }
  }

  /// A little-endian 32-bit word at `offset`; the caller has checked that 4 bytes are there.
  @inline(__always)
  static func fixed32(_ data: [UInt8], at offset: Int) -> UInt32 {
    UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16
      | UInt32(data[offset + 3]) << 24
  }
}

extension ProtobufReader.Value {
  /// The value as a signed 64-bit integer (int64 and int32 fields are varints, two's complement).
  func int64(field: String) throws(CenterFaceError) -> Int64 {
    guard case .varint(let v) = self else { throw .malformed("\(field) is not a varint") }
    return Int64(bitPattern: v)
  }

  func range(field: String) throws(CenterFaceError) -> Range<Int> {
    guard case .bytes(let r) = self else { throw .malformed("\(field) is not length-delimited") }
    return r
  }

  func float(field: String) throws(CenterFaceError) -> Float {
    guard case .fixed32(let v) = self else { throw .malformed("\(field) is not a 32-bit float") }
    return Float(bitPattern: v)
  }
}
