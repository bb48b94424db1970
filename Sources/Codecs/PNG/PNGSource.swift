import CPNGShim
import PhotoCore

/// A PNG as the planner's source: read a row at a time through libpng's classic API (our C shim
/// `CPNGShim`), with the transforms of `PNGCodec.decode`, so the rows are exactly its pixels.
/// Only non-interlaced files: Adam7 passes give no row whole until the last pass, so an
/// interlaced PNG is decoded whole instead. libpng has no way to skip rows: a pass reads (and
/// drops) the rows above the ones it gives.
final class PNGSource: PixelSource {
  private let data: UnsafeBufferPointer<UInt8>
  let structure: PNGCodec.Structure
  let size: ImageSize
  let opacity: Opacity

  init(_ data: UnsafeBufferPointer<UInt8>, structure: PNGCodec.Structure, hasTransparency: Bool) {
    (self.data, self.structure) = (data, structure)
    size = ImageSize(structure.width, structure.height)
    opacity = hasTransparency ? .unknown : .opaque
  }

  func passMemory(columns: Range<Int>) -> Int {
    ImageInfo(png: structure).decoderBuffers.rowBytes + size.width * 4
  }

  func startPass(rows: Range<Int>, columns: Range<Int>, toEnd: Bool) throws -> any PixelPass {
    try PNGPass(data: data, size: size, rows: rows, columns: columns, toEnd: toEnd)
  }
}

/// One pass over a PNG (see `PNGSource`).
final class PNGPass: PixelPass {
  private let reader: OpaquePointer
  private let size: ImageSize
  private let columns: Range<Int>
  private let toEnd: Bool
  /// One whole row, for rows dropped and for rows cut to `columns`.
  private let scratch: UnsafeMutablePointer<UInt8>
  private var message = [CChar](repeating: 0, count: 256)

  init(data: UnsafeBufferPointer<UInt8>, size: ImageSize, rows: Range<Int>, columns: Range<Int>, toEnd: Bool)
    throws(CodecError)
  {
    var text = [CChar](repeating: 0, count: 256)
    guard
      let reader = cpng_reader_open(
        data.baseAddress, data.count, UInt32(size.width), UInt32(size.height), &text, text.count)
    else { throw PNGCodec.error(fromLibpng: String(cMessage: text)) }
    (self.reader, self.size, self.columns, self.toEnd) = (reader, size, columns, toEnd)
    scratch = .allocate(capacity: size.width * 4)
    if rows.lowerBound > 0 {
      guard cpng_reader_skip(reader, UInt32(rows.lowerBound), scratch, &message, message.count) == 0 else {
        throw PNGCodec.error(fromLibpng: String(cMessage: message))
      }
    }
  }

  deinit {
    cpng_reader_close(reader)
    scratch.deallocate()
  }

  func read(into destination: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws {
    if columns == 0..<size.width {
      guard cpng_reader_read(reader, destination, stride, UInt32(count), &message, message.count) == 0 else {
        throw PNGCodec.error(fromLibpng: String(cMessage: message))
      }
      return
    }
    for k in 0..<count {
      guard cpng_reader_read(reader, scratch, size.width * 4, 1, &message, message.count) == 0 else {
        throw PNGCodec.error(fromLibpng: String(cMessage: message))
      }
      (destination + k * stride).update(from: scratch + columns.lowerBound * 4, count: columns.count * 4)
    }
  }

  func finish() throws -> [String] {
    if toEnd {
      guard cpng_reader_finish(reader, scratch, &message, message.count) == 0 else {
        throw PNGCodec.error(fromLibpng: String(cMessage: message))
      }
    }
    return []
  }
}

/// A PNG written row by row for the planner, through libpng's classic API: the bytes
/// `ImageCodec.encode` makes of the same image. The bands go in order; RGB, or RGBA when the
/// output can have transparent pixels (which the planner must know before the first row: see
/// `ImageCodec.pngSink`).
public final class PNGSink: PixelSink, @unchecked Sendable {
  private let writer: OpaquePointer
  private let options: EncodeOptions
  private var message = [CChar](repeating: 0, count: 256)
  public var bandHeight: Int { 128 }
  public var needsOrder: Bool { true }

  /// A sink for an image of `size`, with an alpha channel when `withAlpha`.
  public init(size: ImageSize, withAlpha: Bool, options: EncodeOptions) throws(CodecError) {
    var text = [CChar](repeating: 0, count: 256)
    guard
      let writer = cpng_writer_open(
        UInt32(size.width), UInt32(size.height), withAlpha ? 1 : 0, PNGCodec.compressionLevel, &text,
        text.count)
    else { throw .encodingFailed(.png, String(cMessage: text)) }
    self.writer = writer
    var options = options
    options.metadata = ImageCodec.renderable(options)
    self.options = options
  }

  deinit { cpng_writer_close(writer) }

  public func write(band index: Int, _ pixels: PixelBuffer) throws {
    guard
      cpng_writer_write(
        writer, pixels.base, pixels.stride, UInt32(pixels.rect.height), &message, message.count) == 0
    else { throw CodecError.encodingFailed(.png, String(cMessage: message)) }
  }

  /// The PNG, with its metadata chunks, once every band is written.
  public func finish() throws(CodecError) -> [UInt8] {
    var data: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    guard cpng_writer_finish(writer, &data, &size, &message, message.count) == 0, let data else {
      throw .encodingFailed(.png, String(cMessage: message))
    }
    defer { cpng_free(data) }
    return PNGCodec.withChunks(UnsafeBufferPointer(start: data, count: size), options.metadata)
  }
}
