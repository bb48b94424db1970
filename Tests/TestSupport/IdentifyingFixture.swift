import Foundation

// A photo full of identifying metadata, made at test time from the fixtures: EXIF with a GPS
// IFD, serial numbers, owner, artist, copyright, a maker note, a user comment, Windows' XPAuthor,
// a private serial tag, a thumbnail and stale bytes no entry points to; XMP with a location, a
// creator and a history; IPTC with a by-line, a city and a caption, beside Photoshop's copies of
// EXIF and XMP; a comment; a real ICC profile. Its EXIF is written by the small TIFF writer
// below, which lays a structure out by the rules docs/codecs.md gives for a stripped one, so
// that the expected stripped EXIF is the same writer given only the tags that are kept.

/// A TIFF value; written in the structure's byte order.
public enum TIFFValue: Sendable {
  /// ASCII with one NUL added.
  case ascii(String)
  /// Raw bytes of a 1-byte type: BYTE (1), ASCII (2) or UNDEFINED (7).
  case raw(type: Int, [UInt8])
  case shorts([Int])
  case longs([Int])
  case rationals([(Int, Int)])
}

public struct TIFFTag: Sendable {
  public var tag: Int
  public var value: TIFFValue
  public init(_ tag: Int, _ value: TIFFValue) { (self.tag, self.value) = (tag, value) }
}

/// Writes a TIFF structure: the header, IFD0 and its values, then the Exif, Interoperability,
/// GPS and IFD1 directories (each followed by its values), the thumbnail, then `trailing`
/// bytes no entry points to. Entries in ascending tag order; directories and out-of-line values
/// at even offsets; pointers (0x8769, 0xA005, 0x8825, IFD1's 0x0201/0x0202) added as needed.
public func writeTIFF(
  littleEndian: Bool, ifd0: [TIFFTag], exif: [TIFFTag] = [], interop: [TIFFTag] = [],
  gps: [TIFFTag] = [], ifd1: [TIFFTag] = [], thumbnail: [UInt8]? = nil, trailing: [UInt8] = []
) -> [UInt8] {
  func u16(_ v: Int) -> [UInt8] {
    littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
  }
  func u32(_ v: Int) -> [UInt8] {
    littleEndian ? u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) : u16(v >> 16 & 0xFFFF) + u16(v & 0xFFFF)
  }
  func encoded(_ value: TIFFValue) -> (type: Int, count: Int, bytes: [UInt8]) {
    switch value {
    case .ascii(let s): return (2, s.utf8.count + 1, Array(s.utf8) + [0])
    case .raw(let type, let b): return (type, b.count, b)
    case .shorts(let v): return (3, v.count, v.flatMap(u16))
    case .longs(let v): return (4, v.count, v.flatMap(u32))
    case .rationals(let v): return (5, v.count, v.flatMap { u32($0.0) + u32($0.1) })
    }
  }
  // Which directories exist, and the pointer entries each gets (targets filled in below).
  let hasExif = !exif.isEmpty || !interop.isEmpty
  var dirs: [[TIFFTag]] = [ifd0, hasExif ? exif : [], interop, gps, ifd1]
  let pointerTags: [(from: Int, tag: Int, to: Int)] = [
    (0, 0x8769, 1), (1, 0xA005, 2), (0, 0x8825, 3),
  ]
  let present = [true, hasExif, !interop.isEmpty, !gps.isEmpty, !ifd1.isEmpty || thumbnail != nil]
  for p in pointerTags where present[p.to] { dirs[p.from].append(TIFFTag(p.tag, .longs([0]))) }
  if thumbnail != nil {
    dirs[4].append(TIFFTag(0x0201, .longs([0])))
    dirs[4].append(TIFFTag(0x0202, .longs([thumbnail!.count])))
  }
  for k in dirs.indices { dirs[k].sort { $0.tag < $1.tag } }
  func size(_ tags: [TIFFTag]) -> Int {
    2 + tags.count * 12 + 4
      + tags.reduce(0) { total, t in
        let n = encoded(t.value).bytes.count
        return total + (n > 4 ? (n + 1) & ~1 : 0)
      }
  }
  var offsets = [Int](repeating: 0, count: 5)
  var at = 8
  for k in 0..<5 where present[k] {
    offsets[k] = at
    at += size(dirs[k])
  }
  let thumbnailAt = at
  var out: [UInt8] = littleEndian ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
  out += u32(8)
  for k in 0..<5 where present[k] {
    precondition(out.count == offsets[k])
    var valueAt = offsets[k] + 2 + dirs[k].count * 12 + 4
    var values: [UInt8] = []
    out += u16(dirs[k].count)
    for t in dirs[k] {
      var (type, count, bytes) = encoded(t.value)
      if let p = pointerTags.first(where: { $0.from == k && $0.tag == t.tag }) { bytes = u32(offsets[p.to]) }
      if k == 4 && t.tag == 0x0201 { bytes = u32(thumbnailAt) }
      if pointerTags.contains(where: { $0.from == k && $0.tag == t.tag }) { (type, count) = (4, 1) }
      out += u16(t.tag) + u16(type) + u32(count)
      if bytes.count <= 4 {
        out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
      } else {
        out += u32(valueAt)
        let padded = bytes + (bytes.count % 2 == 1 ? [0] : [])
        values += padded
        valueAt += padded.count
      }
    }
    out += u32(k == 0 && present[4] ? offsets[4] : 0)
    out += values
  }
  if let thumbnail { out += thumbnail }
  return out + trailing
}

