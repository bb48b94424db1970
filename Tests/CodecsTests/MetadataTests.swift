import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// Metadata through a render (decode, then encode with the decoded metadata).
@Suite struct MetadataTests {
  func render(_ path: String, as format: ImageFormat = .jpeg) throws -> (input: [UInt8], output: [UInt8]) {
    let input = try fixture(path)
    let decoded = try ImageCodec.decode(input)
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    return (input, try ImageCodec.encode(decoded.image, as: format, options: options))
  }

  /// The payloads of segments with a marker and signature, signature removed.
  func payloads(_ bytes: [UInt8], marker: UInt8, signature: String) -> [[UInt8]] {
    let sig = Array(signature.utf8)
    return markerSegments(bytes).filter { $0.marker == marker && $0.payload.starts(with: sig) }
      .map { Array($0.payload.dropFirst(sig.count)) }
  }

  /// The XMP is written again with the properties of known namespaces (Lightroom's settings,
  /// the EXIF and lens properties, the history), orientation 1.
  @Test func xmpIsRewrittenWithItsKnownProperties() throws {
    let (input, output) = try render("jpeg/xmp_test.jpg")
    let xmpIn = payloads(input, marker: 0xE1, signature: "http://ns.adobe.com/xap/1.0/\0")
    #expect(xmpIn.count == 1)
    let xmpOut = payloads(output, marker: 0xE1, signature: "http://ns.adobe.com/xap/1.0/\0")
    #expect(xmpOut == [try #require(XMP.sanitized(xmpIn[0]))])
    let kept = try #require(XMP.properties(in: xmpIn[0]))
    #expect(kept.count > 100)
    for text in [
      "<crs:Vibrance>+12</crs:Vibrance>", "<aux:Lens>EF-S18-55mm f/3.5-5.6 III</aux:Lens>", "<xmpMM:History>",
    ] {
      #expect(xmpOut.first?.containsText(text) == true, "\(text)")
    }
  }

  @Test(arguments: ["jpeg/xmp_test.jpg", "jpeg/icc_profile_big.jpg"])
  func iccProfileSurvivesByteForByte(path: String) throws {
    let (input, output) = try render(path)
    func profile(_ bytes: [UInt8]) -> [UInt8] {
      payloads(bytes, marker: 0xE2, signature: "ICC_PROFILE\0").map { Array($0.dropFirst(2)) }.flatMap { $0 }
    }
    #expect(!profile(input).isEmpty)
    #expect(profile(output) == profile(input))
    if path.contains("big") {
      // 399788 bytes: seven APP2 segments on each side.
      #expect(payloads(output, marker: 0xE2, signature: "ICC_PROFILE\0").count == 7)
    }
  }

