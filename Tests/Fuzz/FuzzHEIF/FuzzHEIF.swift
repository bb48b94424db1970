// libFuzzer target: HEIC and AVIF through ImageCodec with small limits: the ftyp brands in
// Swift (HEIFFormat), libheif's box parser, libde265's and dav1d's decoders and libheif's
// colour conversion (HEIFLibrary), the metadata findings, and a small decoded image written
// again with its metadata (x265 or aom). Built by `make fuzz` only (Tests/Fuzz/fuzz.py); seeds
// in Tests/Fuzz/seeds/heif, made by heif-enc from the fixtures.
import PhotoCore

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  var options = DecodeOptions()
  options.maxPixels = 1 << 18
  options.maxMemoryBytes = 32 << 20
  _ = try? ImageCodec.readInfo(bytes)
  _ = ImageCodec.metadataFindings(in: bytes)
  if let decoded = try? ImageCodec.decode(bytes, options: options),
    decoded.image.width * decoded.image.height <= 1024
  {
    _ = try? ImageCodec.encode(
      decoded.image, as: decoded.format, options: EncodeOptions(metadata: decoded.metadata))
  }
  return 0
}
