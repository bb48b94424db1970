import CTIFF
import Glibc
import PhotoCore

/// libtiff 4.5, the one file where its C names appear. A file is opened over memory
/// (`TIFFClientOpenExt` with read, seek, size and map procedures over the bytes; no temporary
/// file), with error and warning handlers that record the message and return (`TIFFOpenOptions`),
/// so libtiff never prints and never jumps; its own allocations are bounded
/// (`TIFFOpenOptionsSetMaxSingleMemAlloc`). Its JPEG codec's longjmps stay inside libtiff's C.
enum TIFFLibrary {
  /// What libtiff said while a file was open, recorded by the handlers.
  final class Messages {
    var errors: [String] = []
    var warnings: [String] = []
  }

  /// The bytes read from (a file's, held for the open file's life) or written to, and where
  /// libtiff is in them.
  final class Memory {
    let source: UnsafeBufferPointer<UInt8>?
    var written: [UInt8] = []
    var position = 0
    let messages = Messages()

    init(reading source: UnsafeBufferPointer<UInt8>?) { self.source = source }

    var count: Int { source?.count ?? written.count }
  }

  /// The fields of one image file directory that decoding needs.
  struct Directory {
    var width = 0, height = 0
    /// The Orientation tag (274) when it is 1...8, else 1.
    var orientation = 1
    var bitsPerSample = 1, samplesPerPixel = 1
    var compression = 1, photometric = -1, planar = 1
    var tiled = false
    /// NewSubfileType (254): bit 0 marks a reduced-resolution image (a thumbnail or preview).
    var subfileType = 0
    /// A DNG's DNGVersion tag (50706): a camera raw.
    var isDNG = false
    /// The bytes libtiff's RGBA reader holds besides the frame: one strip or tile, times the
    /// samples for separate planes.
    var blockBytes = 0
  }

  /// libtiff's global handlers print to standard error: none, once (every open file has its
  /// own recording handlers; a message libtiff gives no file goes nowhere).
  private static let silenced: Void = {
    TIFFSetErrorHandler(nil)
    TIFFSetWarningHandler(nil)
  }()

