// libFuzzer target: WebP through ImageCodec with small limits: the RIFF chunk walk in Swift
// (WebPContainer), libwebp's header parse and decoder (WebPLibrary), the metadata findings, and
// a decoded image written again with its metadata (the chunk assembly). Built by `make fuzz`
// only (Tests/Fuzz/fuzz.py); seeds in Tests/Fuzz/seeds/webp, made by cwebp from the fixtures.
import Codecs
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzImageInput(data, size, maxEncodedPixels: 4096, as: .webp, keepingLossless: true)
  return 0
}
