// libFuzzer target: TIFF through ImageCodec with small limits: libtiff's directory parse over
// memory, its RGBA decoder and codecs (TIFFLibrary), the chain walk, the metadata read in Swift
// (the file as an EXIF structure, audit's findings), and a decoded image written again as TIFF
// with its metadata. Built by `make fuzz` only (Tests/Fuzz/fuzz.py); seeds in
// Tests/Fuzz/seeds/tiff, made by raw2tiff, tiffcp, tiffmedian and tiffset from a fixture.
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
    _ = try? ImageCodec.encode(decoded.image, as: .tiff, options: EncodeOptions(metadata: decoded.metadata))
  }
  return 0
}
