/// Pixels of a rectangle of an image, in memory: the planner's tile.
///
/// Pixel (x, y) of the image, for (x, y) in `rect`, starts at `base + (y - rect.y) * stride +
/// (x - rect.x) * 4`: RGBA as in `Image`, rows `stride` bytes apart (at least `rect.width * 4`).
/// A buffer either owns its memory (`PixelBuffer(rect:)`) or views memory that something else
/// keeps alive: another buffer (`view(_:)`, which keeps it alive), or an `Image`'s bytes for the
/// length of a `withPixels` call. Several threads may write disjoint pixels of one buffer.
public final class PixelBuffer: @unchecked Sendable {
  /// The image pixels held.
  public let rect: PixelRect
  /// The first byte of pixel (rect.x, rect.y).
  public let base: UnsafeMutablePointer<UInt8>
  /// Bytes from one row to the next.
  public let stride: Int
  /// What keeps `base` alive: nil when this buffer allocated it.
  private let owner: AnyObject?
  private let owned: Bool

  /// A buffer of its own for the pixels of `rect`, rows packed (`stride` = width × 4). Its bytes
  /// are zero.
  public init(rect: PixelRect) {
    self.rect = rect
    stride = rect.width * 4
    let count = Swift.max(1, rect.area * 4)
    base = .allocate(capacity: count)
    base.initialize(repeating: 0, count: count)
    owner = nil
    owned = true
  }

  /// A buffer viewing memory that `owner` keeps alive (or the caller, when nil, for as long as
  /// the buffer is used).
  public init(
    viewing base: UnsafeMutablePointer<UInt8>, stride: Int, rect: PixelRect, owner: AnyObject? = nil
  ) {
    precondition(stride >= rect.width * 4, "rows overlap")
    (self.base, self.stride, self.rect, self.owner) = (base, stride, rect, owner)
    owned = false
  }

  deinit { if owned { base.deallocate() } }

  /// The bytes in memory: rows × stride.
  public var byteCount: Int { rect.height * stride }

  /// The first byte of pixel (x, y), which must be in `rect`.
  @inline(__always) public func pixel(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> {
    base + (y - rect.y) * stride + (x - rect.x) * 4
  }

  /// The first byte of row `y`'s first pixel (column `rect.x`).
  @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + (y - rect.y) * stride }

  /// A buffer viewing the pixels of `r` (inside `rect`) in this one's memory.
  public func view(_ r: PixelRect) -> PixelBuffer {
    precondition(rect.contains(r), "a view lies inside its buffer")
    if r == rect { return self }
    let start = r.isEmpty ? base : pixel(x: r.x, y: r.y)
    return PixelBuffer(viewing: start, stride: stride, rect: r, owner: self)
  }

  /// Copies the pixels of `r`, which must be in both buffers, from `source`.
  public func copy(_ r: PixelRect, from source: PixelBuffer) {
    precondition(rect.contains(r) && source.rect.contains(r), "the copied pixels lie in both buffers")
    guard !r.isEmpty else { return }
    let bytes = r.width * 4
    for y in r.rows {
      let to = pixel(x: r.x, y: y)
      let from = source.pixel(x: r.x, y: y)
      if to != from { to.update(from: from, count: bytes) }
    }
  }

  /// The pixels of `r` (inside `rect`) as an `Image` of their own.
  public func image(_ r: PixelRect) -> Image {
    precondition(rect.contains(r) && !r.isEmpty, "the image lies inside the buffer")
    let bytes = [UInt8](unsafeUninitializedCapacity: r.area * 4) { out, count in
      for y in r.rows {
        (out.baseAddress! + (y - r.y) * r.width * 4).initialize(from: pixel(x: r.x, y: y), count: r.width * 4)
      }
      count = r.area * 4
    }
    return Image(width: r.width, height: r.height, bytes: bytes)
  }
}

extension Image {
  /// Calls `body` with the whole image as a buffer that views its bytes (pixel (x, y) of the
  /// image is pixel (x, y) of the buffer). Keep no reference to the buffer after `body` returns.
  public mutating func withPixels<R>(_ body: (PixelBuffer) throws -> R) rethrows -> R {
    let rect = PixelRect(ImageSize(width, height))
    let stride = width * 4
    return try bytes.withUnsafeMutableBufferPointer { buffer in
      try body(PixelBuffer(viewing: buffer.baseAddress!, stride: stride, rect: rect))
    }
  }

  /// Calls `body` with the whole image as a buffer that views its bytes, which `body` must only
  /// read (a transform's input). No copy is made.
  public func withReadOnlyPixels<R>(_ body: (PixelBuffer) throws -> R) rethrows -> R {
    let rect = PixelRect(ImageSize(width, height))
    let stride = width * 4
    return try bytes.withUnsafeBufferPointer { buffer in
      try body(
        PixelBuffer(viewing: UnsafeMutablePointer(mutating: buffer.baseAddress!), stride: stride, rect: rect))
    }
  }

  /// An image of `size` whose every byte `body` writes, through a buffer of the whole image.
  /// No byte is ever read before `body` writes it: `body` must write every pixel.
  public init(size: ImageSize, writing body: (PixelBuffer) -> Void) {
    let count = size.width * size.height * 4
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      buffer.initialize(repeating: 0)
      body(PixelBuffer(viewing: buffer.baseAddress!, stride: size.width * 4, rect: PixelRect(size)))
      initialized = count
    }
    self.init(width: size.width, height: size.height, bytes: bytes)
  }

  /// An image of `size` that `body` fills, every byte of it (a decoder's first pass), or
  /// abandons (it failed): the bytes are not zeroed first, and the pages of a large image are
  /// mapped by another core while `body` writes (`PageFaults`), so that the decoder's thread
  /// does not pay for them. Bytes `body` leaves unwritten hold whatever the allocator gave.
  public static func filling(_ size: ImageSize, everyByte body: (PixelBuffer) -> Void) -> Image {
    let count = size.width * size.height * 4
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      PageFaults.populating(UnsafeMutableRawBufferPointer(buffer)) {
        body(PixelBuffer(viewing: buffer.baseAddress!, stride: size.width * 4, rect: PixelRect(size)))
      }
      initialized = count
    }
    return Image(width: size.width, height: size.height, bytes: bytes)
  }
}
