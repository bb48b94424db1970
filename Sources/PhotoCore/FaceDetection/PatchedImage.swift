/// A rectangle of an image with some of its pixels replaced by a rendered patch, read row by row
/// without being copied: what faceblur's check searches (the whole photo's pixels, with the
/// pixels its hiding changed around one face).
///
/// Coordinates are the window's: pixel (0, 0) is pixel (`rect.x`, `rect.y`) of `base`. A pixel
/// inside the patch's rectangle reads the patch; any other reads `base`.
public struct PatchedImage: Sendable {
  /// The image under the patch.
  public let base: Image
  /// The window, in pixels of `base` (inside it, not empty).
  public let rect: PixelRect
  /// Pixels over `base`, in `base`'s coordinates; its rectangle lies inside `rect`.
  public let patch: PixelBuffer?

  /// All of `image`, nothing over it.
  public init(_ image: Image) {
    self.init(image, rect: PixelRect(ImageSize(image.width, image.height)), patch: nil)
  }

  /// `rect` of `base` (inside it, not empty), with `patch` (inside `rect`) over it.
  public init(_ base: Image, rect: PixelRect, patch: PixelBuffer?) {
    precondition(
      !rect.isEmpty && PixelRect(ImageSize(base.width, base.height)).contains(rect),
      "the window lies inside the image")
    precondition(patch.map { rect.contains($0.rect) } ?? true, "the patch lies inside the window")
    (self.base, self.rect, self.patch) = (base, rect, patch)
  }

  public var width: Int { rect.width }
  public var height: Int { rect.height }

  /// The part `r` (in this window's coordinates, inside it, not empty) as a window of its own:
  /// no pixel is copied.
  public func window(_ r: PixelRect) -> PatchedImage {
    precondition(
      !r.isEmpty && PixelRect(ImageSize(width, height)).contains(r), "the part lies inside the window")
    let inBase = r.offset(dx: rect.x, dy: rect.y)
    let over = patch.flatMap { p -> PixelBuffer? in
      let kept = p.rect.intersection(inBase)
      return kept.isEmpty ? nil : p.view(kept)
    }
    return PatchedImage(base, rect: inBase, patch: over)
  }

  /// Calls `body` with the RGBA pixels of row `y`'s `columns` (the first column's pixel; both in
  /// this window's coordinates, inside it): `base`'s own bytes where the patch does not cross
  /// them, else a copy with the patch's pixels over it, valid only during `body`.
  ///
  /// - Complexity: O(1), or O(columns) where the patch crosses them.
  @inline(__always)
  public func withRow<R>(_ y: Int, columns: Range<Int>, _ body: (UnsafePointer<UInt8>) -> R) -> R {
    let (bx, by) = (rect.x + columns.lowerBound, rect.y + y)
    return base.bytes.withUnsafeBufferPointer { bytes in
      let start = bytes.baseAddress! + (by * base.width + bx) * 4
      guard let p = patch, by >= p.rect.y, by < p.rect.maxY,
        bx < p.rect.maxX, bx + columns.count > p.rect.x
      else { return body(start) }
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: columns.count * 4) { row in
        let out = row.baseAddress!
        out.initialize(from: start, count: columns.count * 4)
        let x0 = max(bx, p.rect.x)
        let x1 = min(bx + columns.count, p.rect.maxX)
        (out + (x0 - bx) * 4).update(from: p.pixel(x: x0, y: by), count: (x1 - x0) * 4)
        return body(UnsafePointer(out))
      }
    }
  }

  /// The window's pixels as an image of their own.
  ///
  /// - Complexity: O(width × height).
  public func image() -> Image {
    if patch == nil && rect == PixelRect(ImageSize(base.width, base.height)) { return base }
    let rowBytes = width * 4
    return Image(
      width: width, height: height,
      bytes: [UInt8](unsafeUninitializedCapacity: height * rowBytes) { out, count in
        for y in 0..<height {
          withRow(y, columns: 0..<width) {
            (out.baseAddress! + y * rowBytes).initialize(from: $0, count: rowBytes)
          }
        }
        count = height * rowBytes
      })
  }
}
