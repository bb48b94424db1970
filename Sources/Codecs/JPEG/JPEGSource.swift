import CJPEGShim
import PhotoCore

/// A JPEG as the planner's source: decoded a pass at a time through libjpeg's scanline API (our C
/// shim `CJPEGShim`, whose setjmp stays in C), rows in order from the top.
///
/// A pass skips the rows above the ones it gives (`jpeg_skip_scanlines`: their entropy-coded
/// data is still read, their IDCT and colour conversion are not) and, when it gives only some
/// columns, decodes only the iMCU columns around them (`jpeg_crop_scanline`) with one iMCU of
/// margin on each side, since chroma upsampling treats the crop's edges as the image's. The
/// pixels are exactly `ImageCodec.decode`'s (before orientation): libjpeg's defaults are
/// TurboJPEG's. Every JPEG TurboJPEG decodes streams: progressive and multi-scan files hold
/// libjpeg's whole coefficient buffer while a pass runs; CMYK and YCCK files are converted to
/// RGB a row at a time as TurboJPEG's are.
final class JPEGSource: PixelSource {
  /// The file; valid for the source's life (the caller holds it).
  private let data: UnsafeBufferPointer<UInt8>
  let header: JPEGHeader
  let size: ImageSize
  var opacity: Opacity { .opaque }
  /// An iMCU's width in pixels: the crop margin.
  private let iMCUWidth: Int

  /// The source for a JPEG whose bytes `data` views, checked against the limits as a stream
  /// (`ImageCodec.streamMemoryEstimate`).
  init(_ data: UnsafeBufferPointer<UInt8>, header: JPEGHeader) {
    self.data = data
    self.header = header
    size = ImageSize(header.width, header.height)
    iMCUWidth = 8 * (header.components.count == 1 ? 1 : min(max(header.components.map(\.h).max() ?? 1, 1), 4))
  }

  func passMemory(columns: Range<Int>) -> Int {
    let buffers = ImageInfo(jpeg: header).decoderBuffers
    return (buffers.holdsCoefficients ? buffers.coefficientBytes : 0) + buffers.rowBytes + 16 * size.width * 4
  }

  func startPass(rows: Range<Int>, columns: Range<Int>, toEnd: Bool) throws -> any PixelPass {
    try JPEGPass(source: self, data: data, rows: rows, columns: columns, margin: iMCUWidth, toEnd: toEnd)
  }
}

/// One pass over a JPEG (see `JPEGSource`).
final class JPEGPass: PixelPass {
  private let reader: OpaquePointer
  private let source: JPEGSource
  private let columns: Range<Int>
  private let toEnd: Bool
  /// The columns libjpeg decodes (cropped, with margin), and the rows given so far.
  private let decoded: Range<Int>
  private var row: Int
  private let rows: Range<Int>
  /// Rows decoded before being cut to `columns` or converted from CMYK: 16 rows of `decoded`.
  private let scratch: UnsafeMutablePointer<UInt8>?
  private let isCMYK: Bool
  private var message = [CChar](repeating: 0, count: 256)

  init(
    source: JPEGSource, data: UnsafeBufferPointer<UInt8>, rows: Range<Int>, columns: Range<Int>, margin: Int,
    toEnd: Bool
  ) throws(CodecError) {
    (self.source, self.rows, self.columns, self.toEnd) = (source, rows, columns, toEnd)
    let width = source.size.width
    var text = [CChar](repeating: 0, count: 256)
    guard
      let reader = cjpeg_reader_open_any(
        data.baseAddress, data.count, Int32(CJPEG_ANY_FILE), &text, text.count)
    else { throw JPEGCodec.error(fromLibjpeg: String(cMessage: text), isWarning: false) }
    guard Int(cjpeg_reader_width(reader)) == width, Int(cjpeg_reader_height(reader)) == source.size.height
    else {
      cjpeg_reader_close(reader)
      throw .corruptData(.jpeg, "libjpeg reads another size than the frame header says")
    }
    var decoded = 0..<width
    if columns != 0..<width {
      var x = UInt32(max(0, columns.lowerBound - margin))
      var w = UInt32(min(width, columns.upperBound + margin)) - x
      guard cjpeg_reader_crop(reader, &x, &w, &text, text.count) == 0 else {
        cjpeg_reader_close(reader)
        throw JPEGCodec.error(fromLibjpeg: String(cMessage: text), isWarning: false)
      }
      decoded = Int(x)..<Int(x + w)
    }
    let isCMYK = cjpeg_reader_is_cmyk(reader) != 0
    (self.reader, self.decoded, self.isCMYK, row) = (reader, decoded, isCMYK, 0)
    scratch = decoded != columns || isCMYK ? .allocate(capacity: 16 * decoded.count * 4) : nil
    // From here on, deinit closes the reader.
    if rows.lowerBound > 0 {
      guard
        cjpeg_reader_skip(reader, UInt32(rows.lowerBound), &message, message.count) == Int32(rows.lowerBound)
      else { throw failure() }
      row = rows.lowerBound
    }
  }

