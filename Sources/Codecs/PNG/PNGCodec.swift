import CPNGShim
import PhotoCore

/// PNG through libpng's classic API, wrapped by our C target `CPNGShim` (setjmp/longjmp stay in
/// C), with the chunk structure read and written here in Swift. libpng's and zlib's C names
/// (through CPNGShim) appear in this file and PNGSource.swift only.
///
/// Why the classic API: measured on libpng 1.6.39, the simplified `png_image_*` API applies gAMA
/// (values change), drops iCCP, and reads interlaced 16-bit files (ibasn0g16, ibasn4a16,
/// ibasn6a16) wrongly; the classic API with `png_set_expand` + `png_set_scale_16` keeps the
/// stored values.
enum PNGCodec {
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  /// The colour chunks carried from a PNG input to PNG outputs, unchanged.
  static let colourChunkTypes: Set<String> = ["gAMA", "cHRM", "sRGB", "iCCP"]
  /// Largest ICC profile accepted from iCCP, in bytes.
  static let maxProfileBytes = 64 << 20
  /// Largest XMP packet accepted from a compressed iTXt, in bytes.
  static let maxXMPBytes = 16 << 20
  /// The most a file's iTXt and iCCP chunks may inflate to, in all (each is inflated at most
  /// once): a file of many chunks that inflate to the cap costs no more than one.
  static let maxInflatedBytes = 64 << 20

  /// What the chunk walk found.
  struct Structure {
    var width = 0, height = 0, bitDepth = 0, colourType = 0, interlaced = false
    var colourChunks: [(type: String, data: [UInt8])] = []
    var icc: [UInt8]?
    /// The eXIf chunk's TIFF structure (before IDAT), and the orientation it gives (1...8).
    var exif: [UInt8]?
    var orientation = 1
    /// The XMP packet of the first iTXt, tEXt or zTXt chunk with keyword `XML:com.adobe.xmp`
    /// (other text chunks are never read: photoedit does not carry them).
    var xmp: [UInt8]?
    /// Bytes the walk inflated (or tried to: a stream cut off at its cap counts the cap) from
    /// iTXt and iCCP chunks, at most `maxInflatedBytes`.
    var inflatedBytes = 0
    /// True when a tRNS chunk came before the image data (transparency without an alpha channel).
    var hasTRNS = false
    /// True when pixels can be transparent: an alpha channel, or tRNS.
    var mayHaveTransparency: Bool { colourType == 4 || colourType == 6 || hasTRNS }
  }

  /// The iTXt keyword Adobe's XMP specification gives XMP in PNG.
  static let xmpKeyword = "XML:com.adobe.xmp".asciiBytes

