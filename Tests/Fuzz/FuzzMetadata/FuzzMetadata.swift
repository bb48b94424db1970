// libFuzzer target: the metadata walkers on their own. The first byte picks one, the rest is
// its input: JPEG markers up to the first scan and the scan walk (with a round trip of the
// metadata through the segment writer), EXIF, XMP (the XML reader and the allow-list), Photoshop
// resources, a PNG chunk walk with iTXt/zTXt/iCCP inflation (CRCs set right), iCCP and iTXt
// payloads, and the band joiner. Besides not crashing, the documented rules are checked: the
// render's allow-lists are stable (applying them again changes nothing) and leave no image
// signature; an XMP packet they write parses again; the strippers' output is stable, bounded,
// and an EXIF keeps only the listed tags, orientation 1 and no IFD1. audit's readers
// (`*.findings(in:)`) run on every input too, and find no picture in a rendered EXIF. Built by
// `make fuzz` only (see Tests/Fuzz/fuzz.py).
import FuzzSupport

@testable import Codecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 1 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  switch data[0] % 7 {
  case 0:
    let jpeg = [0xFF, 0xD8] + bytes
    _ = ImageCodec.metadataFindings(in: jpeg)
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
    precondition(metadata.rendered(keepingMakerNote: true) == metadata, "allow-lists not stable")
    if let exif = ImageCodec.renderable(metadata, policy: .kept, hidesFaces: true).exif {
      precondition(!hasMakerNote(exif), "a MakerNote in a render that hides faces")
    }
    let stripped = ImageCodec.renderable(metadata, policy: .stripped, hidesFaces: true)
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
    _ = EXIF.findings(in: bytes)
    for keepingMakerNote in [true, false] {
      if let clean = EXIF.rendered(bytes, keepingMakerNote: keepingMakerNote) {
        precondition(clean.count <= bytes.count + 256, "EXIF grew")
        precondition((EXIF.orientation(in: clean) ?? 1) == 1, "orientation not 1")
        precondition(EXIF.rendered(clean, keepingMakerNote: keepingMakerNote) == clean, "EXIF not stable")
        precondition(!EmbeddedImage.isPresent(in: clean), "an image in the EXIF")
        precondition(
          !EXIF.findings(in: clean).contains { $0.kind == .embeddedImage }, "audit finds an image in a rendered EXIF")
      }
    }
    if let stripped = EXIF.withoutIdentifying(bytes) { checkStripped(stripped, from: bytes) }
  case 2:
    _ = XMP.findings(in: bytes)
    if let clean = XMP.sanitized(bytes) {
      precondition(XMLTree(clean) != nil, "XMP written that does not parse")
      precondition(XMP.sanitized(clean) == clean, "XMP not stable")
      precondition(!EmbeddedImage.isPresent(inText: clean), "an image in the XMP")
    }
  case 3:
    _ = PhotoshopResources.findings(in: bytes)
    let rendered = PhotoshopResources.rendered(bytes)
    precondition(rendered.count <= bytes.count, "resources grew")
    precondition(PhotoshopResources.rendered(rendered) == rendered, "rendered resources not stable")
    let stripped = PhotoshopResources.withoutIdentifying(bytes)
    precondition(stripped.count <= bytes.count, "stripped resources grew")
    precondition(PhotoshopResources.withoutIdentifying(stripped) == stripped, "resources not stable")
    let iptc = IPTC.withoutIdentifying(bytes)
    precondition(
      iptc.count <= bytes.count && IPTC.withoutIdentifying(iptc) == iptc, "IPTC grew or not stable")
  case 4:
    let png = (PNGCodec.signature + bytes).withCorrectPNGCRCs()
    _ = PNGCodec.findings(in: png)
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

/// Whether a TIFF structure's Exif IFD has a MakerNote entry.
func hasMakerNote(_ tiff: [UInt8]) -> Bool {
  guard let r = EXIF.Reader(tiff), let ifd0 = r.ifd0, let entries = r.entries(at: ifd0),
    let pointer = entries.first(where: { $0.tag == EXIF.exifPointer }), let at = r.u32(pointer.entry + 8),
    let exif = r.entries(at: at)
  else { return false }
  return exif.contains { $0.tag == EXIF.makerNoteTag }
}

/// What `EXIF.withoutIdentifying` promises of its result: stable, bounded, already sanitized,
/// orientation 1, and in each IFD only the listed tags (and the pointers between them).
func checkStripped(_ stripped: [UInt8], from input: [UInt8]) {
  precondition(stripped.count <= input.count + 256, "stripped EXIF grew")
  precondition(EXIF.withoutIdentifying(stripped) == stripped, "stripped EXIF not stable")
  precondition(EXIF.rendered(stripped, keepingMakerNote: true) == stripped, "stripped EXIF not a render's")
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