  deinit {
    cjpeg_reader_close(reader)
    scratch?.deallocate()
  }

  /// The error the reader stopped with: its message, or a cut file.
  private func failure() -> CodecError {
    let text = String(cMessage: message)
    return text.isEmpty ? .truncated(.jpeg) : JPEGCodec.error(fromLibjpeg: text, isWarning: false)
  }

  func read(into destination: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws {
    precondition(row + count <= rows.upperBound, "a pass gives its rows only")
    var done = 0
    while done < count {
      let n = min(16, count - done)
      let target = scratch ?? destination + done * stride
      let pitch = scratch == nil ? stride : decoded.count * 4
      var got = 0
      while got < n {
        message[0] = 0
        let r = cjpeg_reader_read_rows(
          reader, target + got * pitch, pitch, UInt32(n - got), &message, message.count)
        guard r > 0 else { throw r < 0 ? failure() : CodecError.truncated(.jpeg) }
        got += Int(r)
      }
      if let harmful = cjpeg_reader_harmful_warning(reader) {
        throw JPEGCodec.error(fromLibjpeg: String(cString: harmful), isWarning: true)
      }
      if let scratch {
        let skip = (columns.lowerBound - decoded.lowerBound) * 4
        for k in 0..<n {
          let from = scratch + k * pitch
          if isCMYK {
            JPEGCodec.convertCMYKRow(
              from, count: decoded.count, inverted: source.header.adobeTransform != nil)
          }
          (destination + (done + k) * stride).update(from: from + skip, count: columns.count * 4)
        }
      }
      done += n
      row += n
    }
  }

  /// Skips the pass's next `count` rows without converting them (their entropy-coded data is
  /// still read).
  func skip(_ count: Int) throws(CodecError) {
    precondition(count >= 0 && row + count <= rows.upperBound, "a pass skips its own rows")
    guard count > 0 else { return }
    message[0] = 0
    guard cjpeg_reader_skip(reader, UInt32(count), &message, message.count) == Int32(count) else {
      throw failure()
    }
    row += count
  }

  /// The next row the pass gives.
  var nextRow: Int { row }

  func finish() throws -> [String] {
    if toEnd {
      let height = source.size.height
      if row < height {
        // libjpeg skips to the end of the image without reading its entropy-coded data, so
        // damage there would go unseen: skip to the last row, and decode that one.
        if height - row > 1 {
          message[0] = 0
          let count = height - row - 1
          guard cjpeg_reader_skip(reader, UInt32(count), &message, message.count) == Int32(count) else {
            throw failure()
          }
          row = height - 1
        }
        let last = UnsafeMutablePointer<UInt8>.allocate(capacity: decoded.count * 4)
        defer { last.deallocate() }
        message[0] = 0
        let r = cjpeg_reader_read_rows(reader, last, decoded.count * 4, 1, &message, message.count)
        guard r > 0 else { throw r < 0 ? failure() : CodecError.truncated(.jpeg) }
        row = height
      }
      guard cjpeg_reader_finish(reader, &message, message.count) == 0 else { throw failure() }
    }
    if let harmful = cjpeg_reader_harmful_warning(reader) {
      throw JPEGCodec.error(fromLibjpeg: String(cString: harmful), isWarning: true)
    }
    return (0..<cjpeg_reader_warning_count(reader)).compactMap {
      cjpeg_reader_warning(reader, $0).map(String.init(cString:))
    }
  }
}