  /// Walks every chunk, checking each CRC, and requires IHDR first, an IDAT and IEND.
  ///
  /// Collects the colour chunks and an eXIf chunk found before the image data (PNG's EXIF,
  /// whose orientation is applied like a JPEG's).
  ///
  /// - Parameter full: walk to IEND (decode); false stops at the first IDAT (size and eXIf
  ///   orientation only, without reading the image data).
  /// - Throws: `.truncated(.png)` for a cut file, `.corruptData(.png, ...)` for a bad CRC, a bad
  ///   length, or a missing IHDR, IDAT or IEND.
  /// - Complexity: O(file size) (zlib's crc32 over every chunk).
  static func walk(_ bytes: [UInt8], full: Bool) throws(CodecError) -> Structure {
    guard bytes.hasBytes(signature, at: 0) else {
      if bytes.count < signature.count && signature.starts(with: bytes) { throw .truncated(.png) }
      throw .notAnImage
    }
    var s = Structure()
    var i = signature.count
    var sawIDAT = false
    var sawXMP = false
    var first = true
    /// Inflates within what is left of the file's budget, counting the work.
    func inflated(_ data: ArraySlice<UInt8>, maxSize: Int) -> [UInt8]? {
      let allowed = min(maxSize, maxInflatedBytes - s.inflatedBytes)
      guard allowed > 0 else { return nil }
      let out = inflate(Array(data), maxSize: allowed)
      s.inflatedBytes += out?.count ?? allowed
      return out
    }
    while true {
      guard i + 8 <= bytes.count else { throw .truncated(.png) }
      let length = bytes.uint32BE(at: i)
      guard length <= 0x7FFF_FFFF else { throw .corruptData(.png, "bad chunk length") }
      let typeBytes = bytes[(i + 4)..<(i + 8)]
      guard typeBytes.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
        throw .corruptData(.png, "bad chunk type")
      }
      let type = String(decoding: typeBytes, as: UTF8.self)
      let dataStart = i + 8
      let dataEnd = dataStart + length
      guard dataEnd + 4 <= bytes.count else { throw .truncated(.png) }
      let crc = bytes.withUnsafeBufferPointer { p in
        cpng_crc32(0, p.baseAddress! + i + 4, length + 4)
      }
      guard crc == UInt(bytes.uint32BE(at: dataEnd)) else {
        throw .corruptData(.png, "bad CRC in the \(type) chunk")
      }
      if first {
        guard type == "IHDR", length == 13 else {
          throw .corruptData(.png, "the file does not start with IHDR")
        }
        s.width = bytes.uint32BE(at: dataStart)
        s.height = bytes.uint32BE(at: dataStart + 4)
        s.bitDepth = Int(bytes[dataStart + 8])
        s.colourType = Int(bytes[dataStart + 9])
        s.interlaced = bytes[dataStart + 12] != 0
        guard s.width > 0, s.height > 0, s.width <= 0x7FFF_FFFF, s.height <= 0x7FFF_FFFF else {
          throw .corruptData(.png, "bad image size in IHDR")
        }
        first = false
      } else if type == "IDAT" {
        if !full { return s }
        sawIDAT = true
      } else if type == "tRNS", !sawIDAT {
        s.hasTRNS = true
      } else if type == "eXIf", !sawIDAT, s.exif == nil {
        let tiff = Array(bytes[dataStart..<dataEnd])
        s.exif = tiff
        s.orientation = EXIF.orientation(in: tiff) ?? 1
      } else if type == "iTXt", full, !sawXMP, bytes[dataStart..<dataEnd].starts(with: xmpKeyword + [0]) {
        // Only the first XMP chunk is read (a file has one), and inflated once.
        sawXMP = true
        s.xmp = xmp(fromITXt: bytes[dataStart..<dataEnd]) { inflated($0, maxSize: maxXMPBytes) }
      } else if type == "tEXt" || type == "zTXt", full, !sawXMP,
        bytes[dataStart..<dataEnd].starts(with: xmpKeyword + [0])
      {
        // XMP as Latin-1 text, as some writers put it: read like iTXt's (and sanitised alike).
        sawXMP = true
        let text = bytes[(dataStart + xmpKeyword.count + 1)..<dataEnd]
        if type == "tEXt" {
          s.xmp = text.isEmpty ? nil : Array(text)
        } else if text.first == 0 {
          s.xmp = inflated(text.dropFirst(), maxSize: maxXMPBytes).flatMap { $0.isEmpty ? nil : $0 }
        }
      } else if type == "IEND" {
        guard sawIDAT else { throw .corruptData(.png, "no image data (IDAT)") }
        return s
      } else if full, !sawIDAT, colourChunkTypes.contains(type),
        !s.colourChunks.contains(where: { $0.type == type })
      {
        let data = Array(bytes[dataStart..<dataEnd])
        s.colourChunks.append((type, data))
        if type == "iCCP" { s.icc = profile(fromICCP: data) { inflated($0, maxSize: maxProfileBytes) } }
      }
      i = dataEnd + 4
    }
  }

  /// The XMP packet in an iTXt chunk's data (keyword, 0, compression flag, method, language tag,
  /// 0, translated keyword, 0, text), or nil when the chunk is not XMP or cannot be read.
  ///
  /// - Parameter inflating: inflates compressed text (by default up to `maxXMPBytes`).
  static func xmp(
    fromITXt chunk: ArraySlice<UInt8>,
    inflating: (ArraySlice<UInt8>) -> [UInt8]? = { inflate(Array($0), maxSize: maxXMPBytes) }
  ) -> [UInt8]? {
    let keywordEnd = chunk.startIndex + xmpKeyword.count
    guard chunk.count > xmpKeyword.count + 2, chunk.starts(with: xmpKeyword), chunk[keywordEnd] == 0 else {
      return nil
    }
    let compressed = chunk[keywordEnd + 1] == 1
    guard let languageEnd = chunk[(keywordEnd + 3)...].firstIndex(of: 0),
      let translatedEnd = chunk[(languageEnd + 1)...].firstIndex(of: 0)
    else { return nil }
    let text = chunk[(translatedEnd + 1)...]
    let packet = compressed ? inflating(text) : Array(text)
    return packet?.isEmpty == false ? packet : nil
  }

  /// The XMP packet in an iTXt chunk's data (see above), inflated up to `maxXMPBytes`.
  static func xmp(fromITXt data: [UInt8]) -> [UInt8]? { xmp(fromITXt: data[...]) }

  /// An iTXt chunk's data carrying an XMP packet, uncompressed (as the XMP specification asks,
  /// so that tools can find the packet by scanning).
  static func itxtData(forXMP packet: [UInt8]) -> [UInt8] {
    xmpKeyword + [0, 0, 0, 0, 0] + packet
  }

  /// The ICC profile inside an iCCP chunk's data (name, 0, method 0, zlib stream), or nil.
  ///
  /// - Parameter inflating: inflates the stream (by default up to `maxProfileBytes`).
  static func profile(
    fromICCP data: [UInt8],
    inflating: (ArraySlice<UInt8>) -> [UInt8]? = { inflate(Array($0), maxSize: maxProfileBytes) }
  ) -> [UInt8]? {
    guard let nul = data.prefix(80).firstIndex(of: 0), nul >= 1, nul + 2 <= data.count,
      data[nul + 1] == 0
    else { return nil }
    return inflating(data[(nul + 2)...])
  }

  /// An iCCP chunk's data for `profile`.
  static func iccpData(for profile: [UInt8]) -> [UInt8]? {
    guard let compressed = deflate(profile) else { return nil }
    return "ICC profile".asciiBytes + [0, 0] + compressed
  }

  /// Decodes to 8-bit RGBA with values as stored, via `cpng_decode_rgba` (libpng classic API).
  ///
  /// - Complexity: O(width × height).
  static func decode(_ bytes: [UInt8], options: DecodeOptions) throws(CodecError) -> (Image, Structure) {
    let s = try walk(bytes, full: true)
    try ImageCodec.checkLimits(ImageInfo(png: s), options: options)
    let count = s.width * s.height * 4
    var message = [CChar](repeating: 0, count: 256)
    var status: Int32 = 0
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      status = bytes.withUnsafeBufferPointer { p in
        cpng_decode_rgba(
          p.baseAddress, p.count, UInt32(s.width), UInt32(s.height), buffer.baseAddress, nil,
          &message, message.count)
      }
      initialized = count
    }
    guard status == 0 else { throw error(fromLibpng: String(cMessage: message)) }
    return (Image(width: s.width, height: s.height, bytes: pixels), s)
  }

  /// The error a libpng message means: a cut file, or damage.
  static func error(fromLibpng text: String) -> CodecError {
    if text.contains("ends early") || text.contains("Not enough image data") { return .truncated(.png) }
    return .corruptData(.png, text)
  }

  /// zlib's level for every PNG photoedit writes.
  static let compressionLevel: Int32 = 6

  /// Encodes 8-bit RGB (opaque images) or RGBA with `cpng_encode_rgba`, then inserts the colour
  /// chunks after IHDR: `metadata.pngChunks` unchanged, or an iCCP made from `metadata.icc`; then
  /// EXIF as eXIf and XMP as iTXt.
  ///
  /// - Complexity: O(width × height).
  static func encode(_ image: Image, options: EncodeOptions) throws(CodecError) -> [UInt8] {
    var data: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = image.bytes.withUnsafeBufferPointer { p in
      cpng_encode_rgba(
        p.baseAddress, UInt32(image.width), UInt32(image.height), image.isOpaque ? 0 : 1, compressionLevel,
        &data, &size, &message, message.count)
    }
    defer { cpng_free(data) }
    guard status == 0, let data, size > 33 else {
      let text = String(cMessage: message)
      throw .encodingFailed(.png, text)
    }
    return withChunks(UnsafeBufferPointer(start: data, count: size), options.metadata)
  }

  /// A PNG from libpng with the metadata chunks inserted after IHDR: `metadata.pngChunks`
  /// unchanged, or an iCCP made from `metadata.icc`; then EXIF as eXIf and XMP as iTXt.
  static func withChunks(_ encoded: UnsafeBufferPointer<UInt8>, _ metadata: ImageMetadata) -> [UInt8] {
    var chunks = metadata.pngChunks.filter { colourChunkTypes.contains($0.type) }
    if !chunks.contains(where: { $0.type == "iCCP" }), let icc = metadata.icc, let iccp = iccpData(for: icc) {
      chunks.append(("iCCP", iccp))
    }
    // EXIF (orientation already 1, thumbnail removed) before the image data, as eXIf must be;
    // XMP as iTXt beside it.
    if let exif = metadata.exif, !exif.isEmpty { chunks.append(("eXIf", exif)) }
    if let xmp = metadata.xmp, !xmp.isEmpty { chunks.append(("iTXt", itxtData(forXMP: xmp))) }
    let afterIHDR = signature.count + 25
    var out: [UInt8] = []
    out.reserveCapacity(encoded.count + chunks.reduce(0) { $0 + $1.data.count + 12 })
    out += encoded[0..<afterIHDR]
    for chunk in chunks { appendChunk(chunk.type, chunk.data, to: &out) }
    out += encoded[afterIHDR...]
    return out
  }

  /// Appends one chunk: length, type, data, CRC.
  static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
    out.appendUInt32BE(data.count)
    let typeBytes = type.asciiBytes
    var crc = typeBytes.withUnsafeBufferPointer { cpng_crc32(0, $0.baseAddress, 4) }
    crc = data.withUnsafeBufferPointer { cpng_crc32(crc, $0.baseAddress, $0.count) }
    out += typeBytes
    out += data
    out.appendUInt32BE(Int(crc))
  }

  /// zlib `inflate` through the shim; nil for a damaged stream or one over `maxSize` bytes.
  static func inflate(_ data: [UInt8], maxSize: Int) -> [UInt8]? {
    var out: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    let status = data.withUnsafeBufferPointer { cpng_inflate($0.baseAddress, $0.count, maxSize, &out, &size) }
    defer { cpng_free(out) }
    guard status == 0, let out else { return nil }
    return Array(UnsafeBufferPointer(start: out, count: size))
  }

  /// zlib `compress2` through the shim.
  static func deflate(_ data: [UInt8]) -> [UInt8]? {
    var out: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    let status = data.withUnsafeBufferPointer { cpng_deflate($0.baseAddress, $0.count, &out, &size) }
    defer { cpng_free(out) }
    guard status == 0, let out else { return nil }
    return Array(UnsafeBufferPointer(start: out, count: size))
  }
}
