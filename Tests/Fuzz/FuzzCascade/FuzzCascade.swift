// libFuzzer target: the cascade reader, HaarCascade(xml:) (XMLReader and both cascade
// formats). A cascade that reads is then run as `detect` runs it, on one thread, over a small
// grey photo (every window size the reader lets through, the smallest 3 pixels a side, must
// search it without trapping). Built by `make fuzz` only (see Tests/Fuzz/fuzz.py).
@testable import PhotoCore

/// A 40×32 photo of gradients and edges, so that features differ from window to window.
let grey: GreyImage = {
  let (width, height) = (40, 32)
  var pixels = [UInt8](repeating: 0, count: width * height)
  for y in 0..<height {
    for x in 0..<width { pixels[y * width + x] = UInt8(truncatingIfNeeded: (x * 29 + y * 13) ^ (x * y)) }
  }
  return GreyImage(width: width, height: height, pixels: pixels)
}()
let options = DetectionOptions(scaleFactor: 1.2, minNeighbors: 1)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard let cascade = try? HaarCascade(xml: Array(UnsafeBufferPointer(start: data, count: size))) else {
    return 0
  }
  precondition(
    HaarCascade.windowSides ~= cascade.windowWidth && HaarCascade.windowSides ~= cascade.windowHeight,
    "a window outside the allowed sides read")
  _ = try? HaarDetector.detect(in: grey, cascade: cascade, options: options, parallel: false)
  return 0
}
