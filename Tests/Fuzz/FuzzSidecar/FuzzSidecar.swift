// libFuzzer target: the store's readers of files beside a photo. The first byte picks one: a
// sidecar (`AdjustmentData.read` against the live filters, as `EditStore.loadSidecar` reads it,
// history and all), a recipe (as `apply --recipe` reads it), or a journal (as `Recovery` reads
// it: names derived from the photo, anything else refused). Built by `make fuzz` only.
import PhotoCore

@testable import Recipe
@testable import Store

let paths = PhotoPaths("folder/photo.jpg")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  switch data[0] % 3 {
  case 0: _ = try? AdjustmentData.read(bytes, registry: Filters.all)
  case 1: _ = try? AdjustmentData.portableRequests(bytes, registry: Filters.all)
  default:
    if let journal = Journal(bytes, paths: paths) {
      // A journal that reads must encode back to one that reads the same.
      precondition(Journal(journal.encoded(), paths: paths) == journal)
    }
  }
  return 0
}
