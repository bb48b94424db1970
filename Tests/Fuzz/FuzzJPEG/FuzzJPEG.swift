// libFuzzer target: JPEG decoding through ImageCodec with small limits, by every path a file
// takes: TurboJPEG at full size and DCT-scaled, the band route (CJPEGShim's scanlines) and the damage
// scan. Each input takes one of the four, picked by its length (the same input always takes the
// same path; a mutation that changes the length tries another), so an execution costs one decode.
// Built by `make fuzz` only (see Tests/Fuzz/fuzz.py).
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
  switch size % 4 {
  case 0:
    _ = try? ImageCodec.decode(bytes, options: options)
  case 1:
    options.minimumLongestSide = 24
    _ = try? ImageCodec.decode(bytes, options: options)
  case 2:
    // The band route: the scanline source (CJPEGShim) through the planner into the band writer.
    _ = try? ImageCodec.withSource(bytes, options: options) { opened in
      guard let opened else { return }
      let sink = try JPEGSink(size: opened.source.size, options: EncodeOptions(), fill: nil)
      let plan = RenderPlan(kernels: [], inputSize: opened.source.size, bandHeight: sink.bandHeight)
      _ = try Planner.run(plan, from: opened.source, to: sink)
      _ = try sink.finish()
    }
  default:
    // The damage scan, once the header has passed the checks decode makes before it.
    if let header = try? JPEGMarkers.parseHeader(bytes, metadata: false),
      (try? JPEGCodec.checkDecodable(header, bytes, options: options)) != nil
    {
      try? JPEGCodec.checkForDamage(bytes, ImageInfo(jpeg: header), options: options)
    }
  }
  return 0
}
