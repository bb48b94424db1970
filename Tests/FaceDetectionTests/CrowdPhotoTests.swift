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
