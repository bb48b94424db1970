// libFuzzer target: HEIC and AVIF through ImageCodec with small limits: the ftyp brands in
// Swift (HEIFFormat), libheif's box parser, libde265's and dav1d's decoders and libheif's
// colour conversion (HEIFLibrary), the metadata findings, and a small decoded image written
// again with its metadata (x265 or aom). Built by `make fuzz` only (Tests/Fuzz/fuzz.py); seeds
// in Tests/Fuzz/seeds/heif, made by heif-enc from the fixtures.
import Codecs
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzImageInput(data, size, maxEncodedPixels: 1024)
  return 0
}
