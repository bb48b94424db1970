// libFuzzer target: the cascade reader, HaarCascade(xml:) (XMLReader and both cascade
// formats). Built by `make fuzz` only (see Tests/Fuzz/run.sh).
@testable import PhotoCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  _ = try? HaarCascade(xml: Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
