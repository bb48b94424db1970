import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// Small files with huge costs: scans, rows, memory and text chunks are bounded from the
/// header, before the decoder does the work.
@Suite struct DecodeCostTests {
  // MARK: Scans

  /// A JPEG cut into the part before its first scan, its scans, and what follows the last one.
  func scans(of bytes: [UInt8]) throws -> (head: [UInt8], scans: [[UInt8]], tail: [UInt8]) {
    var i = try JPEGMarkers.parseHeader(bytes, metadata: false).firstScanOffset
    let head = Array(bytes[..<i])
    var scans: [[UInt8]] = []
    while bytes[i + 1] == 0xDA {
      var j = i + 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
      while !(bytes[j] == 0xFF && bytes[j + 1] != 0 && !(0xD0...0xD7).contains(bytes[j + 1])) { j += 1 }
      scans.append(Array(bytes[i..<j]))
      i = j
      while bytes[i + 1] != 0xDA && bytes[i + 1] != 0xD9 {  // DHT and the like between scans
        let next = i + 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        scans[scans.count - 1] += bytes[i..<next]
        i = next
      }
    }
    return (head, scans, Array(bytes[i...]))
  }

  /// A progressive fixture (10 scans) with its last scans repeated until it has `count`.
  func progressive(scans count: Int, between: [UInt8] = []) throws -> [UInt8] {
    let (head, scans, tail) = try scans(of: try fixture("jpeg/video-001.q50.420.progressive.jpeg"))
    #expect(scans.count == 10)
    var out = head + scans.joined()
    for k in 0..<(count - scans.count) { out += between + scans[scans.count - 1 - k % 4] }
    return out + tail
  }

