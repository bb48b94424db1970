import PhotoCore
import Testing

/// How several searches' faces become one box per face (`FaceGrouping`), and what the united
/// and mirrored detectors return.
@Suite struct FaceGroupingTests {
  func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double, score: Double? = nil) -> Face {
    Face(
      x: x, y: y, width: w, height: h, score: score,
      landmarks: score == nil ? [] : [FacePoint(x: x + w / 3, y: y + h / 3)])
  }

  @Test func overlappingBoxesOfTwoDetectorsAreOneFaceEnclosingBoth() {
    // IoU of these two is 64 / (100 + 100 - 64) = 0.47.
    let haar = face(10, 10, 10, 10)
    let cnn = face(12, 12, 10, 10, score: 0.8)
    let merged = FaceGrouping.merge([[cnn], [haar]])
    #expect(merged == [Face(x: 10, y: 10, width: 12, height: 12, score: 0.8, landmarks: cnn.landmarks)])
    // The score and landmarks come from the box that has them, whichever list comes first.
    #expect(FaceGrouping.merge([[haar], [cnn]]).first?.score == 0.8)
  }

  @Test func aBoxInsideAnotherOfAboutItsSizeIsTheSameFace() {
    // IoU 36 / 100 = 0.36 is enough; a 6x6 box inside a 10x10 one, 1.67x as wide, is contained.
    #expect(FaceGrouping.sameFace(face(0, 0, 10, 10), face(2, 2, 6, 6)))
    // Inside, but the outer box is more than twice as wide: a small face on a large false box
    // (or in a crowd) stays its own face, never swallowed.
    #expect(!FaceGrouping.sameFace(face(0, 0, 30, 30), face(2, 2, 6, 6)))
    // Less than 70% inside and IoU below 0.3: two faces.
    #expect(!FaceGrouping.sameFace(face(0, 0, 10, 10), face(7, 0, 10, 10)))
    // Touching edges share no pixel.
    #expect(!FaceGrouping.sameFace(face(0, 0, 10, 10), face(10, 0, 10, 10)))
  }

  @Test func groupsAreTransitiveAndComeOutInReadingOrder() {
    // a ~ b and b ~ c (IoU 0.54 each), a and c apart: one group of three; d apart.
    let a = face(0, 0, 10, 10)
    let b = face(3, 0, 10, 10)
    let c = face(6, 0, 10, 10)
    let d = face(50, 5, 8, 8)
    let merged = FaceGrouping.merge([[d, c], [a], [b]])
    #expect(merged == [face(0, 0, 16, 10), d])
    // Nothing to group: the faces as they were, in reading order.
    #expect(FaceGrouping.merge([[d], [a]]) == [a, d])
    #expect(FaceGrouping.merge([[], []]).isEmpty)
  }

  /// A detector that finds one face on the left half of any image: mirrored, it also finds the
  /// mirror of that face, reported in the unmirrored image's pixels.
  struct LeftHalf: FaceDetector {
    var identity: DetectorIdentity { DetectorIdentity(name: "left", version: 1, model: "m") }
    func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
      [Face(x: 1, y: 2, width: 3, height: 3, score: 0.5, landmarks: [FacePoint(x: 2, y: 3)])]
    }
  }

  @Test func mirroredAndUnitedDetectors() throws {
    let image = Image(width: 20, height: 10)
    let mirrored = try MirroredDetector(LeftHalf()).faces(in: image, options: DetectionOptions())
    #expect(
      mirrored == [
        Face(x: 1, y: 2, width: 3, height: 3, score: 0.5, landmarks: [FacePoint(x: 2, y: 3)]),
        Face(x: 16, y: 2, width: 3, height: 3, score: 0.5, landmarks: [FacePoint(x: 18, y: 3)]),
      ])
    let united = UnitedDetector([LeftHalf(), LeftHalf()])
    #expect(try united.faces(in: image, options: DetectionOptions()).count == 1)
    #expect(united.identity.name == "left+left")
    #expect(united.identity.members.map(\.model) == ["m", "m"])
  }
}
