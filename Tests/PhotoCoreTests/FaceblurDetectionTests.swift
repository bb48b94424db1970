import Synchronization
import Testing

@testable import PhotoCore

/// The whole path with a real (tiny, hand-made) cascade: a 6×6 window, one stage, one stump on
/// −1 × (whole window) + 2 × (bottom half). A window is a "face" when its bottom half is much
/// brighter than its top half.
@Suite struct FaceblurDetectionTests {
  static let cascadeXML = """
    <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
    <height>6</height><width>6</width>
    <stages><_><stageThreshold>0.</stageThreshold><weakClassifiers>
      <_><internalNodes>0 -1 0 1.</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages>
    <features><_><rects><_>0 0 6 6 -1.</_><_>0 3 6 3 2.</_></rects></_></features></cascade></opencv_storage>
    """

  static var detector: HaarFaceDetector {
    HaarFaceDetector(cascade: try! HaarCascade(xml: Array(cascadeXML.utf8)))
  }

  /// A w×h image: rows above `split` at grey `top`, the rest at `bottom`.
  static func halves(width: Int, height: Int, split: Int, top: UInt8, bottom: UInt8) -> Image {
    var image = Image(width: width, height: height, fill: RGBA(top, top, top))
    for y in split..<height { for x in 0..<width { image[x, y] = RGBA(bottom, bottom, bottom) } }
    return image
  }

  @Test func detectsAndStoresNormalisedBoxes() throws {
    let image = Self.halves(width: 6, height: 6, split: 3, top: 10, bottom: 50)
    let op = try step(
      "faceblur",
      [
        "detector": .choice("haar"), "minNeighbors": .integer(0), "blocks": .integer(2), "scale": .number(1),
        "minBlock": .integer(4),
      ], for: image, detector: Self.detector)
    #expect(op.typed(FaceblurFilter.self)?.derived.faces == [Box(fractionX: 0, y: 0, width: 1, height: 1)])
    var out = image
    try op.render(on: &out)
    // The circle at the level the check stored (the two halves' centre rows may need a wider
    // circle or larger blocks before they change), its blocks at least minBlock's 4 pixels.
    let (p, derived) = try #require(op.typed(FaceblurFilter.self))
    let (blocks, scale) = FaceblurFilter.strength(p, level: derived.level(0))
    var expected = image
    expected.pixelate(
      .circle(centerX: 2.5, centerY: 2.5, radius: scale * 72.0.squareRoot() / 2),
      blockSize: max(4, Int((6 / Double(blocks)).rounded())))
    #expect(out != image)
    #expect(out == expected)
  }

  @Test func noFaceMeansIdenticalBytes() throws {
    let image = Self.halves(width: 6, height: 6, split: 3, top: 50, bottom: 10)
    let op = try step("faceblur", ["detector": .choice("haar"), "minNeighbors": .integer(0)], for: image, detector: Self.detector)
    #expect(op.typed(FaceblurFilter.self)?.derived.faces == [])
    var out = image
    try op.render(on: &out)
    #expect(out.bytes == image.bytes)
  }

  /// The Haar detector returns faces in reading order, whatever order its search found them in.
  @Test func facesAreInReadingOrder() throws {
    let image = Self.halves(width: 12, height: 6, split: 3, top: 10, bottom: 50)
    let faces = try Self.detector.faces(
      in: image, options: DetectionOptions(scaleFactor: 1.1, minNeighbors: 0))
    #expect(faces == faces.inReadingOrder)
    #expect(faces.map(\.x) == [0, 2, 4, 6])
  }
}
