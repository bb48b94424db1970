// libFuzzer target: WebP through ImageCodec with small limits: the RIFF chunk walk in Swift
// (WebPContainer), libwebp's header parse and decoder (WebPLibrary), the metadata findings, and
// a decoded image written again with its metadata (the chunk assembly). Built by `make fuzz`
// only (Tests/Fuzz/fuzz.py); seeds in Tests/Fuzz/seeds/webp, made by cwebp from the fixtures.
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
    decoded.image.width * decoded.image.height <= 4096
  {
    var encode = EncodeOptions(metadata: decoded.metadata)
    encode.lossless = decoded.details.storedLossless
    _ = try? ImageCodec.encode(decoded.image, as: .webp, options: encode)
  }
  return 0
}
