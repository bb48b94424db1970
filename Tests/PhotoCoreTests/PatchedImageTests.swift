import Testing

@testable import PhotoCore

/// `PatchedImage`: a window of an image with a rendered patch over it, read row by row in place.
@Suite struct PatchedImageTests {
  /// The pixels a patched window should hold, made the plain way: the image cropped, the
  /// patch's pixels written over it.
  static func expected(_ image: Image, window: PixelRect, patch: PixelBuffer?) -> Image {
    var out = image.cropped(x: window.x, y: window.y, width: window.width, height: window.height)
    if let patch {
      for y in patch.rect.rows {
        for x in patch.rect.columns {
          let p = patch.pixel(x: x, y: y)
          let o = ((y - window.y) * window.width + x - window.x) * 4
          for c in 0..<4 { out.bytes[o + c] = p[c] }
        }
      }
    }
    return out
  }

  static func patch(_ rect: PixelRect, seed: UInt64) -> PixelBuffer {
    let noise = noiseImage(width: rect.width, height: rect.height, seed: seed)
    let b = PixelBuffer(rect: rect)
    noise.bytes.withUnsafeBufferPointer { bytes in
      for y in rect.rows {
        b.row(y).update(from: bytes.baseAddress! + (y - rect.y) * rect.width * 4, count: rect.width * 4)
      }
    }
    return b
  }

  @Test func itsRowsAreTheImagesWithThePatchOver() {
    let image = noiseImage(width: 120, height: 80, seed: 3)
    let window = PixelRect(x: 10, y: 5, width: 100, height: 70)
    let over = Self.patch(PixelRect(x: 40, y: 20, width: 30, height: 25), seed: 4)
    let patched = PatchedImage(image, rect: window, patch: over)
    let want = Self.expected(image, window: window, patch: over)
    #expect(patched.image() == want)
    // Any columns of any row, crossing the patch's edges or not.
    for (y, columns) in [
      (0, 0..<100), (15, 25..<35), (15, 29..<31), (20, 0..<31), (39, 59..<100), (40, 0..<100), (30, 60..<61),
    ] {
      let row = patched.withRow(y, columns: columns) {
        Array(UnsafeBufferPointer(start: $0, count: columns.count * 4))
      }
      let o = (y * window.width + columns.lowerBound) * 4
      #expect(row == Array(want.bytes[o..<(o + columns.count * 4)]), "row \(y), columns \(columns)")
    }
    // A row the patch does not cross is read in place.
    let inPlace: Bool = image.bytes.withUnsafeBufferPointer { bytes in
      let start: UnsafePointer<UInt8> = bytes.baseAddress! + (7 * 120 + 13) * 4
      return patched.withRow(2, columns: 3..<9) { $0 == start }
    }
    #expect(inPlace)
  }

  @Test func aWindowOfAWindowHoldsItsPart() {
    let image = noiseImage(width: 90, height: 60, seed: 5)
    let over = Self.patch(PixelRect(x: 30, y: 20, width: 20, height: 20), seed: 6)
    let patched = PatchedImage(image, rect: PixelRect(x: 5, y: 5, width: 80, height: 50), patch: over)
    let all = patched.image()
    for part in [
      PixelRect(x: 0, y: 0, width: 80, height: 50), PixelRect(x: 30, y: 20, width: 10, height: 30),
      PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 40, y: 30, width: 40, height: 20),
    ] {
      let w = patched.window(part)
      #expect(w.rect == part.offset(dx: 5, dy: 5))
      #expect(
        w.image() == all.cropped(x: part.x, y: part.y, width: part.width, height: part.height), "\(part)")
    }
    // A part the patch misses carries no patch.
    #expect(patched.window(PixelRect(x: 0, y: 0, width: 10, height: 10)).patch == nil)
  }

  @Test func theWholeImageWithNothingOverItIsTheImage() {
    let image = noiseImage(width: 33, height: 17, seed: 8)
    #expect(PatchedImage(image).image() == image)
    #expect(
      PatchedImage(image).window(PixelRect(x: 3, y: 4, width: 20, height: 10)).image()
        == image.cropped(x: 3, y: 4, width: 20, height: 10))
  }
}
