import Foundation

// Photos that hide a picture of the original in every place a file can (issue 33): EXIF's IFD1
// thumbnail, an IFD2 preview chained after it, a MakerNote holding a JPEG; XMP's xmp:Thumbnails
// and GImage:Data (base64), an extended-XMP APP1 and a second XMP APP1; Photoshop's thumbnail
// resource, its EXIF copy and an IPTC preview; an MPF APP2 with a second JPEG after the end, a
// FlashPix APP2, a JFXX APP0 thumbnail and a JFIF APP0 one; a PNG's eXIf, iTXt and zTXt. Beside
// them, the metadata a render keeps: ICC, ordinary EXIF tags, plain XMP and IPTC, a comment.

/// The photos, and what every render of them must and must not hold.
public enum EmbeddedImagesFixture {
  /// The hidden picture: a small real JPEG (3279 bytes).
  public static func picture() throws -> [UInt8] { try fixture("jpeg/video-001.q50.420.progressive.jpeg") }

  /// The opaque part of the MakerNote (a camera's own structure), kept by renders that do not
  /// hide faces.
  public static let makerNoteText = "MAKERNOTE-OF-THE-CAMERA"
  /// Ordinary tags that every render keeps.
  public static let make = "Canon", model = "Canon EOS 5D Mark IV", dateTimeOriginal = "2024:06:01 12:34:56"
  /// ExposureTime 1/125 as a rational.
  public static let exposureTime = (1, 125)

