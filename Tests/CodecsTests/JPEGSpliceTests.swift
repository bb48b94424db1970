import CJPEGShim
import Foundation
import PhotoCore
import TestSupport
import Testing

@testable import Codecs

/// Splicing replaced MCUs into a JPEG's entropy-coded data must give a file that decodes to the
/// same pixels as libjpeg's full transcode with the same replaced blocks, and leave every other
/// bit alone.
@Suite struct JPEGSpliceTests {
  struct ShimError: Error, CustomStringConvertible {
    var description: String
  }

  /// A JPEG of `image` with the given subsampling (TurboJPEG, its standard Huffman tables).
  static func encoded(_ image: Image, _ subsampling: ChromaSubsampling) throws -> [UInt8] {
    var options = EncodeOptions()
    options.subsampling = subsampling
    options.quality = 90
    return try ImageCodec.encode(image, as: .jpeg, options: options)
  }

  /// `jpeg` transcoded by libjpeg (same coefficients), with a restart marker every `restart`
  /// MCUs, and optimised or standard Huffman tables.
  static func transcoded(_ jpeg: [UInt8], restart: Int, optimize: Bool) throws -> [UInt8] {
    try withCoefficients(jpeg) { c in
      var size = 0
      var message = [CChar](repeating: 0, count: 256)
      guard
        let bytes = cjpeg_coefficients_write_baseline(
          c, UInt32(restart), optimize ? 1 : 0, &size, &message, message.count)
      else { throw ShimError(description: String(cMessage: message)) }
      defer { cjpeg_free(bytes) }
      return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
  }

  static func withCoefficients<T>(_ jpeg: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
    try jpeg.withUnsafeBufferPointer { data in
      var message = [CChar](repeating: 0, count: 256)
      var unsupported: Int32 = 0
      guard
        let c = cjpeg_coefficients_read(data.baseAddress, data.count, &unsupported, &message, message.count)
      else { throw ShimError(description: String(cMessage: message)) }
      defer { cjpeg_coefficients_close(c) }
      return try body(c)
    }
  }

  /// A patch: its rectangle in pixels (on MCU boundaries, whole MCUs or reaching the image's
  /// edges) and its pixels.
  struct Patch {
    var x: Int, y: Int, width: Int, height: Int
    var pixels: [UInt8]
  }

  /// A patch of noise, or of one colour.
  static func patch(x: Int, y: Int, width: Int, height: Int, seed: UInt64, flat: Bool = false) -> Patch {
    let image =
      flat
      ? Image(width: width, height: height, fill: RGBA(UInt8(seed * 40 % 256), 128, 200))
      : noiseImage(width: width, height: height, seed: seed)
    return Patch(x: x, y: y, width: width, height: height, pixels: image.bytes)
  }

  /// The patch's blocks by MCU index of `splice`'s file.
  static func blocks(_ patch: Patch, in jpeg: [UInt8], _ splice: JPEGSplice) throws -> [(
    mcu: Int, blocks: [Int16]
  )] {
    var pixels = patch.pixels
    return try pixels.withUnsafeMutableBufferPointer { p in
      try splice.blocks(
        of: PixelBuffer(
          viewing: p.baseAddress!, stride: patch.width * 4,
          rect: PixelRect(x: patch.x, y: patch.y, width: patch.width, height: patch.height)))
    }
  }

  /// libjpeg's full transcode of `jpeg` with `patches` compressed in place.
  static func reference(_ jpeg: [UInt8], _ patches: [Patch]) throws -> [UInt8] {
    try withCoefficients(jpeg) { c in
      var message = [CChar](repeating: 0, count: 256)
      for p in patches {
        guard
          cjpeg_coefficients_encode_patch(
            c, p.pixels, p.width * 4, UInt32(p.x), UInt32(p.y), UInt32(p.width), UInt32(p.height), &message,
            message.count) == 0
        else { throw ShimError(description: String(cMessage: message)) }
      }
      var size = 0
      guard let bytes = cjpeg_coefficients_write(c, 0, &size, &message, message.count) else {
        throw ShimError(description: String(cMessage: message))
      }
      defer { cjpeg_free(bytes) }
      return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
  }

  /// Damage libjpeg only warns about (junk before a marker, a premature end), as text.
  static func damage(_ jpeg: [UInt8]) -> String? {
    var message = [CChar](repeating: 0, count: 256)
    let result = cjpeg_find_damage(jpeg, jpeg.count, &message, message.count)
    return result == 0 ? nil : String(cMessage: message)
  }

  static func splice(_ jpeg: [UInt8]) throws -> JPEGSplice? {
    try jpeg.withUnsafeBufferPointer { data throws(CodecError) in try JPEGSplice(data) }
  }

  /// The bytes after the SOS segment up to the end.
  static func entropyData(_ jpeg: [UInt8]) -> ArraySlice<UInt8> {
    var offset = 2
    while offset + 4 <= jpeg.count {
      let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
      if jpeg[offset + 1] == 0xDA { return jpeg[(offset + 2 + length)...] }
      offset += 2 + length
    }
    return []
  }

  /// A photo tiled to the size asked, as grey or colour pixels.
  static func photo(width: Int, height: Int) throws -> Image {
    try JPEGBandTests.photo(width: width, height: height)
  }

  /// The patches every layout is spliced with on a `width` x `height` image of `mcu`-sized MCUs:
  /// the top-left MCU, a run from the end of one MCU row to the start of the next (at the right
  /// edge: a cut MCU), a block of MCUs in the middle, and the last MCU (cut at both edges).
  static func patches(width: Int, height: Int, mcu: (Int, Int)) -> [Patch] {
    let (w, h) = mcu
    let across = (width + w - 1) / w
    let down = (height + h - 1) / h
    let right = (across - 1) * w
    return [
      patch(x: 0, y: 0, width: w, height: h, seed: 1),
      patch(x: right, y: h, width: width - right, height: h, seed: 2),
      patch(x: 0, y: 2 * h, width: w, height: h, seed: 3, flat: true),
      patch(x: 2 * w, y: 3 * h, width: 3 * w, height: 2 * h, seed: 4),
      patch(x: right, y: (down - 1) * h, width: width - right, height: height - (down - 1) * h, seed: 5),
    ]
  }

  /// Splices `patches` into `jpeg` and checks the pixels against libjpeg's transcode.
  static func checkSplice(_ jpeg: [UInt8], _ patches: [Patch], comment: Comment) throws {
    let splice = try #require(try Self.splice(jpeg), comment)
    var replaced: [(mcu: Int, blocks: [Int16])] = []
    for p in patches { replaced += try blocks(p, in: jpeg, splice) }
    let spliced = try #require(
      try jpeg.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.splice(replaced, metadataSegments: [])
      }, comment)
    #expect(damage(spliced) == nil, comment)
    // The scan ends where its last MCU does, padded to a byte: no whole byte of junk after it
    // (libjpeg-turbo reads a few bytes ahead and would not tell; a stricter decoder would).
    let result = try #require(try Self.splice(spliced), comment)
    if result.restartInterval == 0 {
      let bits = try spliced.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.scanBits()
      }
      #expect(bits.end <= bits.total && bits.total - bits.end < 8, comment)
    }
    let expected = try ImageCodec.decode(try reference(jpeg, patches)).image
    let decoded = try ImageCodec.decode(spliced)
    #expect(decoded.details.warnings.isEmpty, comment)
    #expect(decoded.image.width == expected.width && decoded.image.height == expected.height, comment)
    #expect(decoded.image.bytes == expected.bytes, comment)
    // And the replaced MCUs changed something: the original decodes otherwise.
    #expect(try ImageCodec.decode(jpeg).image.bytes != decoded.image.bytes, comment)
  }

  @Test(arguments: [ChromaSubsampling.s420, .s422, .s444])
  func colourSplicesMatchTheTranscode(_ subsampling: ChromaSubsampling) throws {
    let (width, height) = (203, 157)
    let original = try Self.encoded(try Self.photo(width: width, height: height), subsampling)
    let mcu = JPEGCodec.mcuSize(subsampling)
    let patches = Self.patches(width: width, height: height, mcu: (mcu.width, mcu.height))
    try Self.checkSplice(original, patches, comment: "\(subsampling) without restarts")
    for restart in [1, 7, (width + mcu.width - 1) / mcu.width] {
      let withRestarts = try Self.transcoded(original, restart: restart, optimize: false)
      try Self.checkSplice(withRestarts, patches, comment: "\(subsampling), restart every \(restart) MCUs")
    }
  }

  @Test func greySplicesMatchTheTranscode() throws {
    for name in ["jpeg/video-005.gray.jpeg", "jpeg/hopper_gray.jpg"] {
      let original = try fixture(name)
      let splice = try #require(try Self.splice(original), "\(name)")
      #expect(splice.mcuWidth == 8 && splice.blocksPerMCU == 1)
      let size = try ImageCodec.decode(original).image
      let patches = Self.patches(width: size.width, height: size.height, mcu: (8, 8))
      try Self.checkSplice(original, patches, comment: "\(name)")
      for restart in [1, 5] {
        let withRestarts = try Self.transcoded(original, restart: restart, optimize: false)
        try Self.checkSplice(withRestarts, patches, comment: "\(name), restart every \(restart) MCUs")
      }
    }
  }

  /// A camera-like file: restart interval 250, component ids 0 1 2, an Adobe segment, EXIF.
  @Test func realFileWithRestarts() throws {
    let original = try fixture("jpeg/xmp_test.jpg")
    let patches = Self.patches(width: 2000, height: 1072, mcu: (8, 8))
    try Self.checkSplice(original, patches, comment: "xmp_test.jpg")
  }

  /// Every MCU of a small image replaced: nothing of the original's entropy data is left.
  @Test func everyMCUReplaced() throws {
    let original = try Self.encoded(try Self.photo(width: 40, height: 24), .s420)
    try Self.checkSplice(original, [Self.patch(x: 0, y: 0, width: 40, height: 24, seed: 9)], comment: "all")
  }

  /// One MCU at a time, at every position of a small image, so that the bits after it move by
  /// every fraction of a byte and the original's last MCU is found or the padding is read.
  @Test(arguments: [(70, 37), (66, 40), (75, 33), (80, 48)])
  func eachSingleMCU(_ width: Int, _ height: Int) throws {
    let original = try Self.encoded(try Self.photo(width: width, height: height), .s420)
    for my in 0..<((height + 15) / 16) {
      for mx in 0..<((width + 15) / 16) {
        let (x, y) = (mx * 16, my * 16)
        let p = Self.patch(
          x: x, y: y, width: min(16, width - x), height: min(16, height - y), seed: UInt64(mx + 7 * my))
        try Self.checkSplice(original, [p], comment: "MCU \(mx), \(my)")
      }
    }
  }

  @Test func noReplacedMCUKeepsTheEntropyData() throws {
    let made = try Self.encoded(try Self.photo(width: 99, height: 61), .s420)
    let restarts = try Self.transcoded(made, restart: 3, optimize: true)
    let names = [
      "jpeg/testorig.jpg", "jpeg/video-001.jpeg", "jpeg/xmp_test.jpg", "jpeg/video-005.gray.jpeg",
      "jpeg/hopper_gray.jpg",
    ]
    let named = try names.map { ($0, try fixture($0)) }
    for (name, jpeg) in named + [("made", made), ("restarts", restarts)] {
      let splice = try #require(try Self.splice(jpeg), "\(name)")
      let metadata: [UInt8] = [0xFF, 0xFE, 0x00, 0x06] + Array("test".utf8)
      let spliced = try #require(
        try jpeg.withUnsafeBufferPointer { data throws(CodecError) in
          try JPEGSplice(data)!.splice([], metadataSegments: metadata)
        })
      _ = splice
      #expect(Self.entropyData(spliced) == Self.entropyData(jpeg), "\(name)")
      #expect(spliced.contains(bytes: metadata), "\(name)")
      #expect(try ImageCodec.decode(spliced).image.bytes == ImageCodec.decode(jpeg).image.bytes, "\(name)")
      #expect(Self.damage(spliced) == nil, "\(name)")
    }
    // TurboJPEG's own file loses nothing at all: JFIF, tables, scan, data are the original's.
    let plain = try #require(
      try made.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.splice([], metadataSegments: [])
      })
    #expect(plain == made)
  }

  @Test func filesItCannotSplice() throws {
    for name in [
      "jpeg/video-001.q50.420.progressive.jpeg", "jpeg/testimgari.jpg", "jpeg/icc_profile_big.jpg",
      "jpeg/video-001.cmyk.jpeg",
    ] {
      #expect(try Self.splice(try fixture(name)) == nil, "\(name)")
    }
    #expect(try Self.splice(try fixture("bad/testorig12.jpg")) == nil, "12-bit")
  }

  /// Optimised tables hold only the symbols their file uses: noise in a flat image needs others.
  @Test func tablesThatCannotCodeTheBlocks() throws {
    let flat = try Self.encoded(Image(width: 64, height: 48, fill: RGBA(90, 120, 30)), .s420)
    let optimised = try Self.transcoded(flat, restart: 0, optimize: true)
    let splice = try #require(try Self.splice(optimised))
    let noisy = try Self.blocks(
      Self.patch(x: 16, y: 16, width: 16, height: 16, seed: 3), in: optimised, splice)
    let result = try optimised.withUnsafeBufferPointer { data throws(CodecError) in
      try JPEGSplice(data)!.splice(noisy, metadataSegments: [])
    }
    #expect(result == nil)
    // The same colour is coded with the symbols the file has.
    let same = Patch(
      x: 16, y: 16, width: 16, height: 16, pixels: Image(width: 16, height: 16, fill: RGBA(90, 120, 30)).bytes
    )
    let again = try Self.blocks(same, in: optimised, splice)
    let spliced = try #require(
      try optimised.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.splice(again, metadataSegments: [])
      })
    #expect(try ImageCodec.decode(spliced).image.bytes == ImageCodec.decode(optimised).image.bytes)
  }

  @Test func truncatedScan() throws {
    let jpeg = try Self.encoded(try Self.photo(width: 120, height: 90), .s420)
    let scan = Self.entropyData(jpeg).startIndex
    let cut = Array(jpeg[0..<(scan + (jpeg.count - scan) / 2)])
    #expect(throws: CodecError.truncated(.jpeg)) { try Self.splice(cut) }
    // Cut, then ended: the data runs out before the last MCU.
    let ended = cut + [0xFF, 0xD9]
    let splice = try #require(try Self.splice(ended))
    let last = [(mcu: splice.mcuCount - 1, blocks: [Int16](repeating: 0, count: splice.blocksPerMCU * 64))]
    #expect(throws: CodecError.self) {
      try ended.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.splice(last, metadataSegments: [])
      }
    }
  }

  /// The splice of `replaced` into `jpeg`, with `index` when given: the file, nil, or the error.
  static func outcome(_ jpeg: [UInt8], _ replaced: [(mcu: Int, blocks: [Int16])], index: JPEGScanIndex?)
    -> Result<[UInt8]?, CodecError>
  {
    Result { () throws(CodecError) in
      try jpeg.withUnsafeBufferPointer { data throws(CodecError) -> [UInt8]? in
        guard var splice = try JPEGSplice(data) else { return nil }
        splice.use(index)
        return try splice.splice(replaced, metadataSegments: [])
      }
    }
  }

  /// A splice that jumps to an index's checkpoints writes the same bytes as one that decodes
  /// every MCU, whatever part of the scan the index has walked (none, some, all), with and without
  /// restart markers, in colour and grey; an index of other bytes is not used.
  @Test func anIndexChangesNoByte() throws {
    let made = try Self.encoded(try Self.photo(width: 203, height: 157), .s420)
    var files: [(String, [UInt8])] = [("made", made)]
    for restart in [1, 7, 13] {
      files.append(("restart \(restart)", try Self.transcoded(made, restart: restart, optimize: false)))
    }
    files.append(("xmp_test.jpg", try fixture("jpeg/xmp_test.jpg")))
    files.append(("hopper_gray.jpg", try fixture("jpeg/hopper_gray.jpg")))
    for (f, (name, jpeg)) in files.enumerated() {
      let splice = try #require(try Self.splice(jpeg), "\(name)")
      let size = try ImageCodec.decode(jpeg).image
      let mcu = (splice.mcuWidth, splice.mcuHeight)
      let all = Self.patches(width: size.width, height: size.height, mcu: mcu)
      // Every patch set: each alone, the last two (the walk goes past most checkpoints), all.
      let sets = all.map { [$0] } + [Array(all.suffix(2)), all]
      let checkpoints = (splice.mcuCount + JPEGScanIndex.stride - 1) / JPEGScanIndex.stride
      for patches in sets {
        var replaced: [(mcu: Int, blocks: [Int16])] = []
        for p in patches { replaced += try Self.blocks(p, in: jpeg, splice) }
        let plain = try #require(try Self.outcome(jpeg, replaced, index: nil).get(), "\(name)")
        for limit in [0, 1, 2, checkpoints / 2, checkpoints - 1, checkpoints] {
          let index = try #require(JPEGScanIndex(jpeg))
          index.walk(limit: limit)
          let jumped = try Self.outcome(jpeg, replaced, index: index).get()
          #expect(
            jumped == plain, "\(name), \(patches.count) patches, \(limit) of \(checkpoints) checkpoints")
        }
        // An index of another file is not used.
        let other = try #require(JPEGScanIndex(files[(f + 1) % files.count].1))
        other.walk()
        #expect(try Self.outcome(jpeg, replaced, index: other).get() == plain, "\(name)")
      }
    }
  }

  /// Damaged scans: with an index walked as far as the damage let it, the splice ends as it does
  /// without one (the same file, nil, or the same error).
  @Test func anIndexOfDamagedDataChangesNothing() throws {
    let base = try Self.encoded(try Self.photo(width: 96, height: 80), .s420)
    let restarts = try Self.transcoded(base, restart: 4, optimize: false)
    var random = SplitMix(seed: 11)
    for original in [base, restarts] {
      let scan = Self.entropyData(original).startIndex
      for _ in 0..<150 {
        var bytes = original
        for _ in 0..<(1 + Int(random.next() % 3)) {
          let at = scan + Int(random.next() % UInt64(bytes.count - scan - 2))
          bytes[at] = UInt8(truncatingIfNeeded: random.next())
        }
        guard let splice = try? Self.splice(bytes) else { continue }
        let zeros = [Int16](repeating: 0, count: splice.blocksPerMCU * 64)
        let replaced = [splice.mcuCount / 3, splice.mcuCount - 1].map { (mcu: $0, blocks: zeros) }
        let plain = Self.outcome(bytes, replaced, index: nil)
        let index = try #require(JPEGScanIndex(bytes))
        index.walk()
        let jumped = Self.outcome(bytes, replaced, index: index)
        switch (plain, jumped) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("\(plain) with no index, \(jumped) with one")
        }
      }
    }
  }

  /// Damaged files: every outcome is nil, a file, or a `CodecError`, never a trap.
  @Test func hostileData() throws {
    let base = try Self.transcoded(
      try Self.encoded(try Self.photo(width: 64, height: 48), .s420), restart: 2, optimize: false)
    let plain = try Self.encoded(try Self.photo(width: 64, height: 48), .s444)
    var random = SplitMix(seed: 7)
    for original in [base, plain] {
      for round in 0..<400 {
        var bytes = original
        let edits = 1 + Int(random.next() % 4)
        for _ in 0..<edits {
          let at = Int(random.next() % UInt64(bytes.count))
          switch random.next() % 3 {
          case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
          case 1: bytes[at] = 0xFF
          default: bytes.removeSubrange(at..<min(bytes.count, at + Int(random.next() % 16)))
          }
        }
        if round % 5 == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))) }
        do {
          try bytes.withUnsafeBufferPointer { data throws(CodecError) in
            guard let splice = try JPEGSplice(data) else { return }
            let mcus = [0, splice.mcuCount / 2, splice.mcuCount - 1]
            let zeros = [Int16](repeating: 0, count: splice.blocksPerMCU * 64)
            _ = try splice.splice(mcus.map { ($0, zeros) }, metadataSegments: [])
          }
        } catch {}
      }
    }
  }
}

