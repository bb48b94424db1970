import Codecs
import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// Readers take no lock; while writers commit edit after edit, they never see a half-made edit.
@Suite struct ConcurrentReaderTests {
  @Test func statusDuringEditsIsNeverModifiedOrDamaged() async throws {
    let folder = try! TemporaryFolder()
    folder.write("p.jpg", FakeEngine.imageFile(width: 40, height: 40, seed: 2))
    let photo = folder.path("p.jpg")
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let seen = await withTaskGroup(of: [String].self) { group in
      group.addTask {
        for i in 0..<20 {
          _ = try? fakeStore().apply([step("add", ["amount": .integer(i)])], to: photo, output: nil)
        }
        return []
      }
      group.addTask {
        var states: [String] = []
        for _ in 0..<50 {
          states.append(fakeStore().inspect(photo).state.rawValue)
          if let show = try? fakeStore().show(photo) { states.append(show.state.rawValue) }
        }
        return states
      }
      return await group.reduce(into: [String]()) { $0 += $1 }
    }
    #expect(Set(seen).subtracting(["edited"]).isEmpty, "\(Set(seen))")
    #expect(try fakeStore().loadSidecar(PhotoPaths(photo))!.data.steps.count == 21)
  }
}