  static func u16(_ v: Int, _ le: Bool) -> [UInt8] {
    le ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
  }
  static func u32(_ v: Int, _ le: Bool) -> [UInt8] {
    le ? u16(v & 0xFFFF, le) + u16(v >> 16, le) : u16(v >> 16, le) + u16(v & 0xFFFF, le)
  }
  static func read16(_ b: [UInt8], _ i: Int, _ le: Bool) -> Int {
    le ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1])
  }
  static func read32(_ b: [UInt8], _ i: Int, _ le: Bool) -> Int {
    le ? read16(b, i, le) | read16(b, i + 2, le) << 16 : read16(b, i, le) << 16 | read16(b, i + 2, le)
  }

  /// EXIF with make, model, date, exposure, GPS, a MakerNote (holding the picture when
  /// `makerNotePicture`), the picture as IFD1's thumbnail, and again as an IFD2 chained after
  /// IFD1 (JPEGInterchangeFormat), with its StripOffsets too.
  public static func exifTIFF(littleEndian le: Bool, orientation: Int = 6, makerNotePicture: Bool = true)
    throws
    -> [UInt8]
  {
    let picture = try picture()
    let makerNote = Array(makerNoteText.utf8) + [0, 0] + (makerNotePicture ? picture : [])
    var tiff = writeTIFF(
      littleEndian: le,
      ifd0: [
        TIFFTag(0x010F, .ascii(make)), TIFFTag(0x0110, .ascii(model)),
        TIFFTag(0x0112, .shorts([orientation])),
        TIFFTag(0x011A, .rationals([(72, 1)])), TIFFTag(0x011B, .rationals([(72, 1)])),
        TIFFTag(0x0128, .shorts([2])), TIFFTag(0x0132, .ascii("2024:06:01 12:34:56")),
      ],
      exif: [
        TIFFTag(0x829A, .rationals([exposureTime])), TIFFTag(0x829D, .rationals([(28, 10)])),
        TIFFTag(0x8827, .shorts([400])), TIFFTag(0x9000, .raw(type: 7, Array("0232".utf8))),
        TIFFTag(0x9003, .ascii(dateTimeOriginal)), TIFFTag(0x927C, .raw(type: 7, makerNote)),
        TIFFTag(0xA002, .longs([128])), TIFFTag(0xA003, .longs([128])),
      ],
      gps: [TIFFTag(0x0000, .raw(type: 1, [2, 3, 0, 0])), TIFFTag(0x0001, .ascii("N"))],
      ifd1: [TIFFTag(0x0103, .shorts([6]))], thumbnail: picture)
    // IFD2, chained after IFD1: a preview by JPEGInterchangeFormat and by StripOffsets.
    let ifd1 = read32(tiff, 8 + 2 + read16(tiff, 8, le) * 12, le)
    let link = ifd1 + 2 + read16(tiff, ifd1, le) * 12
    if tiff.count % 2 == 1 { tiff.append(0) }
    let ifd2 = tiff.count
    tiff.replaceSubrange(link..<(link + 4), with: u32(ifd2, le))
    let previewAt = ifd2 + 2 + 4 * 12 + 4
    func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
      u16(tag, le) + u16(type, le) + u32(1, le) + (type == 3 ? u16(value, le) + [0, 0] : u32(value, le))
    }
    tiff += u16(4, le)
    tiff +=
      entry(0x0103, 3, 6) + entry(0x0111, 4, previewAt) + entry(0x0201, 4, previewAt)
      + entry(0x0202, 4, picture.count)
    tiff += u32(0, le)
    tiff += picture
    return tiff
  }

  /// Base64 of the picture, in lines of 76 characters as XMP writers break it.
  public static func base64Picture() throws -> String {
    let text = Data(try picture()).base64EncodedString()
    var lines: [Substring] = []
    var rest = Substring(text)
    while !rest.isEmpty {
      lines.append(rest.prefix(76))
      rest = rest.dropFirst(76)
    }
    return lines.joined(separator: "&#xA;")
  }

  /// An XMP packet with plain properties (title, creator, keywords, a city, the history, a
  /// rating, orientation 6) and the picture as xmp:Thumbnails and GImage:Data, with
  /// xmpNote:HasExtendedXMP.
  public static func xmp() throws -> [UInt8] {
    let b64 = try base64Picture()
    return Array(
      """
      <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
       xmlns:xmpGImg="http://ns.adobe.com/xap/1.0/g/img/" xmlns:dc="http://purl.org/dc/elements/1.1/"
       xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
       xmlns:GImage="http://ns.google.com/photos/1.0/image/" xmlns:xmpNote="http://ns.adobe.com/xmp/note/"
       xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"
       xmp:Rating="4" photoshop:City="Springfield" tiff:Orientation="6" GImage:Mime="image/jpeg"
       GImage:Data="\(b64)" xmpNote:HasExtendedXMP="0123456789ABCDEF0123456789ABCDEF">
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Picnic by the lake</rdf:li></rdf:Alt></dc:title>
      <dc:subject><rdf:Bag><rdf:li>picnic</rdf:li><rdf:li>lake</rdf:li></rdf:Bag></dc:subject>
      <xmp:Thumbnails><rdf:Alt><rdf:li rdf:parseType="Resource"><xmpGImg:width>128</xmpGImg:width>
      <xmpGImg:height>128</xmpGImg:height><xmpGImg:format>JPEG</xmpGImg:format>
      <xmpGImg:image>\(b64)</xmpGImg:image></rdf:li></rdf:Alt></xmp:Thumbnails>
      <xmpMM:History><rdf:Seq><rdf:li stEvt:action="saved" stEvt:when="2024-06-01T12:34:56"/></rdf:Seq></xmpMM:History>
      <dc:description><rdf:Alt><rdf:li xml:lang="x-default">\(b64)</rdf:li></rdf:Alt></dc:description>
      </rdf:Description></rdf:RDF></x:xmpmeta>
      <?xpacket end="w"?>
      """.utf8)
  }

  /// A JPEG segment: marker, length, payload.
  static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    IdentifyingFixture.segment(marker, payload)
  }

  /// Photoshop's resources: resolution, IPTC (a caption, keywords and the picture as the object
  /// preview 2:202), the picture as Photoshop 5's thumbnail 0x040C and an EXIF copy 0x0422.
  public static func photoshop() throws -> [UInt8] {
    let picture = try picture()
    let thumbnailHeader: [UInt8] =
      [0, 0, 0, 1, 0, 0, 0, 128, 0, 0, 0, 128] + [UInt8](repeating: 0, count: 16)
    return IdentifyingFixture.resource(0x03ED, IdentifyingFixture.resolutionInfo)
      + IdentifyingFixture.resource(
        0x0404,
        IdentifyingFixture.dataset(2, 0, [0, 4]) + IdentifyingFixture.dataset(2, 120, "Picnic caption")
          + IdentifyingFixture.dataset(2, 25, "picnic") + IdentifyingFixture.dataset(2, 202, picture))
      + IdentifyingFixture.resource(0x040C, thumbnailHeader + picture)
      + IdentifyingFixture.resource(0x0422, try exifTIFF(littleEndian: false))
  }

  /// Fixtures/faces/hopper.jpg (128x128, one face) with every kind of hidden picture: a JFIF
  /// APP0 with a 2x2 thumbnail in place of its own, a JFXX APP0, EXIF, two XMP APP1s and an
  /// extended-XMP one, ICC, MPF and FlashPix APP2s, Photoshop, a comment; the picture again
  /// after the end (the image MPF points to).
  public static func jpeg(orientation: Int = 6, makerNotePicture: Bool = true) throws -> [UInt8] {
    let hopper = try fixture("faces/hopper.jpg")
    let picture = try picture()
    let afterAPP0 = 4 + (Int(hopper[4]) << 8 | Int(hopper[5]))
    let jfif = Array("JFIF\0".utf8) + [1, 2, 1, 0, 72, 0, 72, 2, 2] + [UInt8](repeating: 0x7F, count: 12)
    let extendedHeader =
      Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array("0123456789ABCDEF0123456789ABCDEF".utf8)
    let extended = Array(
      "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description xmlns:GImage='http://ns.google.com/photos/1.0/image/' GImage:Data='\(try base64Picture())'/></rdf:RDF></x:xmpmeta>"
        .utf8)
    // An MP index: MPEntry of two images, the second after the first's end (offset from the
    // MP header, which starts right after "MPF\0").
    let mpf =
      Array("MPF\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0xB0, 0x02, 0, 7, 0, 0, 0, 32, 0, 0, 0, 26]
      + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, 0, 0, 0] + [
        0, 0, 0x0C, 0xCF, 0, 0, 0x10, 0, 0, 0, 0, 0,
      ]
    let flashPix = Array("FPXR\0".utf8) + [0, 2] + picture
    let metadata =
      segment(0xE0, jfif)
      + segment(0xE0, Array("JFXX\0".utf8) + [0x10] + picture)
      + segment(
        0xE1,
        Array("Exif\0\0".utf8)
          + (try exifTIFF(littleEndian: true, orientation: orientation, makerNotePicture: makerNotePicture)))
      + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + (try xmp()))
      + segment(0xE1, extendedHeader + [0, 0, 0x20, 0, 0, 0, 0, 0] + extended)
      + segment(
        0xE1,
        Array("http://ns.adobe.com/xap/1.0/\0".utf8)
          + Array(
            "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description xmlns:xmp='http://ns.adobe.com/xap/1.0/' xmp:Label='second packet'/></rdf:RDF></x:xmpmeta>"
              .utf8))
      + segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + (try IdentifyingFixture.icc()))
      + segment(0xE2, mpf)
      + segment(0xE2, flashPix)
      + segment(0xED, Array("Photoshop 3.0\0".utf8) + (try photoshop()))
      + segment(0xFE, Array("A plain comment".utf8))
    return Array(hopper[..<2]) + metadata + Array(hopper[afterAPP0...]) + picture
  }

  /// A zlib stream of stored (uncompressed) deflate blocks.
  public static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var k = 0
    repeat {
      let n = min(65535, bytes.count - k)
      let final: UInt8 = k + n == bytes.count ? 1 : 0
      out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)]
      out += bytes[k..<(k + n)]
      k += n
    } while k < bytes.count
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in bytes {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    let adler = b << 16 | a
    return out + [
      UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF),
    ]
  }

  /// Fixtures/faces/astronaut.png (512x512, one face) with a big-endian eXIf (thumbnail, IFD2,
  /// MakerNote), the XMP as an iTXt chunk (or, with `xmpIn: "zTXt"`, as a zTXt), a zTXt XMP
  /// after it, and a tEXt comment holding the picture as base64.
  public static func png(xmpIn chunkType: String = "iTXt") throws -> [UInt8] {
    let astronaut = try fixture("faces/astronaut.png")
    let keyword = Array("XML:com.adobe.xmp".utf8)
    var out = Array(astronaut[..<8])
    for chunk in pngChunks(astronaut) {
      out += pngChunk(chunk.type, chunk.data)
      if chunk.type == "IHDR" {
        out += pngChunk("eXIf", try exifTIFF(littleEndian: false, orientation: 1))
        if chunkType == "iTXt" {
          out += pngChunk("iTXt", keyword + [0, 0, 0, 0, 0] + (try xmp()))
        }
        out += pngChunk("zTXt", keyword + [0, 0] + zlibStored(try xmp()))
        out += pngChunk("tEXt", Array("Comment\0".utf8) + Array((try base64Picture()).utf8))
      }
    }
    return out
  }
}

