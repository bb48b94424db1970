import Codecs
import Foundation
import Testing

@testable import PhotoCore

/// The 24 MP crowd photo (96 real faces of 26 to 95 pixels on a real background; see
/// ``CrowdPhoto``), made at test time, against OpenCV 4.14's boxes on exactly its pixels.
@Suite(.serialized) struct CrowdPhotoTests {
  /// One build of the photo (about 0.5 s and 96 MB) for the whole suite.
  static let photo: Result<(CrowdPhoto, Image), any Error> = Result {
    let crowd = try CrowdPhoto.reference()
    return (crowd, try crowd.build())
  }

  @Test func thePixelsAreTheOnesOpenCVSaw() throws {
    let (crowd, image) = try Self.photo.get()
    #expect((image.width, image.height) == (6000, 4000))
    #expect(crowd.people.count == 96)
    #expect(rgbCRC32(image) == crowd.crc32)
  }

  /// OpenCV's boxes, in OpenCV's (one-thread) order: the faces and false faces at the default
  /// settings, and every raw window (minNeighbors 0).
  @Test func boxesAreOpenCVsInOpenCVsOrder() throws {
    let (crowd, image) = try Self.photo.get()
    let cascade = try defaultCascade.get()
    let grey = GreyImage(image)
    #expect(crowd.runs.count == 2)
    for run in crowd.runs {
      let ours = try HaarDetector.detect(in: grey, cascade: cascade, options: run.options)
      #expect(ours.count == run.boxes.count, "\(run)")
      #expect(ours == run.boxes, "\(run)")
    }
  }

  /// faceblur, through the detector service as `apply` runs it, stores exactly the boxes that
  /// `detect` lists (OpenCV's, in reading order) as fractions of the photo: it hides every face
  /// detect finds, at full size, on a 24 MP photo of small faces.
  @Test func faceblurStoresDetectsBoxes() throws {
    let (crowd, image) = try Self.photo.get()
    let detector = HaarFaceDetector(cascade: try defaultCascade.get())
    let listed = try detector.faces(in: image, options: DetectionOptions())
    let reference = try #require(crowd.runs.first { $0.options.minNeighbors == 3 })
    #expect(Set(listed.map { [$0.x, $0.y, $0.width, $0.height] }) == Set(reference.boxes.map {
      [Double($0.x), Double($0.y), Double($0.width), Double($0.height)]
    }))
    let step = try Filters.request("faceblur", values: ["detector": .choice("haar")]).resolve(
      in: ResolveContext(image: image, detector: detector, checker: FindsNothing()))
    let stored = try #require(step.typed(FaceblurFilter.self)).derived.faces
    #expect(stored.count == listed.count)
    for (box, face) in zip(stored, listed) {
      let p = box.pixels(width: image.width, height: image.height)
      #expect(abs(p.x - face.x) < 1e-6 && abs(p.y - face.y) < 1e-6, "\(p) against \(face)")
      #expect(abs(p.width - face.width) < 1e-6 && abs(p.height - face.height) < 1e-6)
    }
  }

  /// Forced to each build of the stump kernels (every one this processor runs), the detector
  /// gives exactly OpenCV's raw windows, in OpenCV's order.
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func everyKernelBuildGivesOpenCVsRawWindows(kernel: HaarKernel) throws {
    let (crowd, image) = try Self.photo.get()
    let cascade = try defaultCascade.get()
    let run = try #require(crowd.runs.first { $0.options.minNeighbors == 0 })
    let raw = try HaarDetector.rawDetections(
      in: GreyImage(image), cascade: cascade, options: run.options, limit: .max, parallel: true,
      kernel: kernel)
    #expect(raw.count == run.boxes.count, "[\(kernel)]")
    #expect(raw == run.boxes, "[\(kernel)]")
  }

  /// One core or all, and however the scales are cut into bands: the same boxes in the same order.
  @Test func resultsDoNotDependOnCoresOrBands() throws {
    let (_, image) = try Self.photo.get()
    let cascade = try defaultCascade.get()
    let grey = GreyImage(image)
    let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    let limit = HaarDetector.candidateLimit(width: grey.width, height: grey.height)
    let parallel = try HaarDetector.rawDetections(
      in: grey, cascade: cascade, options: options, limit: limit, parallel: true)
    let serial = try HaarDetector.rawDetections(
      in: grey, cascade: cascade, options: options, limit: limit, parallel: false)
    #expect(parallel == serial)
    let smallBands = try HaarDetector.rawDetections(
      in: grey, cascade: cascade, options: options, limit: limit, parallel: true, bandEntries: 300_000)
    #expect(smallBands == serial)
    #expect(
      RectangleGrouping.group(serial, minNeighbors: 3)
        == (try HaarDetector.detect(in: grey, cascade: cascade, options: DetectionOptions())))
  }
}
