import Codecs
import Foundation
import Testing

@testable import PhotoCore

/// Debian's other cascades: trees, tilted features, non-square windows and the old XML format,
/// checked against OpenCV 4.14's raw and grouped boxes in Fixtures/faces/cascade-reference.json
/// (written by cascade-reference.py beside it).
@Suite struct OtherCascadeTests {
  static let cascades = [
    "haarcascade_eye_tree_eyeglasses.xml", "haarcascade_fullbody.xml",
    "haarcascade_upperbody.xml", "haarcascade_frontalface_alt2.xml",
    "haarcascade_licence_plate_rus_16stages.xml", "haarcascade_smile.xml",
  ]
  static let photos = ["astronaut.png": "faces/astronaut.png", "xmp_test.jpg": "jpeg/xmp_test.jpg"]

  static func sorted(_ boxes: [FaceBox]) -> [[Int]] {
    boxes.map { [$0.x, $0.y, $0.width, $0.height] }.sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// Exactly OpenCV's boxes, as multisets: every raw window (minNeighbors 0) and every group
  /// (minNeighbors 3, grouped from our raw windows).
  @Test(arguments: cascades)
  func sameBoxesAsOpenCV(cascadeName: String) throws {
    let json = try JSONSerialization.jsonObject(with: Data(fixture("faces/cascade-reference.json")))
    guard
      let entry = ((json as? [String: Any])?["cascades"] as? [String: Any])?[cascadeName]
        as? [String: Any], let photos = entry["photos"] as? [String: [String: [[Int]]]]
    else { throw TestSetupError(description: "no reference for \(cascadeName)") }
    let path = "/usr/share/opencv4/haarcascades/" + cascadeName
    guard let xml = FileManager.default.contents(atPath: path) else {
      throw TestSetupError(description: "\(path) is missing: apt-get install opencv-data")
    }
    let cascade = try HaarCascade(xml: [UInt8](xml))
    #expect(photos.keys.sorted() == Self.photos.keys.sorted())
    for (photo, runs) in photos {
      let grey = GreyImage(try decodedFixture(Self.photos[photo]!))
      let raw = HaarDetector.rawDetections(
        in: grey, cascade: cascade, options: DetectionOptions(scaleFactor: 1.1, minNeighbors: 0))
      if let expected = runs["0"] {
        #expect(Self.sorted(raw) == expected, "\(cascadeName) on \(photo), raw")
      }
      let grouped = RectangleGrouping.group(raw, minNeighbors: 3)
      #expect(runs["3"] != nil)
      #expect(Self.sorted(grouped) == runs["3"] ?? [], "\(cascadeName) on \(photo), grouped")
    }
  }

  /// The profile cascade's search of a photo's mirror, made by mirroring the grey image in place,
  /// finds exactly what a search of the mirrored photo finds, and the mirrored detector reports
  /// those faces in the photo's own pixels.
  @Test func mirroringTheGreyImageIsMirroringThePhoto() throws {
    let path = "/usr/share/opencv4/haarcascades/haarcascade_profileface.xml"
    guard let xml = FileManager.default.contents(atPath: path) else {
      throw TestSetupError(description: "\(path) is missing: apt-get install opencv-data")
    }
    let detector = HaarFaceDetector(cascade: try HaarCascade(xml: [UInt8](xml)), name: "profile")
    // Every raw window (minNeighbors 0), so that there is plenty to compare.
    let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    var seen = 0
    for photo in ["faces/astronaut.png", "jpeg/xmp_test.jpg", "faces/hopper.jpg"] {
      let image = try decodedFixture(photo)
      let flipped = image.flipped(horizontally: true)
      let inMirror = try detector.facesInMirror(of: image, options: options)
      #expect(inMirror == (try detector.faces(in: flipped, options: options)), "\(photo)")
      var grey = GreyImage(image)
      grey.mirror()
      #expect(grey == GreyImage(flipped), "\(photo)")
      let both = try MirroredDetector(detector).faces(in: image, options: options)
      let w = Double(image.width)
      let back = inMirror.map { Face(x: w - $0.x - $0.width, y: $0.y, width: $0.width, height: $0.height) }
      #expect(
        FaceGrouping.merge([try detector.faces(in: image, options: options), back]) == both, "\(photo)")
      seen += inMirror.count
    }
    #expect(seen > 0, "no face in any mirror")
  }
}
