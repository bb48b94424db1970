// libFuzzer target: the lossless route's splice of a hostile baseline JPEG (`JPEGSplice`): its
// header, tables and restart intervals read, the scan measured, and three MCUs (the first, one in
// the middle, the last) replaced by blocks whose DC comes from the input's length. Each must end
// in nil, a file, or a `CodecError`, never a trap; and the same again with the scan walked ahead
// (`JPEGScanIndex`) must end the same way, byte for byte. Built by `make fuzz` only
// (Tests/Fuzz/fuzz.py).
import PhotoCore

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let splice = try? JPEGSplice(bytes) else { return 0 }
  if splice.restartInterval == 0 { _ = try? splice.scanBits() }
  let count = splice.mcuCount
  // Small images keep executions fast (the seeds are up to 227x149).
  guard count > 0, count <= 1 << 16 else { return 0 }
  var block = [Int16](repeating: 0, count: splice.blocksPerMCU * 64)
  block[0] = Int16(truncatingIfNeeded: size % 2047 - 1023)
  block[1] = Int16(truncatingIfNeeded: size % 255 - 127)
  let picks = Set([0, count / 2, count - 1]).sorted()
  let replaced = picks.map { (mcu: $0, blocks: block) }
  let plain = Result { () throws(CodecError) in try splice.splice(replaced, metadataSegments: []) }
  // The index reads its own copy of the bytes; the splice jumps only with an index of its own.
  let copy = Array(bytes)
  guard let index = JPEGScanIndex(copy) else { return 0 }
  index.walk()
  let jumped = copy.withUnsafeBufferPointer { data in
    Result { () throws(CodecError) -> [UInt8]? in
      guard var again = try JPEGSplice(data) else { return nil }
      again.use(index)
      return try again.splice(replaced, metadataSegments: [])
    }
  }
  switch (plain, jumped) {
  case (.success(let a), .success(let b)): precondition(a == b, "the index changed the splice's bytes")
  case (.failure(let a), .failure(let b)): precondition(a == b, "the index changed the splice's error")
  default: preconditionFailure("the index changed whether the splice succeeds")
  }
  return 0
}
