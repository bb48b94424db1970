import Testing

@testable import PhotoCore

/// The detector kinds are declared once (`Detectors.all`), and a choice is a list of them
/// parsed from `+`-joined names: what faceblur's `detector=`, detect's `--detector`, the review
/// page and the sidecar read.
@Suite struct DetectorRegistryTests {
  @Test func theChoicesAreTheKindsAllowedUnions() {
    #expect(
      DetectorChoice.allCases.map(\.rawValue) == [
        "haar", "haar+profile", "centerface", "centerface+haar", "centerface+haar+profile",
      ])
    #expect(DetectorChoice(rawValue: "centerface+haar")?.kinds == [.centerface, .haar])
  }

  @Test(arguments: [
    "", "+", "haar+", "+haar", "Haar", "haar+haar", "haar+centerface", "profile", "centerface+profile",
    "profile+haar", "centerface+haar+profile+x", "haar profile",
  ])
  func anythingElseIsNoChoice(_ text: String) {
    #expect(DetectorChoice(rawValue: text) == nil)
  }

  /// Each kind's settings are its own: a choice that does not run a kind leaves its settings
  /// unused (faceblur refuses them given, rather than ignoring them).
  @Test func settingsBelongToTheirKinds() {
    #expect(Detectors.settings == ["threshold", "scaleFactor", "minNeighbors"])
    #expect(DetectorChoice.centerface.unusedSettings == ["scaleFactor", "minNeighbors"])
    #expect(DetectorChoice.haarProfile.unusedSettings == ["threshold"])
    #expect(DetectorChoice.all.unusedSettings == [])
    var p = FaceblurFilter.Parameters()
    p.detection.detector = .haar
    #expect(throws: FilterError.self) { try p.check(filter: "faceblur", given: ["threshold"]) }
    p.detection.detector = .centerfaceHaar
    #expect(throws: Never.self) { try p.check(filter: "faceblur", given: ["threshold", "minNeighbors"]) }
  }

  /// The search's fields are the kinds' own, in the registry's order, between the detector and
  /// the face sizes; faceblur's parameters end with them.
  @Test func theSearchsFieldsAreTheKindsFields() {
    let names = ["detector", "threshold", "scaleFactor", "minNeighbors", "minFace", "maxFace"]
    #expect(DetectionOptions.fields.map(\.name) == names)
    #expect(Array(FaceblurFilter.Parameters.fields.map(\.name).suffix(names.count)) == names)
    #expect(DetectorKind.profile.fields.isEmpty)
  }

  /// The smallest face a choice finds is its kinds' smallest: the review page's "near the
  /// smallest size" reads it.
  @Test func theSmallestFaceIsTheKindsSmallest() {
    #expect(DetectorChoice.haar.smallestFace == 24)
    #expect(DetectorChoice.haarProfile.smallestFace == 20)
    #expect(DetectorChoice.centerface.smallestFace == 20)
  }

  /// A step records the SHA-256 of each file that searched in the field its kind names.
  @Test func eachKindsDigestHasAField() {
    for kind in Detectors.all {
      #expect(FaceblurFilter.Derived.digests[kind.digestField] != nil, "\(kind.name)")
      #expect(FaceblurFilter.Derived.fields.contains { $0.name == kind.digestField }, "\(kind.name)")
    }
  }
}
