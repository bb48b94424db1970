// libFuzzer target: JPEG decoding through ImageCodec with small limits, by every path a file
// takes: TurboJPEG (full size and DCT-scaled), the scanline pipeline (CJPEGShim) and the
// damage scan. Built by `make fuzz` only (see Tests/Fuzz/run.sh).
import CJPEGShim
import PhotoCore

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var options = DecodeOptions()
  // Small limits keep executions fast: the fixtures the seeds come from are up to 227x149.
  options.maxPixels = 40_000
  options.maxMemoryBytes = 16 << 20
  _ = try? ImageCodec.readInfo(bytes)
  _ = try? ImageCodec.decode(bytes, options: options)
  if let stream = try? ImageCodec.jpegStream(bytes, options: options) {
    _ = try? stream.run(encoding: EncodeOptions(), rows: { _ in })
  }
  // The damage scan, once the header has passed the checks decode makes before it.
  if let header = try? JPEGMarkers.parseHeader(bytes, metadata: false),
    (try? JPEGCodec.checkDecodable(header, bytes, options: options)) != nil
  {
    try? JPEGCodec.checkForDamage(bytes, ImageInfo(jpeg: header), options: options)
  }
  options.minimumLongestSide = 24
  _ = try? ImageCodec.decode(bytes, options: options)
  return 0
}