/// The entries of a TIFF structure's IFDs, for checks: IFD0, the Exif IFD, the GPS IFD, the
/// Interoperability IFD, each as tag -> (type, count, value bytes), and IFD0's link to IFD1.
public struct TIFFListing: Sendable {
  public var ifd0: [Int: (type: Int, count: Int, value: [UInt8])] = [:]
  public var exif: [Int: (type: Int, count: Int, value: [UInt8])] = [:]
  public var gps: [Int: (type: Int, count: Int, value: [UInt8])] = [:]
  public var interop: [Int: (type: Int, count: Int, value: [UInt8])] = [:]
  public var nextAfterIFD0 = 0
  public var littleEndian = true

  /// nil when the structure cannot be walked.
  public init?(_ b: [UInt8]) {
    guard b.count >= 8 else { return nil }
    let le = b[0] == 0x49
    littleEndian = le
    typealias E = EmbeddedImagesFixture
    func ifd(_ at: Int) -> [Int: (type: Int, count: Int, value: [UInt8])]? {
      guard at >= 8, at + 2 <= b.count else { return nil }
      let n = E.read16(b, at, le)
      guard at + 2 + n * 12 + 4 <= b.count else { return nil }
      var out: [Int: (type: Int, count: Int, value: [UInt8])] = [:]
      for k in 0..<n {
        let e = at + 2 + k * 12
        let (tag, type, count) = (E.read16(b, e, le), E.read16(b, e + 2, le), E.read32(b, e + 4, le))
        let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8][type, default: 1] * count
        let start = size <= 4 ? e + 8 : E.read32(b, e + 8, le)
        guard start + size <= b.count else { return nil }
        out[tag] = (type, count, Array(b[start..<(start + size)]))
      }
      return out
    }
    let at0 = E.read32(b, 4, le)
    guard let ifd0 = ifd(at0) else { return nil }
    self.ifd0 = ifd0
    nextAfterIFD0 = E.read32(b, at0 + 2 + ifd0.count * 12, le)
    func pointer(_ entry: (type: Int, count: Int, value: [UInt8])?) -> Int? {
      guard let entry, entry.value.count == 4 else { return nil }
      return E.read32(entry.value, 0, le)
    }
    if let p = pointer(ifd0[0x8769]) { exif = ifd(p) ?? [:] }
    if let p = pointer(ifd0[0x8825]) { gps = ifd(p) ?? [:] }
    if let p = pointer(exif[0xA005]) { interop = ifd(p) ?? [:] }
  }
}
