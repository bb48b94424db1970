import Testing

@testable import PhotoCore

/// faceblur's check renders a region around each face through the kernel of the whole step; the
/// index makes each region from the operations that take part in it. Its renders must be the
/// whole kernel's, byte for byte, whatever the operations' chain of dependencies.
@Suite struct LocalOpIndexTests {
  /// A faceblur step with `count` faces of every size, crowded and overlapping, on `image`.
  static func kernel(_ style: FaceblurFilter.Style, count: Int, on image: Image, seed: UInt64) -> LocalKernel
  {
    var rng = SplitMix(seed: seed)
    func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
    var p = FaceblurFilter.Parameters()
    p.style = style
    var derived = FaceblurFilter.Derived()
    for _ in 0..<count {
      let side = 0.01 + unit() * unit() * 0.4
      derived.faces.append(
        Box(fractionX: unit() * 1.1 - 0.1, y: unit() * 1.1 - 0.1, width: side, height: side * (0.5 + unit())))
    }
    derived.levels = derived.faces.map { _ in Int(unit() * 7) }
    return FaceblurFilter.prepare(p, derived, input: ImageSize(image.width, image.height)).first
      as! LocalKernel
  }

  @Test(arguments: FaceblurFilter.Style.allCases)
  func regionsRenderAsTheWholeStepDoes(style: FaceblurFilter.Style) {
    let image = noiseImage(width: 300, height: 200, seed: 9)
    let whole = Self.kernel(style, count: 60, on: image, seed: 11)
    let index = LocalOpIndex(whole, cell: 16)
    var rng = SplitMix(seed: 12)
    for _ in 0..<40 {
      let x = Int(rng.next() % 280)
      let y = Int(rng.next() % 180)
      let crop = PixelRect(
        x: x, y: y, width: 1 + Int(rng.next() % UInt64(300 - x)),
        height: 1 + Int(rng.next() % UInt64(200 - y)))
      func render(_ kernel: LocalKernel) -> (PixelRect, Image) {
        let needed = kernel.inputRect(for: crop)
        let buffer = PixelBuffer(rect: needed)
        image.withReadOnlyPixels { buffer.copy(needed, from: $0) }
        kernel.render(buffer, into: buffer.view(crop))
        return (needed, buffer.image(crop))
      }
      let part = index.kernel(for: crop)
      #expect(part.ops.count <= whole.ops.count)
      let (a, b) = (render(whole), render(part))
      #expect(a.0 == b.0, "\(crop)")
      #expect(a.1 == b.1, "\(crop)")
    }
  }
}
