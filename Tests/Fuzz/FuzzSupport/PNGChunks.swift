// Shared by the fuzz targets (built by `make fuzz` only).
import CPNGShim

extension Array where Element == UInt8 {
  /// The bytes with the CRC of every whole PNG chunk after the 8-byte signature recomputed, as
  /// a writer would: mutations then reach the chunk readers and libpng instead of stopping at
  /// the CRC check (which the tests cover).
  public func withCorrectPNGCRCs() -> [UInt8] {
    var bytes = self
    var i = 8
    while i + 12 <= bytes.count {
      let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      guard length <= bytes.count - i - 12 else { break }
      let crc = bytes.withUnsafeBufferPointer { p in Int(cpng_crc32(0, p.baseAddress! + i + 4, length + 4)) }
      let at = i + 8 + length
      (bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]) = (
        UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)
      )
      i = at + 4
    }
    return bytes
  }
}