/// The photo full of identifying metadata, and what each part must become when it is stripped.
public enum IdentifyingFixture {
  /// Text that must never appear in a stripped render, whichever part held it.
  public static let secrets = [
    "Alice", "Elm Street", "alices-laptop", "012345678901", "0000c1234a", "DNG-SERIAL", "hidden-serial",
    "8f1c2d3e4f", "Paris", "France", "48.8566", "xmp.did", "+02:00", "maker note",
  ]

  static let model = Array("Canon EOS 5D Mark IV\0hidden-serial-4455\0".utf8)

  public static func ifd0(orientation: Int) -> [TIFFTag] {
    [
      TIFFTag(0x010E, .ascii("Alice and Bob at 12 Elm Street")),
      TIFFTag(0x010F, .ascii("Canon")),
      TIFFTag(0x0110, .raw(type: 2, model)),
      TIFFTag(0x0112, .shorts([orientation])),
      TIFFTag(0x011A, .rationals([(72, 1)])),
      TIFFTag(0x011B, .rationals([(72, 1)])),
      TIFFTag(0x0128, .shorts([2])),
      TIFFTag(0x0131, .ascii("Firmware Version 1.0.4")),
      TIFFTag(0x0132, .ascii("2024:06:01 12:34:56")),
      TIFFTag(0x013B, .ascii("Alice Example")),
      TIFFTag(0x013C, .ascii("alices-laptop")),
      TIFFTag(0x8298, .ascii("Copyright Alice Example")),
      TIFFTag(
        0x9C9D, .raw(type: 1, Array("Alice Example".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
      TIFFTag(0xC62F, .ascii("DNG-SERIAL-998877")),
    ]
  }
  static let keptIFD0: [TIFFTag] = [
    TIFFTag(0x010F, .ascii("Canon")),
    TIFFTag(0x0110, .ascii("Canon EOS 5D Mark IV")),
    TIFFTag(0x0112, .shorts([1])),
    TIFFTag(0x011A, .rationals([(72, 1)])),
    TIFFTag(0x011B, .rationals([(72, 1)])),
    TIFFTag(0x0128, .shorts([2])),
    TIFFTag(0x0131, .ascii("Firmware Version 1.0.4")),
    TIFFTag(0x0132, .ascii("2024:06:01 12:34:56")),
  ]
  public static let exif: [TIFFTag] = [
    TIFFTag(0x829A, .rationals([(1, 125)])),
    TIFFTag(0x829D, .rationals([(28, 10)])),
    TIFFTag(0x8827, .shorts([400])),
    TIFFTag(0x9000, .raw(type: 7, Array("0232".utf8))),
    TIFFTag(0x9003, .ascii("2024:06:01 12:34:56")),
    TIFFTag(0x9011, .ascii("+02:00")),
    TIFFTag(0x920A, .rationals([(50, 1)])),
    TIFFTag(0x927C, .raw(type: 7, Array("Canon maker note: serial 0123456789, owner Alice".utf8))),
    TIFFTag(0x9286, .raw(type: 7, Array("ASCII\0\0\0Taken at 12 Elm Street, Springfield".utf8))),
    TIFFTag(0xA001, .shorts([1])),
    TIFFTag(0xA002, .longs([128])),
    TIFFTag(0xA003, .longs([128])),
    TIFFTag(0xA420, .ascii("8f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e")),
    TIFFTag(0xA430, .ascii("Alice Example")),
    TIFFTag(0xA431, .ascii("012345678901")),
    TIFFTag(0xA432, .rationals([(50, 1), (50, 1), (18, 10), (18, 10)])),
    TIFFTag(0xA433, .ascii("Canon")),
    TIFFTag(0xA434, .ascii("EF50mm f/1.8 STM")),
    TIFFTag(0xA435, .ascii("0000c1234a")),
  ]
  static let keptExif: [TIFFTag] = exif.filter {
    ![0x9011, 0x927C, 0x9286, 0xA420, 0xA430, 0xA431, 0xA435].contains($0.tag)
  }
  static let interop: [TIFFTag] = [
    TIFFTag(0x0001, .ascii("R98")), TIFFTag(0x0002, .raw(type: 7, Array("0100".utf8))),
  ]
  public static let gps: [TIFFTag] = [
    TIFFTag(0x0000, .raw(type: 1, [2, 3, 0, 0])),
    TIFFTag(0x0001, .ascii("N")),
    TIFFTag(0x0002, .rationals([(48, 1), (51, 1), (2436, 100)])),
    TIFFTag(0x0003, .ascii("E")),
    TIFFTag(0x0004, .rationals([(2, 1), (17, 1), (4020, 100)])),
    TIFFTag(0x0005, .raw(type: 1, [0])),
    TIFFTag(0x0006, .rationals([(35, 1)])),
    TIFFTag(0x001D, .ascii("2024:06:01")),
  ]
  /// Stands for a thumbnail: a JPEG's first and last markers around a text.
  public static let thumbnail: [UInt8] =
    [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x1C] + Array("THUMBNAIL OF THE ORIGINAL".utf8)
    + [0, 0xFF, 0xD9]

  /// The EXIF (TIFF structure) with every identifying tag, a thumbnail, and bytes left over by
  /// an editor that no entry points to.
  public static func exifTIFF(littleEndian: Bool, orientation: Int = 1) -> [UInt8] {
    writeTIFF(
      littleEndian: littleEndian, ifd0: ifd0(orientation: orientation), exif: exif, interop: interop,
      gps: gps, ifd1: [TIFFTag(0x0103, .shorts([6]))], thumbnail: thumbnail,
      trailing: Array("old GPS 48.8566 2.3522 left by an editor".utf8))
  }

  /// What `exifTIFF` must become: make, model (cut at its NUL), orientation 1, resolution,
  /// software, date; exposure, dates, lens; the Interoperability IFD. Nothing else.
  public static func strippedEXIF(littleEndian: Bool) -> [UInt8] {
    writeTIFF(littleEndian: littleEndian, ifd0: keptIFD0, exif: keptExif, interop: interop)
  }

  public static let xmp = Array(
    """
    <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
     xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
     xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#" xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
     exif:GPSLatitude="48,51.406N" exif:GPSLongitude="2,17.67E" photoshop:City="Paris" photoshop:Country="France"
     Iptc4xmpCore:Location="12 Elm Street" tiff:Orientation="1" xmpMM:DocumentID="xmp.did:0123abcd">
    <dc:creator><rdf:Seq><rdf:li>Alice Example</rdf:li></rdf:Seq></dc:creator>
    <xmpMM:History><rdf:Seq><rdf:li rdf:parseType="Resource"><stEvt:action>saved</stEvt:action>
    <stEvt:instanceID>xmp.iid:4455</stEvt:instanceID><stEvt:softwareAgent>Editor on alices-laptop</stEvt:softwareAgent>
    </rdf:li></rdf:Seq></xmpMM:History>
    </rdf:Description></rdf:RDF></x:xmpmeta>
    <?xpacket end="w"?>
    """.utf8)

  static func dataset(_ record: UInt8, _ number: UInt8, _ value: [UInt8]) -> [UInt8] {
    [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
  }
  static func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
    dataset(record, number, Array(text.utf8))
  }
  static func resource(_ id: Int, name: String = "", _ data: [UInt8]) -> [UInt8] {
    var out =
      Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(name.utf8.count)] + Array(name.utf8)
    if (1 + name.utf8.count) % 2 == 1 { out.append(0) }
    out += [
      UInt8(data.count >> 24), UInt8(data.count >> 16 & 0xFF), UInt8(data.count >> 8 & 0xFF),
      UInt8(data.count & 0xFF),
    ]
    return out + data + (data.count % 2 == 1 ? [0] : [])
  }
  static let resolutionInfo: [UInt8] = [0, 0x48, 0, 0, 0, 1, 0, 1, 0, 0x48, 0, 0, 0, 1, 0, 1]

  /// Photoshop's resource block (APP13 after "Photoshop 3.0\0"): resolution, IPTC (with a
  /// resource name), a copy of EXIF with a GPS position, a copy of XMP, the IPTC digest.
  public static let photoshop: [UInt8] =
    resource(0x03ED, resolutionInfo)
    + resource(
      0x0404, name: "Alice's caption",
      dataset(1, 90, [0x1B, 0x25, 0x47]) + dataset(2, 0, [0, 4]) + dataset(2, 5, "Picnic with Alice")
        + dataset(2, 25, "Alice Example") + dataset(2, 55, "20240601") + dataset(2, 60, "123456+0200")
        + dataset(2, 80, "Alice Example") + dataset(2, 90, "Paris") + dataset(2, 101, "France")
        + dataset(2, 120, "Alice and Bob at 12 Elm Street"))
    + resource(0x0422, Array("Exif copy: GPS 48.8566 2.3522".utf8))
    + resource(0x0424, Array("<photoshop:City>Paris</photoshop:City>".utf8))
    + resource(0x0425, [UInt8](repeating: 0xAB, count: 16))

  /// What `photoshop` must become: the resolution, and the IPTC character set, record version
  /// and creation date, each resource without a name.
  public static let strippedPhotoshop: [UInt8] =
    resource(0x03ED, resolutionInfo)
    + resource(
      0x0404, dataset(1, 90, [0x1B, 0x25, 0x47]) + dataset(2, 0, [0, 4]) + dataset(2, 55, "20240601"))

  public static let comment = Array("Shot by Alice Example at 12 Elm Street".utf8)

  /// The 560-byte ICC profile of Fixtures/jpeg/xmp_test.jpg (Adobe's sRGB-like profile).
  public static func icc() throws -> [UInt8] {
    let bytes = try fixture("jpeg/xmp_test.jpg")
    let signature = Array("ICC_PROFILE\0".utf8)
    return try require(
      markerSegments(bytes).first { $0.marker == 0xE2 && $0.payload.starts(with: signature) }
        .map { Array($0.payload.dropFirst(signature.count + 2)) })
  }

  /// `#require` without Testing: throws when nil.
  static func require<T>(_ value: T?) throws -> T {
    guard let value else { throw FixtureMissing(path: "an ICC profile in jpeg/xmp_test.jpg") }
    return value
  }

  /// A JPEG segment: marker, length, payload.
  static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
  }

  /// Fixtures/faces/hopper.jpg (128x128, one face, baseline 4:2:0) with this metadata after its
  /// JFIF segment: EXIF (little-endian), XMP, ICC, Photoshop/IPTC, a comment (its own comment
  /// follows).
  public static func jpeg(orientation: Int = 1) throws -> [UInt8] {
    let hopper = try fixture("faces/hopper.jpg")
    let afterAPP0 = 4 + (Int(hopper[4]) << 8 | Int(hopper[5]))
    let metadata =
      segment(0xE1, Array("Exif\0\0".utf8) + exifTIFF(littleEndian: true, orientation: orientation))
      + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp)
      + segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + (try icc()))
      + segment(0xED, Array("Photoshop 3.0\0".utf8) + photoshop)
      + segment(0xFE, comment)
    return Array(hopper[..<afterAPP0]) + metadata + Array(hopper[afterAPP0...])
  }

  /// Fixtures/faces/astronaut.png (512x512, one face) with its iCCP's profile renamed "Alice's
  /// monitor", and a big-endian eXIf, the XMP as an iTXt and an Author tEXt after its IHDR.
  public static func png() throws -> [UInt8] {
    let astronaut = try fixture("faces/astronaut.png")
    var out = Array(astronaut[..<8])
    for chunk in pngChunks(astronaut) {
      var data = chunk.data
      if chunk.type == "iCCP", let nul = data.firstIndex(of: 0) {
        data.replaceSubrange(..<nul, with: Array("Alice's monitor".utf8))
      }
      out += pngChunk(chunk.type, data)
      if chunk.type == "IHDR" {
        out += pngChunk("eXIf", exifTIFF(littleEndian: false))
        out += pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
        out += pngChunk("tEXt", Array("Author\0Alice Example".utf8))
      }
    }
    return out
  }
}

