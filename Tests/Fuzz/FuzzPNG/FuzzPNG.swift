// libFuzzer target: PNG decoding through ImageCodec with small limits (the chunk walk, then
// libpng through CPNGShim). Every chunk's CRC is set right first, as a writer would, so that
// mutations reach the chunk readers and libpng instead of stopping at the CRC check (which
// the tests cover). Built by `make fuzz` only (see Tests/Fuzz/run.sh).
import FuzzSupport
import PhotoCore

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size)).withCorrectPNGCRCs()
  var options = DecodeOptions()
  options.maxPixels = 1 << 18
  options.maxMemoryBytes = 32 << 20
  _ = try? ImageCodec.readInfo(bytes)
  _ = try? ImageCodec.decode(bytes, options: options)
  return 0
}
