// libFuzzer target: the metadata walkers on their own. The first byte picks one, the rest is
// its input: JPEG markers up to the first scan and the scan walk (with a round trip of the
// metadata through the segment writer), EXIF, XMP, Photoshop resources, a PNG chunk walk with
// iTXt/iCCP inflation (CRCs set right), iCCP and iTXt payloads, and the band joiner. Besides
// not crashing, the documented size rules are checked: XMP keeps its length, the others never
// grow. The identifying-metadata strippers run on the EXIF, Photoshop and JPEG inputs: their
// output is stable (stripping it again changes nothing), bounded, and an EXIF keeps only the
// listed tags, orientation 1 and no IFD1. Built by `make fuzz` only (see Tests/Fuzz/fuzz.py).
import FuzzSupport

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  switch data[0] % 7 {
  case 0:
    let jpeg = [0xFF, 0xD8] + bytes
    guard let header = try? JPEGMarkers.parseHeader(jpeg, metadata: true) else { return 0 }
    _ = JPEGMarkers.walkScans(jpeg, from: header.firstScanOffset)
    _ = try? JPEGMarkers.checkComplete(jpeg, from: header.firstScanOffset)
    _ = ImageCodec.decodeMemoryEstimate(ImageInfo(jpeg: header))
    let metadata = header.metadata
    // What the writer writes, the reader reads back: every part that fits its segments.
    let frame: [UInt8] = [0xFF, 0xC0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0]
    let scan: [UInt8] = [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0]
    let written = [0xFF, 0xD8] + JPEGMarkers.segments(for: metadata) + frame + scan
    let again = try! JPEGMarkers.parseHeader(written, metadata: true)
    func fits(_ part: [UInt8]?, _ signature: [UInt8]) -> [UInt8]? {
      guard let part, !part.isEmpty, part.count + signature.count + 2 <= 0xFFFF else { return nil }
      return part
    }
    precondition(again.exif == fits(metadata.exif, JPEGMarkers.exifSignature), "EXIF round trip")
    precondition(again.xmp == fits(metadata.xmp, JPEGMarkers.xmpSignature), "XMP round trip")
    precondition(again.photoshop == metadata.photoshop, "Photoshop round trip")
    let profile = metadata.icc.flatMap { $0.isEmpty || ($0.count + 65518) / 65519 > 255 ? nil : $0 }
    precondition(again.icc == profile, "ICC round trip")
    precondition(again.comments == metadata.comments.filter { !$0.isEmpty }, "comments round trip")
    // Stripped, as a render writes it: no XMP, no comment, and what is left reads back.
    let stripped = ImageCodec.renderable(metadata, policy: .stripped)
    precondition(stripped.xmp == nil && stripped.comments.isEmpty, "XMP or comments kept")
    precondition(stripped == metadata.removingIdentifying(), "renderable strips otherwise")
    precondition(stripped.removingIdentifying() == stripped, "stripping not stable")
    let strippedHeader = try! JPEGMarkers.parseHeader(
      [0xFF, 0xD8] + JPEGMarkers.segments(for: stripped) + frame + scan, metadata: true)
    precondition(
      strippedHeader.exif == fits(stripped.exif, JPEGMarkers.exifSignature), "stripped EXIF round trip")
    precondition(strippedHeader.xmp == nil && strippedHeader.comments.isEmpty, "stripped XMP or comments")
  case 1:
    _ = EXIF.orientation(in: bytes)
    if let clean = EXIF.sanitized(bytes) {
      precondition(clean.count <= bytes.count, "EXIF grew")
      precondition((EXIF.orientation(in: clean) ?? 1) == 1, "orientation not 1")
    }
    if let stripped = EXIF.withoutIdentifying(bytes) { checkStripped(stripped, from: bytes) }
  case 2:
    precondition(XMP.withOrientationOne(bytes).count == bytes.count, "XMP changed length")
  case 3:
    precondition(PhotoshopResources.removingThumbnails(bytes).count <= bytes.count, "resources grew")
    let stripped = PhotoshopResources.withoutIdentifying(bytes)
    precondition(stripped.count <= bytes.count, "stripped resources grew")
    precondition(PhotoshopResources.withoutIdentifying(stripped) == stripped, "resources not stable")
    let iptc = IPTC.withoutIdentifying(bytes)
    precondition(
      iptc.count <= bytes.count && IPTC.withoutIdentifying(iptc) == iptc, "IPTC grew or not stable")
  case 4:
    let png = (PNGCodec.signature + bytes).withCorrectPNGCRCs()
    if let s = try? PNGCodec.walk(png, full: true) {
      precondition(s.inflatedBytes <= PNGCodec.maxInflatedBytes, "inflated past the budget")
      _ = ImageCodec.decodeMemoryEstimate(ImageInfo(png: s))
    }
  case 5:
    _ = PNGCodec.profile(fromICCP: bytes)
    _ = PNGCodec.xmp(fromITXt: bytes)
  default:
    // Bands: the first byte of the rest says where the first band ends.
    guard let cut = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    let split = min(Int(cut) * 32, body.count)
    let bands = [Array(body[..<split]), Array(body[split...])]
    _ = JPEGBands.join(bands, height: 16, restartInterval: 4)
  }
  return 0
}

/// What `EXIF.withoutIdentifying` promises of its result: stable, bounded, already sanitized,
/// orientation 1, and in each IFD only the listed tags (and the pointers between them).
func checkStripped(_ stripped: [UInt8], from input: [UInt8]) {
  precondition(stripped.count <= input.count + 256, "stripped EXIF grew")
  precondition(EXIF.withoutIdentifying(stripped) == stripped, "stripped EXIF not stable")
  precondition(EXIF.sanitized(stripped) == stripped, "stripped EXIF has a thumbnail or a tail")
  precondition((EXIF.orientation(in: stripped) ?? 1) == 1, "stripped orientation not 1")
  let r = EXIF.Reader(stripped)!
  func tags(_ offset: Int?) -> [(tag: Int, type: Int, count: Int, entry: Int)] {
    offset.flatMap { r.entries(at: $0) } ?? []
  }
  let ifd0 = tags(r.ifd0)
  precondition(r.u32(r.ifd0! + 2 + ifd0.count * 12) == 0, "stripped EXIF links an IFD1")
  let pointer = { (entries: [(tag: Int, type: Int, count: Int, entry: Int)], tag: Int) -> Int? in
    entries.first { $0.tag == tag }.flatMap { r.u32($0.entry + 8) }
  }
  let exif = tags(pointer(ifd0, EXIF.exifPointer))
  let interop = tags(pointer(exif, EXIF.interopPointer))
  for e in ifd0 {
    precondition(
      EXIF.keptInIFD0[e.tag] != nil || e.tag == EXIF.orientationTag || e.tag == EXIF.exifPointer,
      "IFD0 tag \(e.tag) kept")
  }
  for e in exif {
    precondition(EXIF.keptInExif[e.tag] != nil || e.tag == EXIF.interopPointer, "Exif tag \(e.tag) kept")
  }
  for e in interop { precondition(EXIF.keptInInterop[e.tag] != nil, "Interop tag \(e.tag) kept") }
}
