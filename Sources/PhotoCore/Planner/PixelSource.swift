/// Where the planner's pixels come from: a decoder that gives an image's rows in order, from the
/// top (a JPEG or PNG being decoded), one pass at a time.
///
/// A pass may skip the rows above the ones it gives and the columns beside them, and decode again
/// from the top for the next pass: a rotation is rendered from columns of the photo, a pass for
/// each group of them, so that the whole image is never in memory.
public protocol PixelSource: AnyObject {
  /// The image's size in pixels, as stored (before any orientation).
  var size: ImageSize { get }
  /// Whether the image can have transparent pixels (a JPEG has none; a PNG may).
  var opacity: Opacity { get }
  /// The memory a pass holds besides the rows it gives (the decoder's own buffers), in bytes,
  /// for a pass over `columns`.
  func passMemory(columns: Range<Int>) -> Int
  /// Starts a pass that gives rows `rows` of columns `columns`, in order. With `toEnd`, the pass
  /// reads the file to its end after the last row, so that damage anywhere is found.
  func startPass(rows: Range<Int>, columns: Range<Int>, toEnd: Bool) throws -> any PixelPass
}

/// One decoding pass of a `PixelSource`.
public protocol PixelPass: AnyObject {
  /// Decodes the pass's next `count` rows into `destination`, rows `stride` bytes apart, the
  /// pass's first column first.
  func read(into destination: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws
  /// Ends the pass, reading on to the end of the file when it was started `toEnd`; returns the
  /// decoder's harmless warnings.
  func finish() throws -> [String]
}

/// Where the planner's output goes: an encoder that takes the image in bands of rows (a JPEG
/// compressed band by band on all cores, a PNG written row by row).
public protocol PixelSink: AnyObject, Sendable {
  /// Rows in every band but the last.
  var bandHeight: Int { get }
  /// True when the bands must be written one at a time, top to bottom.
  var needsOrder: Bool { get }
  /// Takes band `index`: rows `index * bandHeight ..< min(height, (index + 1) * bandHeight)` of
  /// the output, every column, in `pixels`. Called once per band, from any thread.
  func write(band index: Int, _ pixels: PixelBuffer) throws
}

/// A sink that writes every band into one buffer of the whole output (an `Image`'s bytes): the
/// planner's first pass for a step that must look at the image entering it before it can be
/// made (faceblur's detection).
public final class BufferSink: PixelSink, @unchecked Sendable {
  private let buffer: PixelBuffer
  public let bandHeight: Int
  public var needsOrder: Bool { false }

  /// A sink writing into `buffer`, which holds the whole output, in bands of `bandHeight` rows.
  public init(_ buffer: PixelBuffer, bandHeight: Int) {
    (self.buffer, self.bandHeight) = (buffer, bandHeight)
  }

  public func write(band index: Int, _ pixels: PixelBuffer) throws { buffer.copy(pixels.rect, from: pixels) }
}
