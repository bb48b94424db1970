/// EXIF without what identifies a person, a device or a place (`--strip-identifying`).
///
/// The structure is rebuilt as every render's is (`EXIF.rebuilt`), from a shorter list of tags
/// (docs/codecs.md, "Publishing: identifying metadata"): not the GPS IFD, not a maker note, not
/// the names, serial numbers and comments a render otherwise keeps.
extension EXIF {
  /// IFD0's kept tags: the image's structure and colour, the camera's make and model, the
  /// software and the date. Dropped among others: ImageDescription 0x010E, DocumentName 0x010D
  /// (free text), Artist 0x013B, Copyright 0x8298 (names a person), HostComputer 0x013C (a
  /// computer's name), the GPS pointer 0x8825, XPTitle...XPSubject 0x9C9B-0x9C9F (Windows' title,
  /// comment, author, keywords, subject), XMP 0x02BC, IPTC 0x83BB and every private tag. The
  /// orientation 0x0112 is written as 1.
  static let keptInIFD0: [Int: TagRule] = [
    0x0100: shortOrLong, 0x0101: shortOrLong,  // ImageWidth, ImageLength
    0x0102: short, 0x0103: short, 0x0106: short,  // BitsPerSample, Compression, Photometric
    0x010F: ascii, 0x0110: ascii,  // Make, Model
    0x0115: short, 0x011A: rational, 0x011B: rational, 0x011C: short,  // samples, resolution
    0x0128: short, 0x012D: short,  // ResolutionUnit, TransferFunction
    0x0131: ascii, 0x0132: ascii,  // Software, DateTime
    0x013E: rational, 0x013F: rational,  // WhitePoint, PrimaryChromaticities
    0x0211: rational, 0x0212: short, 0x0213: short, 0x0214: rational,  // YCbCr, ReferenceBlackWhite
  ]

  /// The Exif IFD's kept tags: exposure, lens and flash settings, colour, the dates and times of
  /// capture (the local clock time: dates are kept), lens make, model and specification.
  /// Dropped among others: the time-zone offsets OffsetTime* 0x9010-0x9012 (they narrow where the
  /// photo was taken), MakerNote 0x927C, UserComment 0x9286, RelatedSoundFile 0xA004,
  /// ImageUniqueID 0xA420, CameraOwnerName 0xA430, BodySerialNumber 0xA431, LensSerialNumber
  /// 0xA435, EXIF 3.0's ImageTitle, Photographer, ImageEditor and the software names
  /// 0xA436-0xA43C, Pressure 0x9402 and WaterDepth 0x9403 (they give an altitude or depth),
  /// DeviceSettingDescription 0xA40B (a camera's own structure), Microsoft's Padding 0xEA1C and
  /// OffsetSchema 0xEA1D, and every private tag.
  static let keptInExif: [Int: TagRule] = [
    0x829A: rational, 0x829D: rational, 0x8822: short, 0x8824: ascii,  // exposure time, f-number
    0x8827: short, 0x8828: undefined, 0x8830: short,  // ISO, OECF, SensitivityType
    0x8831: long, 0x8832: long, 0x8833: long, 0x8834: long, 0x8835: long,  // ISO variants
    0x9000: TagRule(types: [7], count: 4),  // ExifVersion
    0x9003: ascii, 0x9004: ascii,  // DateTimeOriginal, DateTimeDigitized
    0x9101: TagRule(types: [7], count: 4), 0x9102: rational,  // ComponentsConfiguration, bits
    0x9201: signedRational, 0x9202: rational, 0x9203: signedRational, 0x9204: signedRational,
    0x9205: rational, 0x9206: rational, 0x9207: short, 0x9208: short, 0x9209: short,
    0x920A: rational, 0x9214: short,  // FocalLength, SubjectArea
    0x9290: ascii, 0x9291: ascii, 0x9292: ascii,  // SubSecTime*
    0x9400: signedRational, 0x9401: rational,  // Temperature, Humidity
    0x9404: signedRational, 0x9405: signedRational,  // Acceleration, CameraElevationAngle
    0xA000: TagRule(types: [7], count: 4), 0xA001: short,  // FlashpixVersion, ColorSpace
    0xA002: shortOrLong, 0xA003: shortOrLong,  // PixelXDimension, PixelYDimension
    0xA20B: rational, 0xA20C: undefined, 0xA20E: rational, 0xA20F: rational, 0xA210: short,
    0xA214: short, 0xA215: rational, 0xA217: short,  // SubjectLocation, ExposureIndex, sensing
    0xA300: undefined, 0xA301: undefined, 0xA302: undefined,  // FileSource, SceneType, CFA
    0xA401: short, 0xA402: short, 0xA403: short, 0xA404: rational, 0xA405: short,
    0xA406: short, 0xA407: short, 0xA408: short, 0xA409: short, 0xA40A: short, 0xA40C: short,
    0xA432: rational, 0xA433: ascii, 0xA434: ascii,  // LensSpecification, LensMake, LensModel
    0xA460: short, 0xA461: short, 0xA462: undefined,  // composite image
    0xA500: rational,  // Gamma
  ]

  /// The Interoperability IFD's kept tags. Its tag numbers are the GPS IFD's too, so the
  /// counts are fixed: a GPS IFD pointed at as the Interoperability IFD keeps nothing.
  static let keptInInterop: [Int: TagRule] = [
    0x0001: TagRule(types: [2], count: 4), 0x0002: TagRule(types: [7], count: 4),
    0x1000: ascii, 0x1001: shortOrLong, 0x1002: shortOrLong,
  ]

  /// The tags `--strip-identifying` keeps: `keptInIFD0`, `keptInExif`, `keptInInterop`; no GPS
  /// IFD, no MakerNote.
  static let identifyingRules = Rules(ifd0: keptInIFD0, exif: keptInExif, interop: keptInInterop)

  /// The EXIF without identifying tags: IFD0, the Exif IFD and the Interoperability IFD with
  /// only the tags of `keptInIFD0`, `keptInExif` and `keptInInterop`, rebuilt as `rebuilt`
  /// writes a structure: an orientation of 1, no GPS IFD, no MakerNote and no IFD1 (no
  /// thumbnail).
  ///
  /// - Returns: nil when IFD0 cannot be read or nothing is left to keep: the EXIF is then dropped.
  /// - Complexity: O(n log n) in the entries, plus O(size).
  static func withoutIdentifying(_ tiff: [UInt8]) -> [UInt8]? {
    rebuilt(tiff, keeping: identifyingRules)
  }
}