  @Test func exifIsRebuiltFromItsAllowedTags() throws {
    let (input, output) = try render("jpeg/xmp_test.jpg")
    let exifIn = try #require(payloads(input, marker: 0xE1, signature: "Exif\0\0").first)
    let exifOut = try #require(payloads(output, marker: 0xE1, signature: "Exif\0\0").first)
    // The input has an IFD1 thumbnail (a JPEG inside EXIF); the output has none.
    #expect(exifIn.contains(bytes: [0xFF, 0xD8, 0xFF]))
    #expect(!exifOut.contains(bytes: [0xFF, 0xD8, 0xFF]))
    #expect(exifOut == EXIF.rendered(exifIn, keepingMakerNote: true))
    let (listingIn, listingOut) = (try #require(TIFFListing(exifIn)), try #require(TIFFListing(exifOut)))
    #expect(listingOut.nextAfterIFD0 == 0)
    // Every kept value is the input's; the camera, exposure and dates are kept.
    for (tag, entry) in listingOut.exif {
      #expect(listingIn.exif[tag]?.value == entry.value, "Exif tag \(tag)")
    }
    for tag in [0x010F, 0x0110, 0x0132] { #expect(listingOut.ifd0[tag]?.value == listingIn.ifd0[tag]?.value) }
    for tag in [0x829A, 0x829D, 0x9003, 0x8827] { #expect(listingOut.exif[tag] != nil, "Exif tag \(tag)") }
    #expect(EXIF.orientation(in: exifOut) ?? 1 == 1)
  }

  @Test func orientationIsRewrittenToOne() throws {
    let (input, output) = try render("faces/hopper_orientation_6.jpg")
    #expect(try ImageCodec.readInfo(input).orientation == 6)
    #expect(try ImageCodec.readInfo(output).orientation == 1)
    let exifOut = try #require(payloads(output, marker: 0xE1, signature: "Exif\0\0").first)
    #expect(EXIF.orientation(in: exifOut) == 1)
  }

  @Test(arguments: ["jpeg/xmp_test.jpg", "jpeg/pil_sample_cmyk.jpg"])
  func noThumbnailOfTheOriginalSurvives(path: String) throws {
    let (input, output) = try render(path)
    func count(_ bytes: [UInt8]) -> Int {
      var n = 0
      for i in 0..<(bytes.count - 2) where bytes[i] == 0xFF && bytes[i + 1] == 0xD8 && bytes[i + 2] == 0xFF {
        n += 1
      }
      return n
    }
    #expect(count(input) == 3)  // the image, the EXIF thumbnail, the Photoshop thumbnail
    #expect(count(output) == 1)
  }

  @Test func iptcIsCarriedWithoutPhotoshopThumbnails() throws {
    let (input, output) = try render("jpeg/xmp_test.jpg")
    let psIn = payloads(input, marker: 0xED, signature: "Photoshop 3.0\0").flatMap { $0 }
    let psOut = payloads(output, marker: 0xED, signature: "Photoshop 3.0\0").flatMap { $0 }
    #expect(psIn.contains(bytes: Array("8BIM\u{04}\u{04}".utf8)))  // IPTC-NAA resource 0x0404
    #expect(psOut.contains(bytes: Array("8BIM\u{04}\u{04}".utf8)))
    #expect(psIn.contains(bytes: Array("8BIM\u{04}\u{0C}".utf8)))
    #expect(!psOut.contains(bytes: Array("8BIM\u{04}\u{0C}".utf8)))
    #expect(!psOut.contains(bytes: Array("8BIM\u{04}\u{09}".utf8)))
  }

  @Test func commentsAreCarried() throws {
    let (input, output) = try render("faces/hopper.jpg")
    let comIn = markerSegments(input).filter { $0.marker == 0xFE }.map(\.payload)
    #expect(comIn.count == 1)
    #expect(markerSegments(output).filter { $0.marker == 0xFE }.map(\.payload) == comIn)
  }

  @Test func mpfSecondaryImagesAreDropped() throws {
    // Add an APP2 "MPF" segment and a second image after EOI, as cameras do.
    var input = try fixture("jpeg/testorig.jpg")
    let mpf: [UInt8] = [0xFF, 0xE2, 0x00, 0x0C] + Array("MPF\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0]
    input.insert(contentsOf: mpf, at: 20)
    input += try fixture("faces/hopper.jpg")
    let decoded = try ImageCodec.decode(input)
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    let output = try ImageCodec.encode(decoded.image, as: .jpeg, options: options)
    #expect(!output.contains(bytes: Array("MPF\0".utf8)))
    #expect(payloads(output, marker: 0xE2, signature: "").isEmpty)
    #expect(output.suffix(2) == [0xFF, 0xD9])
    #expect(!Array(output.dropFirst(2)).contains(bytes: [0xFF, 0xD8]))
  }

  @Test func jpegProfileGoesIntoPNGiCCP() throws {
    let decodedIn = try ImageCodec.decode(try fixture("jpeg/xmp_test.jpg"))
    let (_, png) = try render("jpeg/xmp_test.jpg", as: .png)
    let decoded = try ImageCodec.decode(png)
    #expect(decoded.metadata.pngChunks.map(\.type) == ["iCCP"])
    #expect(decoded.metadata.icc == decodedIn.metadata.icc)
  }

  /// EXIF goes into a PNG as eXIf and XMP as an uncompressed iTXt, and both come back out of it,
  /// into a PNG or a JPEG, as they went in.
  @Test func exifAndXMPGoIntoPNGAndBackOut() throws {
    let decodedIn = try ImageCodec.decode(try fixture("jpeg/xmp_test.jpg"))
    let exif = try #require(decodedIn.metadata.exif)
    let xmp = try #require(decodedIn.metadata.xmp)
    let (_, png) = try render("jpeg/xmp_test.jpg", as: .png)
    let structure = try PNGCodec.walk(png, full: true)
    #expect(structure.exif == exif)
    #expect(structure.xmp == xmp)
    #expect(png.contains(bytes: Array("iTXtXML:com.adobe.xmp\0\0\0\0\0".utf8)))
    let decodedPNG = try ImageCodec.decode(png)
    #expect(decodedPNG.metadata.exif == exif)
    #expect(decodedPNG.metadata.xmp == xmp)
    var options = EncodeOptions()
    options.metadata = decodedPNG.metadata
    let jpeg = try ImageCodec.encode(decodedPNG.image, as: .jpeg, options: options)
    #expect(payloads(jpeg, marker: 0xE1, signature: "http://ns.adobe.com/xap/1.0/\0") == [xmp])
    #expect(payloads(jpeg, marker: 0xE1, signature: "Exif\0\0") == [exif])
  }

  @Test func compressedXMPInPNGIsRead() throws {
    let packet = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
    let deflated = try #require(PNGCodec.deflate(packet))
    let chunk = PNGCodec.xmpKeyword + [0, 1, 0] + Array("en\0XMP\0".utf8) + deflated
    #expect(PNGCodec.xmp(fromITXt: chunk) == packet)
    #expect(PNGCodec.xmp(fromITXt: Array("Comment\0\0\0\0\0hello".utf8)) == nil)
    #expect(PNGCodec.xmp(fromITXt: PNGCodec.xmpKeyword + [0, 0]) == nil)
  }

  @Test func pngiCCPGoesIntoJPEGAPP2() throws {
    let original = try ImageCodec.decode(try fixture("faces/astronaut.png"))
    #expect(original.metadata.icc?.count == 3144)
    let (_, jpeg) = try render("faces/astronaut.png", as: .jpeg)
    #expect(try ImageCodec.decode(jpeg).metadata.icc == original.metadata.icc)
  }

  @Test func pngColourChunksAreCarriedUnchanged() throws {
    for path in ["faces/astronaut.png", "png/basn2c16.png"] {
      let (input, output) = try render(path, as: .png)
      let chunksIn = try PNGCodec.walk(input, full: true).colourChunks
      let chunksOut = try PNGCodec.walk(output, full: true).colourChunks
      #expect(!chunksIn.isEmpty)
      #expect(chunksOut.map(\.type) == chunksIn.map(\.type))
      #expect(chunksOut.map(\.data) == chunksIn.map(\.data))
    }
  }

  @Test func xmpOrientationBecomesOne() throws {
    let rdf = "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
    let tiff = "xmlns:tiff='http://ns.adobe.com/tiff/1.0/'"
    let attribute = Array(
      "\(rdf)<rdf:Description \(tiff) tiff:Orientation='6' tiff:Make='X'/></rdf:RDF>".utf8)
    let element = Array(
      "\(rdf)<rdf:Description \(tiff)><tiff:Orientation>8</tiff:Orientation></rdf:Description></rdf:RDF>".utf8
    )
    for packet in [attribute, element] {
      let clean = try #require(XMP.sanitized(packet))
      #expect(clean.containsText("<tiff:Orientation>1</tiff:Orientation>"))
      #expect(!clean.containsText(">6<") && !clean.containsText(">8<"))
    }
  }

  @Test func exifRebuildKeepsTheExifIFDWithoutIFD1() throws {
    // A little-endian TIFF: IFD0 (orientation 8, ExifIFD pointer) -> IFD1 (JPEG thumbnail).
    var tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    // IFD0 at 8: two entries, next IFD at 50.
    tiff += [2, 0]
    tiff += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0]  // orientation 8
    tiff += [0x69, 0x87, 4, 0, 1, 0, 0, 0, 38, 0, 0, 0]  // ExifIFD at 38
    tiff += [50, 0, 0, 0]
    // Exif IFD at 38: one entry (0x9000 ExifVersion "0231"), next 0. Ends at 38 + 18 = 56? No:
    // 2 + 12 + 4 = 18 bytes -> 38..<56, so IFD1 goes at 56; fix the link.
    tiff[34] = 56
    tiff += [1, 0, 0x00, 0x90, 7, 0, 4, 0, 0, 0, 0x30, 0x32, 0x33, 0x31, 0, 0, 0, 0]
    // IFD1 at 56: JPEGInterchangeFormat (offset 86) + Length (6), next 0.
    tiff += [2, 0]
    tiff += [0x01, 0x02, 4, 0, 1, 0, 0, 0, 86, 0, 0, 0]
    tiff += [0x02, 0x02, 4, 0, 1, 0, 0, 0, 6, 0, 0, 0]
    tiff += [0, 0, 0, 0]
    tiff += [0xFF, 0xD8, 0xFF, 0xDB, 0xFF, 0xD9]
    #expect(tiff.count == 92)
    #expect(EXIF.orientation(in: tiff) == 8)
    let clean = try #require(EXIF.rendered(tiff, keepingMakerNote: true))
    let listing = try #require(TIFFListing(clean))
    #expect(listing.nextAfterIFD0 == 0)
    #expect(listing.ifd0[0x0112]?.value == [1, 0])
    #expect(listing.exif[0x9000]?.value == Array("0231".utf8))
    #expect(!clean.contains(bytes: [0xFF, 0xD8]))
    #expect(EXIF.orientation(in: clean) == 1)
  }
}

extension Array where Element == UInt8 {
  /// A copy with `range` replaced by `bytes`.
  func with(_ range: ClosedRange<Int>, _ bytes: [UInt8]) -> [UInt8] {
    var copy = self
    copy.replaceSubrange(range, with: bytes)
    return copy
  }
}