/// Not a test: times splicing against libjpeg's read and write when `PHOTOEDIT_SPLICE_BENCH`
/// names a JPEG (e.g. the 24 MP bench photo). Prints medians of 5; asserts nothing about time.
@Suite struct JPEGSpliceBenchmark {
  static let path: String? = {
    guard let value = getenv("PHOTOEDIT_SPLICE_BENCH") else { return nil }
    return String(cString: value)
  }()

  @Test(.enabled(if: path != nil)) func spliceAgainstLibjpeg() throws {
    let jpeg = try readFile(Self.path!)
    let splice = try #require(try JPEGSpliceTests.splice(jpeg))
    // The MCUs an 800 px circle in the middle touches, replaced by one flat patch's blocks.
    let (cx, cy, radius) = (
      splice.mcusAcross * splice.mcuWidth / 2, splice.mcusDown * splice.mcuHeight / 2, 400
    )
    let flat = JPEGSpliceTests.Patch(
      x: 0, y: 0, width: splice.mcuWidth, height: splice.mcuHeight,
      pixels: Image(width: splice.mcuWidth, height: splice.mcuHeight, fill: RGBA(120, 90, 60)).bytes)
    let blocks = try JPEGSpliceTests.blocks(flat, in: jpeg, splice)[0].blocks
    var replaced: [(mcu: Int, blocks: [Int16])] = []
    for my in 0..<splice.mcusDown {
      for mx in 0..<splice.mcusAcross {
        let nx = min(max(cx, mx * splice.mcuWidth), (mx + 1) * splice.mcuWidth - 1)
        let ny = min(max(cy, my * splice.mcuHeight), (my + 1) * splice.mcuHeight - 1)
        if (nx - cx) * (nx - cx) + (ny - cy) * (ny - cy) <= radius * radius {
          replaced.append((my * splice.mcusAcross + mx, blocks))
        }
      }
    }
    // PHOTOEDIT_SPLICE_BENCH_MODE=splice, libjpeg or setup runs only that (5 times), for
    // `perf stat -e instructions:u`; the setup alone is what to subtract.
    let mode = getenv("PHOTOEDIT_SPLICE_BENCH_MODE").map { String(cString: $0) }
    func median(_ name: String, _ body: () throws -> Void) rethrows -> Duration {
      guard mode == nil || mode == name else { return .zero }
      var times: [Duration] = []
      for _ in 0..<5 { times.append(try ContinuousClock().measure(body)) }
      return times.sorted()[2]
    }
    var size = 0
    let spliceTime = try median("splice") {
      size = try jpeg.withUnsafeBufferPointer { data throws(CodecError) in
        try JPEGSplice(data)!.splice(replaced, metadataSegments: [])!.count
      }
    }
    var written = 0
    let libjpegTime = try median("libjpeg") {
      written = try JPEGSpliceTests.transcoded(jpeg, restart: 0, optimize: false).count
    }
    print(
      "splice: \(replaced.count) of \(splice.mcuCount) MCUs replaced, init+splice \(spliceTime) (\(size) bytes);"
        + " libjpeg read+write \(libjpegTime) (\(written) bytes)")
  }

  func readFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else {
      throw JPEGSpliceTests.ShimError(description: "cannot open \(path)")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = fread(&chunk, 1, chunk.count, file)
      if n == 0 { break }
      bytes += chunk[0..<n]
    }
    return bytes
  }
}
