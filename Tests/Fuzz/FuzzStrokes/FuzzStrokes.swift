// libFuzzer target: the brush strokes file reader, StrokesFile.parse (and its JSONParser).
// Built by `make fuzz` only (see Tests/Fuzz/run.sh).
@testable import PhotoCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  if let strokes = try? StrokesFile.parse(Array(UnsafeBufferPointer(start: data, count: size))) {
    precondition(strokes.count <= StrokesFile.maxStrokes)
    precondition(strokes.reduce(0) { $0 + $1.count } <= StrokesFile.maxPoints)
  }
  return 0
}
