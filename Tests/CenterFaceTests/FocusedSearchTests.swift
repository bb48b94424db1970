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
    let near = try detector.faces(in: PatchedImage(image), options: options, near: a, margin: 120)
    // A and B; B is found at a quarter size only (full size reads 128 pixels around A, up to
    // x 398; a quarter size 512, up to x 782), C by neither.
    try #require(near.count == 2, "\(near.map { Int($0.x) })")
    #expect(iou(box(near[0]), box(whole[0])) > 0.95)
    #expect(abs((near[0].score ?? 0) - (whole[0].score ?? 0)) < 0.05)
    #expect(near[1].x > 600 && near[1].x < 700 && near[1].x + near[1].width < 800)
    // The margin asked for widens every scale's region: 600 pixels at full size reach B.
    let wider = try detector.faces(in: PatchedImage(image), options: options, near: a, margin: 600)
    try #require(wider.count == 2)
    #expect(iou(box(wider[1]), box(whole[1])) > 0.9, "B as full size finds it")
    // A focus outside the image searches nothing.
    #expect(
      try detector.faces(
        in: PatchedImage(image), options: options, near: a.offset(dx: 5000, dy: 0), margin: 0
      ).isEmpty)
  }

  /// faceblur's check searches the photo's own pixels with the rendered ones over them, never
  /// copied: every scale finds in it exactly what it finds in the same pixels made into an
  /// image of their own (the crop as the check made it before).
  @Test func aPatchedCropIsSearchedAsItsPixelsAre() throws {
    let (image, detector) = try photo()
    let options = DetectionOptions()
    // Over B, a patch of flat grey with a darker band (B hidden, as a renderer would), in a
    // window from x 100 (half of A's context to its left gone) to 1300 (C outside).
    let over = PixelBuffer(rect: PixelRect(x: 600, y: 220, width: 160, height: 200))
    for y in over.rect.rows {
      for x in over.rect.columns {
        let p = over.pixel(x: x, y: y)
        let v: UInt8 = (y / 20) % 3 == 0 ? 60 : 128
        (p[0], p[1], p[2], p[3]) = (v, v, v, 255)
      }
    }
    let window = PixelRect(x: 100, y: 0, width: 1200, height: 900)
    let patched = PatchedImage(image, rect: window, patch: over)
    let made = PatchedImage(patched.image())
    let whole = try detector.faces(in: patched.image(), options: options)
    #expect(
      try detector.faces(
        in: patched, options: options, near: PixelRect(x: 0, y: 0, width: 1200, height: 900), margin: 0)
        == whole)
    #expect(whole.count == 1, "A alone: B is hidden, C outside")
    for (focus, margin) in [
      (PixelRect(x: 81, y: 258, width: 89, height: 120), 120),
      (PixelRect(x: 500, y: 220, width: 160, height: 200), 200),
    ] {
      let a = try detector.faces(in: patched, options: options, near: focus, margin: margin)
      let b = try detector.faces(in: made, options: options, near: focus, margin: margin)
      #expect(a == b, "\(focus)")
    }
  }

  /// A large face's check searches a region of up to several million pixels at full size (face
  /// #0 of the bench's faces24.jpg, 457x513 pixels, at level 3: 2350x1914); its tiles are
  /// smaller than a photo's, so that the search holds well under what the photo's own detection
  /// held.
  @Test func aLargeFacesSearchHoldsLessThanThePhotosDetection() throws {
    let m = try model()
    let o = CenterFaceOptions()
    func estimate(_ w: Int, _ h: Int, tiles: Int) -> Int {
      m.memoryEstimate(
        width: w, height: h, margin: o.tileMargin, maxTilePixels: tiles,
        limit: CenterFaceModel.candidateLimit(width: w, height: h))
    }
    let photo = estimate(6532, 3674, tiles: o.maxTilePixels)
    let focused = estimate(2350, 1914, tiles: CenterFaceDetector.focusedTilePixels)
    #expect(focused * 3 < photo * 2, "\(focused) against \(photo)")
    #expect(estimate(2350, 1914, tiles: o.maxTilePixels) > focused)
  }
}

private func box(_ f: Face) -> (Double, Double, Double, Double) { (f.x, f.y, f.width, f.height) }