  /// Finding: a progressive JPEG with 499 scans took 9 s and 1.2 GB to detect, and one with
  /// more than 500 was refused only after 8 s of decoding. Scans are now counted first.
  @Test func tooManyScansAreRefusedBeforeDecoding() throws {
    #expect(throws: CodecError.tooManyScans(count: 101, limit: 100)) {
      try ImageCodec.decode(try progressive(scans: 101))
    }
    #expect(throws: CodecError.tooManyScans(count: 600, limit: 100)) {
      try ImageCodec.decode(try progressive(scans: 600))
    }
    #expect(
      CodecError.tooManyScans(count: 600, limit: 100).description
        == "JPEG with 600 scans, more than the limit of 100 (cameras and encoders write about 10)")
  }

  /// libjpeg skips nothing for an APPn segment whose length is 0 or 1 and reads on: the count
  /// does too, so such a segment cannot hide the scans after it.
  @Test func aSegmentLengthBelowTwoHidesNoScans() throws {
    let bytes = try progressive(scans: 150, between: [0xFF, 0xE3, 0x00, 0x00])
    #expect(throws: CodecError.tooManyScans(count: 150, limit: 100)) { try ImageCodec.decode(bytes) }
  }

  /// The limit itself: a valid 100-scan progression decodes, to the same pixels as the
  /// baseline file it was made from (jpegtran keeps the coefficients).
  @Test func exactlyTheLimitDecodes() throws {
    let bytes = try testInput("testorig-100-scans.jpg")
    #expect(try scans(of: bytes).scans.count == 100)
    let decoded = try ImageCodec.decode(bytes)
    let same = decoded.image == (try ImageCodec.decode(try fixture("jpeg/testorig.jpg"))).image
    #expect(same)
  }

  // MARK: Rows

  /// A PNG of `width` x `height` zero pixels (8-bit RGB), its IDAT deflated for real, or only
  /// a token IDAT when `data` is false (enough for anything refused from the header).
  func png(width: Int, height: Int, data: Bool = true) throws -> [UInt8] {
    var ihdr: [UInt8] = []
    ihdr.appendUInt32BE(width)
    ihdr.appendUInt32BE(height)
    ihdr += [8, 2, 0, 0, 0]
    let raw = data ? [UInt8](repeating: 0, count: height * (1 + width * 3)) : [0]
    var out = PNGCodec.signature
    PNGCodec.appendChunk("IHDR", ihdr, to: &out)
    PNGCodec.appendChunk("IDAT", try #require(PNGCodec.deflate(raw)), to: &out)
    PNGCodec.appendChunk("IEND", [], to: &out)
    return out
  }

  /// Finding: a 972 KB 1x250,000,000 PNG took 13 s and 3 GB (libpng works row by row, and the
  /// shim held a pointer per row). Each row now counts as 64 pixels against the pixel limit.
  @Test func aOnePixelWideImageOfAQuarterBillionRows() throws {
    let bytes = try png(width: 1, height: 250_000_000, data: false)
    let expected = CodecError.tooManyRows(width: 1, height: 250_000_000, limit: 3_906_250)
    #expect(throws: expected) { try ImageCodec.decode(bytes) }
    #expect(
      expected.description
        == "image too narrow for its height: 1x250000000 has more than 3906250 rows, the most the"
        + " pixel limit allows at that width")
    // The header alone is fine to read.
    #expect(try ImageCodec.readInfo(bytes).height == 250_000_000)
  }

  @Test func narrowImagesUnderTheRowLimitDecode() throws {
    var options = DecodeOptions()
    options.maxPixels = 64 * 20_000
    let decoded = try ImageCodec.decode(try png(width: 3, height: 20_000), options: options)
    #expect(decoded.image.width == 3 && decoded.image.height == 20_000)
    #expect(throws: CodecError.tooManyRows(width: 3, height: 20_001, limit: 20_000)) {
      try ImageCodec.decode(try png(width: 3, height: 20_001, data: false), options: options)
    }
    // From 64 pixels wide on, the pixel limit alone decides.
    #expect(throws: CodecError.tooLarge(width: 64, height: 20_001, limit: 64 * 20_000)) {
      try ImageCodec.decode(try png(width: 64, height: 20_001, data: false), options: options)
    }
  }

  // MARK: Memory

  @Test func theDefaultBudgetIsTwoGiB() {
    #expect(DecodeOptions().maxMemoryBytes == 2_147_483_648)
  }

  /// The estimate covers at least the frame and, for PNG, libpng's two working rows.
  @Test func pngOverTheBudgetIsRefused() throws {
    let bytes = try fixture("faces/astronaut.png")
    let estimate = ImageCodec.decodeMemoryEstimate(try ImageCodec.readInfo(bytes))
    #expect(estimate >= 512 * 512 * 4 + 2 * 512 * 4)
    #expect(estimate < 512 * 512 * 4 * 11 / 10)
    var options = DecodeOptions()
    options.maxMemoryBytes = estimate - 1
    #expect(throws: CodecError.memoryBudgetExceeded(estimate: estimate, budget: estimate - 1)) {
      try ImageCodec.decode(bytes, options: options)
    }
    options.maxMemoryBytes = estimate
    #expect(try ImageCodec.decode(bytes, options: options).image.width == 512)
  }

  /// A progressive JPEG keeps every DCT coefficient (2 bytes each, 64 per block and component)
  /// besides the frame: a 16000x15000 4:4:4 header on a 4 KB file is refused up front.
  @Test func progressiveJPEGCountsItsCoefficients() throws {
    var bytes = try fixture("jpeg/video-001.q50.444.progressive.jpeg")
    let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
    bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0x3A, 0x98, 0x3E, 0x80])  // 15000, 16000
    let info = try ImageCodec.readInfo(bytes)
    #expect(info.width == 16000 && info.height == 15000)
    let estimate = ImageCodec.decodeMemoryEstimate(info)
    let frame = 16000 * 15000 * 4
    let coefficients = 3 * 2000 * 1875 * 128
    #expect(estimate >= frame + coefficients)
    #expect(estimate < (frame + coefficients) * 11 / 10)
    #expect(throws: CodecError.memoryBudgetExceeded(estimate: estimate, budget: 2 << 30)) {
      try ImageCodec.decode(bytes)
    }
    // A baseline JPEG of the same size needs no coefficient buffer.
    var baseline = try fixture("jpeg/testorig.jpg")
    let sof0 = try #require(baseline.indices.first { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xC0 })
    baseline.replaceSubrange((sof0 + 5)..<(sof0 + 9), with: [0x3A, 0x98, 0x3E, 0x80])
    let baselineEstimate = ImageCodec.decodeMemoryEstimate(try ImageCodec.readInfo(baseline))
    #expect(baselineEstimate >= frame && baselineEstimate < frame * 11 / 10)
  }

  /// A DCT-scaled decode (`minimumLongestSide`) needs a smaller frame; the coefficients of a
  /// progressive file are still whole.
  @Test func scaledDecodesNeedLess() throws {
    let info = try ImageCodec.readInfo(try fixture("photos/seeding_by_Clements_Engelhardt.jpg"))
    var options = DecodeOptions()
    let full = ImageCodec.decodeMemoryEstimate(info, options: options)
    options.minimumLongestSide = 1000
    let scaled = ImageCodec.decodeMemoryEstimate(info, options: options)
    // 5312x2988 at 1/4: 1328x747.
    let coefficients = (664 * 374 + 2 * 332 * 187) * 128
    #expect(full >= 5312 * 2988 * 4 + coefficients)
    #expect(scaled >= 1328 * 747 * 4 + coefficients && scaled < full * 2 / 3)
  }

  /// An EXIF orientation that turns the image costs a second frame while it is turned.
  @Test func turnedImagesCountTheirCopy() throws {
    let upright = ImageCodec.decodeMemoryEstimate(try ImageCodec.readInfo(try fixture("faces/hopper.jpg")))
    let turned = ImageCodec.decodeMemoryEstimate(
      try ImageCodec.readInfo(try fixture("faces/hopper_orientation_6.jpg")))
    #expect(turned >= upright + 128 * 128 * 4)
  }

  /// The damage scan after a harmless warning reads every coefficient of the file (libjpeg's
  /// `jpeg_read_coefficients`) while the frame is held: it is checked against the budget too.
  @Test func theDamageScanIsWithinTheBudget() throws {
    var bytes = try fixture("jpeg/testorig.jpg")
    bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: 20)  // stray bytes: a harmless warning
    #expect(try ImageCodec.decode(bytes).warnings.count == 1)
    var options = DecodeOptions()
    options.maxMemoryBytes = ImageCodec.decodeMemoryEstimate(try ImageCodec.readInfo(bytes))
    do {
      _ = try ImageCodec.decode(bytes, options: options)
      Issue.record("the damage scan went over the budget")
    } catch {
      guard case .memoryBudgetExceeded(let estimate, let budget) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(budget == options.maxMemoryBytes && estimate > budget)
    }
  }

  @Test func memoryMessageIsOneLine() {
    let error = CodecError.memoryBudgetExceeded(estimate: 3_000_000_000, budget: 2 << 30)
    #expect(
      error.description
        == "decoding needs about 2862 MiB (3000000000 bytes), more than the memory budget of 2048 MiB"
        + " (2147483648 bytes)")
  }

  // MARK: Text chunks

  /// An iTXt chunk whose XMP packet inflates to `size` zero bytes.
  func xmpChunk(inflatingTo size: Int) throws -> [UInt8] {
    let z = try #require(PNGCodec.deflate([UInt8](repeating: 0x20, count: size)))
    var out: [UInt8] = []
    PNGCodec.appendChunk("iTXt", PNGCodec.xmpKeyword + [0, 1, 0, 0, 0] + z, to: &out)
    return out
  }

  /// Finding: PNG text chunks that inflate the same capped XMP again and again took 7 s. The
  /// walk now inflates the first XMP chunk only, within a budget for the whole file.
  @Test func xmpChunksAreInflatedOnceWithinABudget() throws {
    let original = try fixture("png/basn2c08.png")
    let bomb = try xmpChunk(inflatingTo: 17 << 20)  // over the 16 MB cap for a packet
    let bytes = Array(original[..<33]) + Array(repeating: bomb, count: 40).joined() + original[33...]
    let s = try PNGCodec.walk(bytes, full: true)
    #expect(s.xmp?.count == nil)
    #expect(s.inflatedBytes <= PNGCodec.maxInflatedBytes)
    let same = try ImageCodec.decode(bytes).image == (try ImageCodec.decode(original)).image
    #expect(same)
  }

  /// The budget is the file's: a large profile and a large packet share it.
  @Test func profileAndPacketShareTheBudget() throws {
    let original = try fixture("png/basn2c08.png")
    let profile = [UInt8](repeating: 7, count: 60 << 20)
    var iccp: [UInt8] = []
    PNGCodec.appendChunk("iCCP", try #require(PNGCodec.iccpData(for: profile)), to: &iccp)
    let xmp = try xmpChunk(inflatingTo: 8 << 20)
    let bytes = Array(original[..<33]) + iccp + xmp + original[33...]
    let s = try PNGCodec.walk(bytes, full: true)
    #expect(s.icc?.count == profile.count)
    #expect(s.xmp?.count == nil)  // 60 + 8 MB is over the 64 MB budget
    #expect(s.inflatedBytes <= PNGCodec.maxInflatedBytes)
  }
}

/// The bytes of a file under Tests/Inputs, e.g. `testInput("testorig-100-scans.jpg")`.
func testInput(_ path: String) throws -> [UInt8] {
  let url = fixtures.deletingLastPathComponent().appendingPathComponent("Tests/Inputs")
    .appendingPathComponent(path)
  guard let data = FileManager.default.contents(atPath: url.path) else { throw FixtureMissing(path: path) }
  return [UInt8](data)
}
