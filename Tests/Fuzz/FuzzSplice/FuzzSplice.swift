// libFuzzer target: the lossless route's splice of a hostile baseline JPEG (`JPEGSplice`): its
// header, tables and restart intervals read, the scan measured, and three MCUs (the first, one in
// the middle, the last) replaced by blocks whose DC comes from the input's length. Each must end
// in nil, a file, or a `CodecError`, never a trap. Built by `make fuzz` only (Tests/Fuzz/fuzz.py).
import PhotoCore

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let splice = try? JPEGSplice(bytes) else { return 0 }
  _ = try? splice.scanBits()
  let count = splice.mcuCount
  // Small images keep executions fast (the seeds are up to 227x149).
  guard count > 0, count <= 1 << 16 else { return 0 }
  var block = [Int16](repeating: 0, count: splice.blocksPerMCU * 64)
  block[0] = Int16(truncatingIfNeeded: size % 2047 - 1023)
  block[1] = Int16(truncatingIfNeeded: size % 255 - 127)
  let picks = Set([0, count / 2, count - 1]).sorted()
  _ = try? splice.splice(picks.map { ($0, block) }, metadataSegments: [])
  return 0
}
