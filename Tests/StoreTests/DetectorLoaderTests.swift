import PhotoCore
import Testing

@testable import Store

/// The store loads every detector kind of the registry by its name.
@Suite struct DetectorLoaderTests {
  @Test func everyKindHasALoader() {
    #expect(Set(DetectorLoader.loaders.keys) == Set(Detectors.all.map(\.name)))
  }

  /// A kind's detector names itself as the registry does: its faces' digests land in the field
  /// the kind declares.
  @Test func loadedDetectorsNameTheirKinds() throws {
    let loader = DetectorLoader()
    for choice in [DetectorChoice.haarProfile] {
      let detector = try loader.detector(choice)
      #expect(detector.identity.members.map(\.name) == choice.kinds.map(\.name))
    }
  }
}
