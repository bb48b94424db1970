import Codecs
import Foundation
import PhotoCore
import Testing

/// One `detectMultiScale` call recorded in Fixtures/faces/opencv-reference.json.
struct ReferenceRun: Sendable, CustomStringConvertible {
  var options: DetectionOptions
  var boxes: [FaceBox]
  var description: String {
    "(scaleFactor \(options.scaleFactor), minNeighbors \(options.minNeighbors)"
      + (options.minFace.map { ", minSize \($0)" } ?? "") + ")"
  }
}

/// OpenCV 4.14's boxes for one fixture photo.
struct ReferencePhoto: Sendable {
  var width: Int, height: Int
  var runs: [ReferenceRun]
}

/// Reads the reference boxes for `name` from Fixtures/faces/opencv-reference.json.
func referencePhoto(_ name: String) throws -> ReferencePhoto {
  let json = try JSONSerialization.jsonObject(with: Data(fixture("faces/opencv-reference.json")))
  guard let images = (json as? [String: Any])?["images"] as? [String: Any],
    let photo = images[name] as? [String: Any], let width = photo["width"] as? Int,
    let height = photo["height"] as? Int, let runs = photo["runs"] as? [[String: Any]]
  else { throw TestSetupError(description: "no reference boxes for \(name)") }
  return ReferencePhoto(
    width: width, height: height,
    runs: try runs.map { run in
      guard let settings = run["settings"] as? [String: Any],
        let scaleFactor = settings["scaleFactor"] as? Double,
        let minNeighbors = settings["minNeighbors"] as? Int, let boxes = run["boxes"] as? [[Int]]
      else { throw TestSetupError(description: "malformed reference run for \(name)") }
      var options = DetectionOptions(scaleFactor: scaleFactor, minNeighbors: minNeighbors)
      if let minSize = settings["minSize"] as? [Int] {
        precondition(minSize.count == 2 && minSize[0] == minSize[1], "square minSize expected")
        options.minFace = minSize[0]
      }
      return ReferenceRun(
        options: options, boxes: boxes.map { FaceBox(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) })
    })
}

/// Every fixture photo in the reference file, with its folder. The 16 MP seeding photo and
/// xmp_test.jpg carry OpenCV's false positives, which we must find too.
let referencePhotos = [
  "faces/astronaut.png", "faces/hopper.jpg",
  "faces/hopper_orientation_2.jpg", "faces/hopper_orientation_3.jpg",
  "faces/hopper_orientation_4.jpg", "faces/hopper_orientation_5.jpg",
  "faces/hopper_orientation_6.jpg", "faces/hopper_orientation_7.jpg",
  "faces/hopper_orientation_8.jpg", "photos/camera.png", "photos/chelsea.png", "photos/coffee.png",
  "photos/seeding_by_Clements_Engelhardt.jpg", "jpeg/testorig.jpg", "jpeg/xmp_test.jpg",
]

@Suite struct OpenCVReferenceTests {
  @Test func everyReferencePhotoIsTested() throws {
    let json = try JSONSerialization.jsonObject(with: Data(fixture("faces/opencv-reference.json")))
    let names = ((json as? [String: Any])?["images"] as? [String: Any])?.keys.sorted() ?? []
    #expect(names == referencePhotos.map { String($0.split(separator: "/").last!) }.sorted())
  }

  /// At full size, for each of OpenCV's three settings: at least 95% of OpenCV's boxes are matched
  /// one to one by ours with IoU ≥ 0.7, and at least 95% of ours overlap one of OpenCV's as much.
  @Test(arguments: referencePhotos)
  func boxesMatchOpenCV(path: String) throws {
    let cascade = try defaultCascade.get()
    let reference = try referencePhoto(String(path.split(separator: "/").last!))
    let image = try decodedFixture(path)
    #expect((image.width, image.height) == (reference.width, reference.height))
    for run in reference.runs {
      let ours = try HaarDetector.detect(in: image, cascade: cascade, options: run.options)
      let matched = oneToOneMatches(run.boxes, ours)
      let oursMatching = ours.filter { box in run.boxes.contains { iou($0, box) >= 0.7 } }.count
      #expect(
        Double(matched) >= 0.95 * Double(run.boxes.count),
        "\(path) \(run): OpenCV \(run.boxes), ours \(ours)")
      #expect(
        Double(oursMatching) >= 0.95 * Double(ours.count),
        "\(path) \(run): OpenCV \(run.boxes), ours \(ours)")
      // Sharper than the bar: on the same pixels we find exactly OpenCV's boxes.
      #expect(Set(ours) == Set(run.boxes), "\(path) \(run)")
    }
  }
}