  /// Opens `bytes` and calls `body` with the open file (at its first directory), closing it
  /// after. libtiff may allocate at most `maxAllocation` bytes at once.
  ///
  /// - Throws: `.corruptData` with libtiff's first error when it cannot open the file, and what
  ///   `body` throws.
  static func withFile<R>(
    _ bytes: [UInt8], maxAllocation: Int, _ body: (OpaquePointer, Messages) throws(CodecError) -> R
  ) throws(CodecError) -> R {
    _ = silenced
    let result: Result<R, CodecError> = bytes.withUnsafeBufferPointer { data in
      let memory = Memory(reading: data)
      let handle = Unmanaged.passUnretained(memory).toOpaque()
      guard let tif = open(memory, handle: handle, mode: "r", maxAllocation: maxAllocation) else {
        return .failure(failure(memory.messages, while: "opening the file"))
      }
      defer { TIFFClose(tif) }
      do throws(CodecError) {
        return .success(try body(tif, memory.messages))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// `TIFFClientOpenExt` over `memory` with recording handlers.
  private static func open(
    _ memory: Memory, handle: UnsafeMutableRawPointer, mode: String, maxAllocation: Int
  ) -> OpaquePointer? {
    guard let options = TIFFOpenOptionsAlloc() else { return nil }
    defer { TIFFOpenOptionsFree(options) }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(max(1 << 16, maxAllocation)))
    let messages = Unmanaged.passUnretained(memory.messages).toOpaque()
    TIFFOpenOptionsSetErrorHandlerExtR(options, recordError, messages)
    TIFFOpenOptionsSetWarningHandlerExtR(options, recordWarning, messages)
    return TIFFClientOpenExt(
      "photo", mode, handle, readProc, writeProc, seekProc, closeProc, sizeProc, mapProc, unmapProc, options)
  }

  /// The error of a failed step: libtiff's first message, or `detail` when it gave none.
  static func failure(_ messages: Messages, while detail: String) -> CodecError {
    .corruptData(.tiff, messages.errors.first.map { "libtiff: \($0)" } ?? "libtiff failed \(detail)")
  }

  /// The fields of the current directory.
  static func directory(_ tif: OpaquePointer) -> Directory {
    var d = Directory()
    d.width = Int(uint32Field(tif, TIFFTAG_IMAGEWIDTH) ?? 0)
    d.height = Int(uint32Field(tif, TIFFTAG_IMAGELENGTH) ?? 0)
    let orientation = Int(uint16Field(tif, TIFFTAG_ORIENTATION) ?? 1)
    d.orientation = (1...8).contains(orientation) ? orientation : 1
    d.bitsPerSample = Int(uint16Field(tif, TIFFTAG_BITSPERSAMPLE, defaulted: true) ?? 1)
    d.samplesPerPixel = Int(uint16Field(tif, TIFFTAG_SAMPLESPERPIXEL, defaulted: true) ?? 1)
    d.compression = Int(uint16Field(tif, TIFFTAG_COMPRESSION, defaulted: true) ?? 1)
    d.photometric = uint16Field(tif, TIFFTAG_PHOTOMETRIC).map(Int.init) ?? -1
    d.planar = Int(uint16Field(tif, TIFFTAG_PLANARCONFIG, defaulted: true) ?? 1)
    d.subfileType = Int(uint32Field(tif, TIFFTAG_SUBFILETYPE) ?? 0)
    d.tiled = TIFFIsTiled(tif) != 0
    var version: UnsafeMutableRawPointer? = nil
    d.isDNG =
      withUnsafeMutablePointer(to: &version) { pointer in
        withVaList([pointer]) { TIFFVGetField(tif, UInt32(TIFFTAG_DNGVERSION), $0) }
      } != 0
    let block = d.tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif)
    let planes = d.planar == PLANARCONFIG_SEPARATE ? d.samplesPerPixel : 1
    d.blockBytes = saturating(Int(clamping: block), planes)
    return d
  }

  /// A field of at most 16 bits, or nil when the directory does not have it (`defaulted`: its
  /// default instead, when the specification gives one).
  private static func uint16Field(_ tif: OpaquePointer, _ tag: Int32, defaulted: Bool = false) -> UInt16? {
    var value: UInt16 = 0
    let found = withUnsafeMutablePointer(to: &value) { pointer in
      withVaList([pointer]) {
        defaulted ? TIFFVGetFieldDefaulted(tif, UInt32(tag), $0) : TIFFVGetField(tif, UInt32(tag), $0)
      }
    }
    return found != 0 ? value : nil
  }

  /// A 32-bit field, or nil.
  private static func uint32Field(_ tif: OpaquePointer, _ tag: Int32) -> UInt32? {
    var value: UInt32 = 0
    let found = withUnsafeMutablePointer(to: &value) { pointer in
      withVaList([pointer]) { TIFFVGetField(tif, UInt32(tag), $0) }
    }
    return found != 0 ? value : nil
  }

  /// The bytes of a field given as a 32-bit count and a pointer (ICC 34675, XMP 700, Photoshop
  /// 34377), copied; nil when absent or empty.
  static func bytesField(_ tif: OpaquePointer, _ tag: Int32) -> [UInt8]? {
    var count: UInt32 = 0
    var data: UnsafeMutableRawPointer? = nil
    let found = withUnsafeMutablePointer(to: &count) { countPointer in
      withUnsafeMutablePointer(to: &data) { dataPointer in
        withVaList([countPointer, dataPointer]) { TIFFVGetField(tif, UInt32(tag), $0) }
      }
    }
    guard found != 0, count > 0, let data else { return nil }
    return Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
  }

  static let iccTag = TIFFTAG_ICCPROFILE, xmpTag = TIFFTAG_XMLPACKET, photoshopTag = TIFFTAG_PHOTOSHOP

  /// Walks the directory chain (never the SubIFDs): the indices of the directories that are not
  /// reduced-resolution images, at most `limit` directories in all.
  ///
  /// - Throws: `.unsupported` past `limit`, `.corruptData` when a directory cannot be read.
  static func fullImages(_ tif: OpaquePointer, _ messages: Messages, limit: Int) throws(CodecError) -> [Int] {
    var full: [Int] = []
    var index = 0
    while true {
      if Int(uint32Field(tif, TIFFTAG_SUBFILETYPE) ?? 0) & Int(FILETYPE_REDUCEDIMAGE) == 0 {
        full.append(index)
        // Two pages are enough to know.
        if full.count > 1 { return full }
      }
      let (errors, warnings) = (messages.errors.count, messages.warnings.count)
      guard TIFFReadDirectory(tif) != 0 else {
        // The end of the chain, or a directory after the image that cannot be read (often an
        // EXIF-style thumbnail's): it ends the chain, and its messages are not the image's.
        messages.errors.removeSubrange(errors...)
        messages.warnings.removeSubrange(warnings...)
        return full
      }
      index += 1
      if index >= limit { throw .unsupported("TIFF with more than \(limit) images") }
    }
  }

  /// Makes directory `index` of the chain the current one.
  static func select(_ tif: OpaquePointer, _ messages: Messages, directory index: Int) throws(CodecError) {
    guard TIFFSetDirectory(tif, tdir_t(index)) != 0 else {
      throw failure(messages, while: "reading a directory")
    }
  }

  /// Decodes the current directory into `destination` (width × height RGBA, rows packed, as
  /// stored: the orientation is not applied) with libtiff's RGBA interface, which converts
  /// every photometric interpretation it knows (RGB, greyscale, palette, YCbCr, CMYK, CIE Lab)
  /// at 1 to 16 bits to 8-bit RGBA. Colours come back straight (not premultiplied) by alpha.
  static func decodeRGBA(
    _ tif: OpaquePointer, _ messages: Messages, width: Int, height: Int,
    into destination: UnsafeMutableBufferPointer<UInt8>
  ) throws(CodecError) {
    var message = [CChar](repeating: 0, count: 1024)
    guard TIFFRGBAImageOK(tif, &message) != 0 else {
      throw .unsupported("a TIFF libtiff cannot convert to RGBA (\(text(message)))")
    }
    var image = TIFFRGBAImage()
    guard TIFFRGBAImageBegin(&image, tif, 1, &message) != 0 else {
      throw messages.errors.isEmpty
        ? .unsupported("a TIFF libtiff cannot convert to RGBA (\(text(message)))")
        : failure(messages, while: "starting to decode")
    }
    defer { TIFFRGBAImageEnd(&image) }
    // Rows from the top, as stored: the orientation is applied once, by the caller.
    image.req_orientation = UInt16(ORIENTATION_TOPLEFT)
    image.orientation = UInt16(ORIENTATION_TOPLEFT)
    let associated = image.alpha == EXTRASAMPLE_ASSOCALPHA || image.alpha == EXTRASAMPLE_UNASSALPHA
    let errors = messages.errors.count
    let done = destination.baseAddress!.withMemoryRebound(to: UInt32.self, capacity: width * height) {
      TIFFRGBAImageGet(&image, $0, UInt32(width), UInt32(height))
    }
    guard done != 0, messages.errors.count == errors else {
      throw .corruptData(
        .tiff, messages.errors.dropFirst(errors).first.map { "libtiff: \($0)" } ?? "libtiff failed decoding")
    }
    // Packed as A<<24 | B<<16 | G<<8 | R: bytes R, G, B, A in memory, as our frame.
    #if _endian(big)
      for i in stride(from: 0, to: destination.count, by: 4) {
        (destination[i], destination[i + 3]) = (destination[i + 3], destination[i])
        (destination[i + 1], destination[i + 2]) = (destination[i + 2], destination[i + 1])
      }
    #endif
    // The RGBA interface premultiplies colours by alpha (it stores unassociated alpha so too).
    if associated { unpremultiply(destination) }
  }

  /// Straight colours from premultiplied ones, rounded to nearest.
  private static func unpremultiply(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
    for i in stride(from: 0, to: pixels.count, by: 4) {
      let a = Int(pixels[i + 3])
      guard a != 0, a != 255 else { continue }
      for c in i..<(i + 3) { pixels[c] = UInt8(min(255, (Int(pixels[c]) * 255 + a / 2) / a)) }
    }
  }

  /// A NUL-terminated C message, as printable text.
  static func text(_ message: [CChar]) -> String {
    let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return printable(bytes)
  }

  /// At most 200 printable ASCII characters (a hostile file's strings reach libtiff's messages).
  static func printable(_ bytes: [UInt8]) -> String {
    String(
      decoding: bytes.prefix(200).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  }

  // MARK: Writing

  /// What a TIFF render holds besides its pixels.
  struct Tags {
    var icc: [UInt8]?
    var xmp: [UInt8]?
    /// Photoshop image resources (IPTC among them).
    var photoshop: [UInt8]?
  }

  /// An 8-bit RGB (opaque) or RGBA (unassociated alpha) TIFF of `image`, little-endian (or
  /// big-endian), in strips of about 256 KiB compressed with Deflate (zlib's level 6) and the
  /// horizontal predictor, with `tags`.
  static func encode(_ image: Image, tags: Tags, bigEndian: Bool = false) throws(CodecError) -> [UInt8] {
    _ = silenced
    let memory = Memory(reading: nil)
    let handle = Unmanaged.passUnretained(memory).toOpaque()
    guard let tif = open(memory, handle: handle, mode: bigEndian ? "wb" : "wl", maxAllocation: 1 << 30) else {
      throw .encodingFailed(.tiff, memory.messages.errors.first.map { "libtiff: \($0)" } ?? "libtiff failed")
    }
    let alpha = !image.isOpaque
    let samples = alpha ? 4 : 3
    let rowBytes = image.width * samples
    let rowsPerStrip = max(1, min(image.height, (256 << 10) / max(1, rowBytes)))
    var set = true
    func field(_ tag: Int32, _ values: [any CVarArg]) {
      set = set && withVaList(values) { TIFFVSetField(tif, UInt32(tag), $0) } != 0
    }
    field(TIFFTAG_IMAGEWIDTH, [UInt32(image.width)])
    field(TIFFTAG_IMAGELENGTH, [UInt32(image.height)])
    field(TIFFTAG_BITSPERSAMPLE, [Int32(8)])
    field(TIFFTAG_SAMPLESPERPIXEL, [Int32(samples)])
    field(TIFFTAG_PHOTOMETRIC, [Int32(PHOTOMETRIC_RGB)])
    field(TIFFTAG_PLANARCONFIG, [Int32(PLANARCONFIG_CONTIG)])
    field(TIFFTAG_COMPRESSION, [Int32(COMPRESSION_ADOBE_DEFLATE)])
    field(TIFFTAG_PREDICTOR, [Int32(PREDICTOR_HORIZONTAL)])
    field(TIFFTAG_ROWSPERSTRIP, [UInt32(rowsPerStrip)])
    var extra = UInt16(EXTRASAMPLE_UNASSALPHA)
    if alpha {
      withUnsafeMutablePointer(to: &extra) { field(TIFFTAG_EXTRASAMPLES, [Int32(1), $0]) }
    }
    for (tag, bytes) in [(iccTag, tags.icc), (xmpTag, tags.xmp), (photoshopTag, tags.photoshop)] {
      guard let bytes, !bytes.isEmpty else { continue }
      bytes.withUnsafeBufferPointer {
        field(tag, [UInt32(bytes.count), UnsafeMutablePointer(mutating: $0.baseAddress!)])
      }
    }
    var written = set
    if set {
      var strip = [UInt8](repeating: 0, count: rowBytes * rowsPerStrip)
      image.bytes.withUnsafeBufferPointer { source in
        var y = 0
        var index: UInt32 = 0
        while y < image.height && written {
          let rows = min(rowsPerStrip, image.height - y)
          let count = rows * rowBytes
          if alpha {
            strip.withUnsafeMutableBufferPointer { out in
              _ = out.initialize(from: source[(y * rowBytes)..<(y * rowBytes + count)])
            }
          } else {
            var o = 0
            for i in stride(from: y * image.width * 4, to: (y + rows) * image.width * 4, by: 4) {
              (strip[o], strip[o + 1], strip[o + 2]) = (source[i], source[i + 1], source[i + 2])
              o += 3
            }
          }
          written =
            strip.withUnsafeMutableBytes {
              TIFFWriteEncodedStrip(tif, index, $0.baseAddress, tmsize_t(count))
            } == count
          y += rows
          index += 1
        }
      }
    }
    TIFFClose(tif)
    guard written, memory.messages.errors.isEmpty else {
      throw .encodingFailed(
        .tiff,
        memory.messages.errors.first.map { "libtiff: \($0)" }
          ?? "libtiff could not write \(image.width)x\(image.height) pixels")
    }
    return memory.written
  }
}

// MARK: libtiff's procedures over memory

private func memory(_ handle: thandle_t?) -> TIFFLibrary.Memory {
  Unmanaged<TIFFLibrary.Memory>.fromOpaque(handle!).takeUnretainedValue()
}

private let readProc: TIFFReadWriteProc = { handle, buffer, size in
  let m = memory(handle)
  guard let source = m.source, let buffer, size > 0, m.position < source.count else { return 0 }
  let n = min(Int(size), source.count - m.position)
  buffer.copyMemory(from: source.baseAddress! + m.position, byteCount: n)
  m.position += n
  return tmsize_t(n)
}

private let writeProc: TIFFReadWriteProc = { handle, buffer, size in
  let m = memory(handle)
  guard m.source == nil, let buffer, size >= 0 else { return -1 }
  let n = Int(size)
  let end = m.position + n
  if end > m.written.count { m.written += [UInt8](repeating: 0, count: end - m.written.count) }
  m.written.withUnsafeMutableBytes {
    ($0.baseAddress! + m.position).copyMemory(from: buffer, byteCount: n)
  }
  m.position = end
  return tmsize_t(n)
}

private let seekProc: TIFFSeekProc = { handle, offset, whence in
  let m = memory(handle)
  let base: Int
  switch whence {
  case SEEK_SET: base = 0
  case SEEK_CUR: base = m.position
  case SEEK_END: base = m.count
  default: return UInt64.max
  }
  // An offset is unsigned; SEEK_CUR and SEEK_END may go back (two's complement).
  let target = base &+ Int(truncatingIfNeeded: offset)
  guard target >= 0, target <= 1 << 40 else { return UInt64.max }
  m.position = target
  return UInt64(target)
}

private let closeProc: TIFFCloseProc = { _ in 0 }

private let sizeProc: TIFFSizeProc = { handle in UInt64(memory(handle).count) }

/// A file read is mapped: libtiff reads its strips and tiles in place (never writing to them).
private let mapProc: TIFFMapFileProc = { handle, base, size in
  let m = memory(handle)
  guard let source = m.source, let address = source.baseAddress, let base, let size else { return 0 }
  base.pointee = UnsafeMutableRawPointer(mutating: address)
  size.pointee = UInt64(source.count)
  return 1
}

private let unmapProc: TIFFUnmapFileProc = { _, _, _ in }

private let recordError: TIFFErrorHandlerExtR = { _, data, module, format, arguments in
  guard let arguments else { return 1 }
  return record(data, module, format, arguments, error: true)
}

private let recordWarning: TIFFErrorHandlerExtR = { _, data, module, format, arguments in
  guard let arguments else { return 1 }
  return record(data, module, format, arguments, error: false)
}

/// Formats libtiff's message and keeps it (at most 16 of each kind); 1: handled, libtiff calls
/// no other handler.
private func record(
  _ data: UnsafeMutableRawPointer?, _ module: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?,
  _ arguments: CVaListPointer, error: Bool
) -> Int32 {
  guard let data, let format else { return 1 }
  let messages = Unmanaged<TIFFLibrary.Messages>.fromOpaque(data).takeUnretainedValue()
  guard (error ? messages.errors : messages.warnings).count < 16 else { return 1 }
  var buffer = [CChar](repeating: 0, count: 512)
  _ = vsnprintf(&buffer, buffer.count, format, arguments)
  var text = TIFFLibrary.text(buffer)
  if let module {
    let name = TIFFLibrary.text(Array(UnsafeBufferPointer(start: module, count: strnlen(module, 64))) + [0])
    if !name.isEmpty && name != "photo" { text = "\(name): \(text)" }
  }
  if error { messages.errors.append(text) } else { messages.warnings.append(text) }
  return 1
}
