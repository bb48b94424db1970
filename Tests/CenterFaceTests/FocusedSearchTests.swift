import PhotoCore
import Testing

@testable import CenterFace

/// faceblur's check searches each hidden face's crop with `faces(in:options:near:margin:)`: each
/// scale of the pyramid only around the face, as far as that scale's tiles read around the cells
/// they own (128 pixels of its input), and at least `margin`.
@Suite struct FocusedSearchTests {
  /// A 2400x900 photo with the astronaut's face (about 89x120 pixels) at three places: A at
  /// x 181, B at x 631 (past full size's reach around A, within a quarter size's), C at x 1981
  /// (past every scale's reach).
  func photo() throws -> (Image, CenterFaceDetector) {
    let astronaut = try decodedFixture("faces/astronaut.png")
    var image = Image(width: 2400, height: 900, fill: RGBA(120, 110, 100))
    for x in [0, 450, 1800] { image = pasting(astronaut, into: image, x: x, y: 200) }
    return (image, CenterFaceDetector(model: try model(), checksum: ""))
  }

  @Test func eachScaleSearchesOnlyAsFarAsItsTilesRead() throws {
    let (image, detector) = try photo()
    let options = DetectionOptions()
    #expect(detector.scales(width: 2400, height: 900, options: options) == [1, 0.25])
    let whole = try detector.faces(in: image, options: options)
    try #require(whole.count == 3, "\(whole.map { Int($0.x) })")
    let a = PixelRect(x: 181, y: 258, width: 89, height: 120)
    let near = try detector.faces(in: image, options: options, near: a, margin: 120)
    // A and B; B is found at a quarter size only (full size reads 128 pixels around A, up to
    // x 398; a quarter size 512, up to x 782), C by neither.
    try #require(near.count == 2, "\(near.map { Int($0.x) })")
    #expect(iou(box(near[0]), box(whole[0])) > 0.95)
    #expect(abs((near[0].score ?? 0) - (whole[0].score ?? 0)) < 0.05)
    #expect(near[1].x > 600 && near[1].x < 700 && near[1].x + near[1].width < 800)
    // The margin asked for widens every scale's region: 600 pixels at full size reach B.
    let wider = try detector.faces(in: image, options: options, near: a, margin: 600)
    try #require(wider.count == 2)
    #expect(iou(box(wider[1]), box(whole[1])) > 0.9, "B as full size finds it")
    // A focus outside the image searches nothing.
    #expect(
      try detector.faces(in: image, options: options, near: a.offset(dx: 5000, dy: 0), margin: 0).isEmpty)
  }
}

private func box(_ f: Face) -> (Double, Double, Double, Double) { (f.x, f.y, f.width, f.height) }