/// A PNG chunk: length, type, data, CRC-32.
public func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
  let typeBytes = Array(type.utf8)
  let n = data.count
  return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + typeBytes + data
    + {
      let c = crc32(typeBytes + data)
      return [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
    }()
}

/// CRC-32 (ISO 3309, as PNG uses it), bit by bit.
public func crc32(_ bytes: [UInt8]) -> UInt32 {
  var c: UInt32 = 0xFFFF_FFFF
  for b in bytes {
    c ^= UInt32(b)
    for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
  }
  return c ^ 0xFFFF_FFFF
}

/// A JPEG's marker segments up to its first scan: (marker, payload).
public func markerSegments(_ bytes: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
  var out: [(UInt8, [UInt8])] = []
  var i = 2
  while i + 4 <= bytes.count, bytes[i] == 0xFF {
    let marker = bytes[i + 1]
    let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
    out.append((marker, Array(bytes[(i + 4)..<min(bytes.count, i + 2 + length)])))
    if marker == 0xDA { break }
    i += 2 + length
  }
  return out
}

/// A PNG's chunks: (type, data).
public func pngChunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
  var out: [(String, [UInt8])] = []
  var i = 8
  while i + 12 <= bytes.count {
    let n = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
    guard i + 12 + n <= bytes.count else { break }
    out.append(
      (String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self), Array(bytes[(i + 8)..<(i + 8 + n)])))
    i += 12 + n
  }
  return out
}

extension Array where Element == UInt8 {
  /// True when `text`'s UTF-8 bytes occur anywhere.
  public func containsText(_ text: String) -> Bool {
    let needle = Array(text.utf8)
    guard !needle.isEmpty, needle.count <= count else { return false }
    return (0...(count - needle.count)).contains { i in
      self[i] == needle[0] && self[i..<(i + needle.count)].elementsEqual(needle)
    }
  }
}
