import Testing

@testable import PhotoCore

@Suite struct FillAndBlurTests {
  @Test func fillPaintsExactlyTheRegion() {
    let image = noiseImage(width: 30, height: 30, seed: 13)
    var out = image
    let region = PixelRegion.circle(centerX: 10, centerY: 12, radius: 6)
    out.fill(region, with: RGBA(1, 2, 3, 4))
    for y in 0..<30 {
      for x in 0..<30 {
        #expect(out[x, y] == (region.contains(x: x, y: y) ? RGBA(1, 2, 3, 4) : image[x, y]))
      }
    }
  }

  @Test func blurKeepsOutsideAndFlattensNoise() {
    let image = noiseImage(width: 60, height: 60, seed: 14)
    var out = image
    let region = PixelRegion.circle(centerX: 30, centerY: 30, radius: 15)
    out.blur(region, radius: 4)
    var spreadBefore = 0
    var spreadAfter = 0
    for y in 0..<60 {
      for x in 0..<60 {
        if !region.contains(x: x, y: y) {
          #expect(out[x, y] == image[x, y])
        } else if region.contains(x: x + 1, y: y) {
          spreadBefore += abs(Int(image[x, y].r) - Int(image[x + 1, y].r))
          spreadAfter += abs(Int(out[x, y].r) - Int(out[x + 1, y].r))
        }
      }
    }
    #expect(spreadAfter * 10 < spreadBefore)
    // A uniform image stays uniform.
    var flat = Image(width: 20, height: 20, fill: RGBA(9, 99, 199))
    flat.blur(.rectangle(x: 0, y: 0, width: 20, height: 20), radius: 3)
    #expect(flat == Image(width: 20, height: 20, fill: RGBA(9, 99, 199)))
  }
}
