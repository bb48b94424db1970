import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// Checks that a render carries no picture but its own: no second SOI, no PNG signature, no
/// byte run or base64 of the hidden picture.
func expectNoHiddenPicture(_ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
  let picture = try EmbeddedImagesFixture.picture()
  let start = output.starts(with: [0xFF, 0xD8]) ? 1 : 0
  #expect(
    !Array(output.dropFirst(start)).contains(bytes: [0xFF, 0xD8, 0xFF]), "a second SOI",
    sourceLocation: sourceLocation)
  #expect(
    !Array(output.dropFirst(8)).contains(bytes: PNGCodec.signature), "a PNG inside",
    sourceLocation: sourceLocation)
  #expect(
    !output.contains(bytes: Array(picture[100..<164])), "the picture's bytes", sourceLocation: sourceLocation)
  let base64 = Data(picture.prefix(300)).base64EncodedString()
  #expect(
    !output.containsText(String(base64.prefix(40))), "the picture as base64", sourceLocation: sourceLocation)
  #expect(!output.containsText("/9j/"), "a JPEG as base64", sourceLocation: sourceLocation)
  for signature in [
    "MPF\0", "FPXR", "JFXX", "http://ns.adobe.com/xmp/extension/", "8BIM\u{04}\u{0C}", "GImage", "xmpGImg",
  ] {
    #expect(!output.containsText(signature), "\(signature) in the render", sourceLocation: sourceLocation)
  }
}

/// Metadata through renders of photos hiding pictures of themselves (issue 33): whatever the
/// route, nothing but the render's own pixels.
@Suite struct EmbeddedImageTests {
  func encode(_ input: [UInt8], as format: ImageFormat, hidesFaces: Bool) throws -> [UInt8] {
    let decoded = try ImageCodec.decode(input)
    let options = EncodeOptions(metadata: decoded.metadata, hidesFaces: hidesFaces)
    return try ImageCodec.encode(decoded.image, as: format, options: options)
  }

