// libFuzzer target: TIFF through ImageCodec with small limits: libtiff's directory parse over
// memory, its RGBA decoder and codecs (TIFFLibrary), the chain walk, the metadata read in Swift
// (the file as an EXIF structure, audit's findings), and a decoded image written again as TIFF
// with its metadata. Built by `make fuzz` only (Tests/Fuzz/fuzz.py); seeds in
// Tests/Fuzz/seeds/tiff, made by raw2tiff, tiffcp, tiffmedian and tiffset from a fixture.
import Codecs
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  fuzzImageInput(data, size, maxEncodedPixels: 4096, as: .tiff)
  return 0
}
