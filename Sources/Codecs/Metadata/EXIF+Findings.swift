/// What an EXIF structure reveals (`photoedit audit`): the tags `--strip-identifying` drops
/// because they identify (EXIF+Identifying.swift's "Dropped" list, docs/codecs.md), named, and
/// the pictures a render never carries (IFD1 and what is chained after it, picture pointers, a
/// MakerNote with a preview, any value with an image signature).
extension EXIF {
  /// IFD0's identifying tags, by name. XMP 0x02BC and IPTC 0x83BB are read for their own
  /// findings.
  static let identifyingInIFD0: [Int: String] = [
    0x010D: "DocumentName", 0x010E: "ImageDescription", 0x013B: "Artist", 0x013C: "HostComputer",
    0x8298: "Copyright", 0x9C9B: "XPTitle", 0x9C9C: "XPComment", 0x9C9D: "XPAuthor", 0x9C9E: "XPKeywords",
    0x9C9F: "XPSubject", 0xC62F: "CameraSerialNumber",
  ]

  /// The Exif IFD's identifying tags, by name.
  static let identifyingInExif: [Int: String] = [
    0x9010: "OffsetTime", 0x9011: "OffsetTimeOriginal", 0x9012: "OffsetTimeDigitized", 0x927C: "MakerNote",
    0x9286: "UserComment", 0x9402: "Pressure", 0x9403: "WaterDepth", 0xA004: "RelatedSoundFile",
    0xA420: "ImageUniqueID", 0xA430: "CameraOwnerName", 0xA431: "BodySerialNumber",
    0xA435: "LensSerialNumber",
    0xA436: "ImageTitle", 0xA437: "Photographer", 0xA438: "ImageEditor",
  ]

  /// The GPS IFD's tags 0x00...0x1F by name. GPSVersionID alone says nothing: it is not a finding.
  static let gpsNames = [
    "GPSVersionID", "GPSLatitudeRef", "GPSLatitude", "GPSLongitudeRef", "GPSLongitude", "GPSAltitudeRef",
    "GPSAltitude", "GPSTimeStamp", "GPSSatellites", "GPSStatus", "GPSMeasureMode", "GPSDOP", "GPSSpeedRef",
    "GPSSpeed", "GPSTrackRef", "GPSTrack", "GPSImgDirectionRef", "GPSImgDirection", "GPSMapDatum",
    "GPSDestLatitudeRef", "GPSDestLatitude", "GPSDestLongitudeRef", "GPSDestLongitude", "GPSDestBearingRef",
    "GPSDestBearing", "GPSDestDistanceRef", "GPSDestDistance", "GPSProcessingMethod", "GPSAreaInformation",
    "GPSDateStamp", "GPSDifferential", "GPSHPositioningError",
  ]

  /// IFD0's pointers to pictures: StripOffsets, SubIFDs (previews), JPEGInterchangeFormat.
  static let picturePointers: [Int: String] = [
    0x0111: "StripOffsets", 0x014A: "SubIFDs", 0x0201: "JPEGInterchangeFormat",
  ]

  /// The findings of a TIFF structure (the bytes after "Exif\0\0"), `container` naming where it
  /// was found. A structure whose IFD0 cannot be read gives only an image it holds.
  ///
  /// With `ownPixels` (a TIFF file, whose IFD0 is its own image): IFD0's StripOffsets are not a
  /// picture besides it, its bytes are not searched for image signatures (compressed strips may
  /// be JPEG), and its Photoshop resources (0x8649) are read for their own findings.
  ///
  /// - Complexity: O(size).
  static func findings(in tiff: [UInt8], container: String = "EXIF", ownPixels: Bool = false)
    -> [MetadataFinding]
  {
    guard let r = Reader(tiff), let ifd0 = r.ifd0, let entries0 = r.entries(at: ifd0) else {
      return !ownPixels && EmbeddedImage.isPresent(in: tiff) ? [.image(container, "image data")] : []
    }
    var out: [MetadataFinding] = []
    /// The value's bytes, when they say something (UserComment's 8-byte character code skipped).
    func value(_ e: (tag: Int, type: Int, count: Int, entry: Int)) -> ArraySlice<UInt8>? {
      guard let range = r.valueRange(type: e.type, count: e.count, entry: e.entry) else { return nil }
      let bytes = tiff[range].dropFirst(e.tag == 0x9286 ? 8 : 0)
      return bytes.saysSomething ? bytes : nil
    }
    func pointer(_ entries: [(tag: Int, type: Int, count: Int, entry: Int)], _ tag: Int) -> Int? {
      guard let e = entries.first(where: { $0.tag == tag }), e.type == 4 || e.type == 13 else { return nil }
      return r.u32(e.entry + 8)
    }
    var images: [MetadataFinding] = []
    for e in entries0 {
      if let name = identifyingInIFD0[e.tag], value(e) != nil { out.append(.tag(container, name)) }
      if let name = picturePointers[e.tag], !(ownPixels && e.tag == 0x0111) {
        images.append(.image(container, "picture (\(name))"))
      }
      if ownPixels, e.tag == 0x8649, let v = value(e) { out += PhotoshopResources.findings(in: Array(v)) }
      if e.tag == 0x02BC, let v = value(e) {
        out += XMP.findings(in: Array(v), container: container + " XMP")
      }
      if e.tag == 0x83BB, let v = value(e) {
        out += IPTC.findings(in: Array(v), container: container + " IPTC")
      }
    }
    if let gps = pointer(entries0, gpsPointer), let entries = r.entries(at: gps) {
      for e in entries where e.tag > 0 && e.tag < gpsNames.count && value(e) != nil {
        out.append(.tag(container, gpsNames[e.tag]))
      }
    }
    if let exif = pointer(entries0, exifPointer), let entries = r.entries(at: exif) {
      for e in entries {
        guard let name = identifyingInExif[e.tag], let v = value(e) else { continue }
        out.append(.tag(container, name))
        if e.tag == makerNoteTag, EmbeddedImage.isPresent(in: v) {
          images.append(.image(container, "MakerNote preview"))
        }
      }
    }
    // IFD1, the thumbnail, linked after IFD0's entries.
    if let n = r.u16(ifd0), let next = r.u32(ifd0 + 2 + n * 12), next != 0,
      r.entries(at: next)?.isEmpty == false
    {
      images.insert(.image(container, "thumbnail (IFD1)"), at: 0)
    }
    if images.isEmpty, !ownPixels, EmbeddedImage.isPresent(in: tiff) {
      images.append(.image(container, "image data"))
    }
    return images + out
  }
}