  func exif(_ jpeg: [UInt8]) throws -> TIFFListing {
    let payload = try #require(
      markerSegments(jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif\0\0".utf8)) })
    return try #require(TIFFListing(Array(payload.payload.dropFirst(6))))
  }

  func xmpPayloads(_ jpeg: [UInt8]) -> [[UInt8]] {
    let signature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    return markerSegments(jpeg).filter { $0.marker == 0xE1 && $0.payload.starts(with: signature) }
      .map { Array($0.payload.dropFirst(signature.count)) }
  }

  /// What every render keeps: ICC, orientation 1, make, model, exposure, date, XMP's plain
  /// properties, IPTC's caption, the comment.
  func expectOrdinaryMetadata(_ jpeg: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let listing = try exif(jpeg)
    #expect(listing.ifd0[0x010F]?.value == Array("Canon\0".utf8), sourceLocation: sourceLocation)
    #expect(
      listing.ifd0[0x0110]?.value == Array("Canon EOS 5D Mark IV\0".utf8), sourceLocation: sourceLocation)
    #expect(listing.ifd0[0x0112]?.value == [1, 0], sourceLocation: sourceLocation)
    #expect(
      listing.exif[0x9003]?.value == Array("2024:06:01 12:34:56\0".utf8), sourceLocation: sourceLocation)
    #expect(listing.exif[0x829A]?.value == [1, 0, 0, 0, 125, 0, 0, 0], sourceLocation: sourceLocation)
    #expect(listing.gps[0x0001]?.value == Array("N\0".utf8), sourceLocation: sourceLocation)
    #expect(listing.nextAfterIFD0 == 0, sourceLocation: sourceLocation)
    #expect(try ImageCodec.readInfo(jpeg).orientation == 1, sourceLocation: sourceLocation)
    let icc = markerSegments(jpeg).filter { $0.marker == 0xE2 }.map(\.payload)
    #expect(
      icc == [Array("ICC_PROFILE\0".utf8) + [1, 1] + (try IdentifyingFixture.icc())],
      sourceLocation: sourceLocation)
    let xmp = xmpPayloads(jpeg)
    #expect(xmp.count == 1, sourceLocation: sourceLocation)
    for text in [
      "Picnic by the lake", "<tiff:Orientation>1</tiff:Orientation>", "Springfield", "picnic", "stEvt:action",
    ] {
      #expect(xmp.first?.containsText(text) == true, "\(text) not in the XMP", sourceLocation: sourceLocation)
    }
    #expect(jpeg.containsText("Picnic caption"), sourceLocation: sourceLocation)
    #expect(jpeg.containsText("A plain comment"), sourceLocation: sourceLocation)
    #expect(!jpeg.containsText("second packet"), sourceLocation: sourceLocation)
  }

  @Test(arguments: [1, 6])
  func aRenderThatHidesFacesCarriesNoPictureAndNoMakerNote(orientation: Int) throws {
    let input = try EmbeddedImagesFixture.jpeg(orientation: orientation)
    let output = try encode(input, as: .jpeg, hidesFaces: true)
    try expectNoHiddenPicture(output)
    try expectOrdinaryMetadata(output)
    #expect(try exif(output).exif[0x927C] == nil)
    #expect(!output.containsText(EmbeddedImagesFixture.makerNoteText))
  }

  @Test func aRenderThatDoesNotHideFacesKeepsTheMakerNoteButNoPicture() throws {
    let input = try EmbeddedImagesFixture.jpeg(makerNotePicture: false)
    let output = try encode(input, as: .jpeg, hidesFaces: false)
    try expectNoHiddenPicture(output)
    try expectOrdinaryMetadata(output)
    let makerNote = try #require(try exif(output).exif[0x927C])
    #expect(makerNote.value == Array(EmbeddedImagesFixture.makerNoteText.utf8) + [0, 0])
  }

  /// A MakerNote holding a picture is not kept even when the render shows faces: no output
  /// carries an image but its own pixels.
  @Test func aMakerNoteHoldingAPictureIsNeverKept() throws {
    let output = try encode(try EmbeddedImagesFixture.jpeg(), as: .jpeg, hidesFaces: false)
    try expectNoHiddenPicture(output)
    #expect(try exif(output).exif[0x927C] == nil)
  }

  @Test(arguments: ["iTXt", "zTXt"])
  func pngRendersCarryNoPicture(xmpIn chunk: String) throws {
    let input = try EmbeddedImagesFixture.png(xmpIn: chunk)
    for format in ImageFormat.allCases {
      let output = try encode(input, as: format, hidesFaces: true)
      try expectNoHiddenPicture(output)
      #expect(!output.containsText(EmbeddedImagesFixture.makerNoteText))
      let decoded = try ImageCodec.decode(output)
      let listing = try #require(decoded.metadata.exif.flatMap(TIFFListing.init))
      #expect(listing.ifd0[0x010F]?.value == Array("Canon\0".utf8))
      #expect(listing.exif[0x9003]?.value == Array("2024:06:01 12:34:56\0".utf8))
      #expect(listing.exif[0x927C] == nil)
      #expect(listing.nextAfterIFD0 == 0)
      let xmp = try #require(decoded.metadata.xmp)
      #expect(xmp.containsText("Picnic by the lake"))
      #expect(decoded.metadata.icc?.count == 3144)
      if format == .png {
        // One XMP chunk (photoedit's own iTXt), no zTXt or tEXt.
        let types = pngChunks(output).map(\.type)
        #expect(types.filter { $0 == "iTXt" }.count == 1)
        #expect(!types.contains("zTXt") && !types.contains("tEXt"))
      }
    }
  }

  // MARK: - The parts

  @Test func exifRebuildDropsChainedIFDsAndKeepsTheMakerNoteWhereItWas() throws {
    for littleEndian in [true, false] {
      let tiff = try EmbeddedImagesFixture.exifTIFF(littleEndian: littleEndian, makerNotePicture: false)
      let kept = try #require(EXIF.rendered(tiff, keepingMakerNote: true))
      #expect(EXIF.rendered(kept, keepingMakerNote: true) == kept)
      let listing = try #require(TIFFListing(kept))
      #expect(listing.nextAfterIFD0 == 0)
      #expect(listing.ifd0[0x0201] == nil && listing.ifd0[0x0111] == nil)
      #expect(!kept.contains(bytes: [0xFF, 0xD8, 0xFF]))
      // The MakerNote keeps its offset from the TIFF header (its own offsets may count from there).
      let original = try #require(TIFFListing(tiff))
      let note = Array(EmbeddedImagesFixture.makerNoteText.utf8)
      #expect(listing.exif[0x927C]?.value == original.exif[0x927C]?.value)
      #expect(kept.firstRange(of: note) == tiff.firstRange(of: note))
      let dropped = try #require(EXIF.rendered(tiff, keepingMakerNote: false))
      #expect(TIFFListing(dropped)?.exif[0x927C] == nil)
      #expect(!dropped.containsText(EmbeddedImagesFixture.makerNoteText))
      #expect(EXIF.rendered(dropped, keepingMakerNote: true) == dropped)
    }
  }

  @Test func xmpKeepsOnlyKnownTextProperties() throws {
    let packet = try #require(XMP.sanitized(try EmbeddedImagesFixture.xmp()))
    #expect(XMP.sanitized(packet) == packet)
    let text = String(decoding: packet, as: UTF8.self)
    for kept in [
      "<xmp:Rating>4</xmp:Rating>", "<photoshop:City>Springfield</photoshop:City>",
      "<tiff:Orientation>1</tiff:Orientation>", "<rdf:li xml:lang=\"x-default\">Picnic by the lake</rdf:li>",
      "<rdf:li>lake</rdf:li>", "<stEvt:action>saved</stEvt:action>",
    ] {
      #expect(text.contains(kept), "\(kept) is not kept")
    }
    for dropped in ["Thumbnails", "GImage", "xmpNote", "xmpGImg", "/9j/", "dc:description"] {
      #expect(!text.contains(dropped), "\(dropped) is kept")
    }
    #expect(XMLTree(packet) != nil)
  }

  @Test func xmpThatCannotBeReadIsDropped() {
    let rdf = "xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'"
    let dc = "xmlns:dc='http://purl.org/dc/elements/1.1/'"
    func packet(_ body: String) -> [UInt8] { Array("<rdf:RDF \(rdf)>\(body)</rdf:RDF>".utf8) }
    #expect(XMP.sanitized(packet("<rdf:Description \(dc) dc:format='image/jpeg'/>")) != nil)
    // A DTD (entity definitions), an undefined entity, a cut packet, an unbound prefix, a
    // mismatched end tag: all dropped whole.
    let bomb =
      "<!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;'>]><rdf:RDF \(rdf)><rdf:Description \(dc) dc:format='&b;'/></rdf:RDF>"
    #expect(XMP.sanitized(Array(bomb.utf8)) == nil)
    #expect(XMP.sanitized(packet("<rdf:Description \(dc) dc:format='&b;'/>")) == nil)
    #expect(XMP.sanitized(Array(packet("<rdf:Description \(dc) dc:format='x'/>").dropLast(3))) == nil)
    #expect(XMP.sanitized(packet("<rdf:Description dc:format='x'/>")) == nil)
    #expect(XMP.sanitized(packet("<rdf:Description \(dc)><dc:format>x</dc:title></rdf:Description>")) == nil)
    // Nesting past the bound, and a packet of unknown namespaces only.
    let deep = String(repeating: "<dc:a>", count: 200) + String(repeating: "</dc:a>", count: 200)
    #expect(XMP.sanitized(packet("<rdf:Description \(dc)>\(deep)</rdf:Description>")) == nil)
    #expect(XMP.sanitized(packet("<rdf:Description xmlns:v='urn:vendor' v:x='1'/>")) == nil)
    // Character references are resolved; markup in values is escaped again.
    let escaped = try? #require(XMP.sanitized(packet("<rdf:Description \(dc) dc:format='a&lt;b&#x26;c'/>")))
    #expect(
      escaped.map { String(decoding: $0, as: UTF8.self).contains("<dc:format>a&lt;b&amp;c</dc:format>") }
        == true)
  }

  @Test func photoshopKeepsResolutionAndIPTCWithoutPreviews() throws {
    let block = PhotoshopResources.rendered(try EmbeddedImagesFixture.photoshop())
    #expect(PhotoshopResources.rendered(block) == block)
    #expect(PhotoshopResources.resources(block).map(\.id) == [0x03ED, 0x0404])
    #expect(block.containsText("Picnic caption") && block.containsText("picnic"))
    #expect(!block.contains(bytes: [0xFF, 0xD8, 0xFF]))
  }

  @Test func embeddedImagesAreFoundAsBytesAndAsBase64() throws {
    let picture = try EmbeddedImagesFixture.picture()
    #expect(EmbeddedImage.isPresent(in: [0, 1] + picture))
    #expect(EmbeddedImage.isPresent(inText: Array("data:image/jpeg;base64,/9j/4AAQSkZJRg==".utf8)))
    #expect(
      EmbeddedImage.isPresent(
        inText: Array(Data(PNGCodec.signature + [0, 0, 0, 13]).base64EncodedString().utf8)))
    #expect(EmbeddedImage.isPresent(inText: Array(String(repeating: "QUJD", count: 40).utf8)))
    #expect(!EmbeddedImage.isPresent(inText: Array("Alice and Bob at the lake, 2024-06-01".utf8)))
    #expect(!EmbeddedImage.isPresent(inText: Array("xmp.did:abc418a3-fabe-459c-b377-19a400f19296".utf8)))
    #expect(!EmbeddedImage.isPresent(inText: Array(String(repeating: "0123456789abcdef", count: 8).utf8)))
  }
}
