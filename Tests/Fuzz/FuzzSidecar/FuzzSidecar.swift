// libFuzzer target: the store's readers of files beside a photo. The first byte picks one: a
// sidecar (AdjustmentData.read with the live filters' validation, as Store.loadSidecar reads
// it), a recipe (as `apply --recipe` reads it), or a journal (the JSON decoding that
// Recovery.recover does). Kept to the narrowest entry points: the Recipe module is being
// refactored. Built by `make fuzz` only (see Tests/Fuzz/run.sh).
@testable import Recipe

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  switch data[0] % 3 {
  case 0:
    _ = try? AdjustmentData.read(bytes, requireProvenance: true) { op throws(StoreError) in
      try LiveEngine().validate(op)
    }
  case 1:
    _ = try? AdjustmentData.read(bytes, requireProvenance: false) { op throws(StoreError) in op }
  default:
    _ = try? JSONCoding.decode(Journal.self, from: bytes)
  }
  return 0
}
