/// How much of a photo's metadata its renders carry.
public enum MetadataPolicy: String, Sendable, CaseIterable, Codable {
  /// Everything photoedit carries (EXIF, ICC, XMP, IPTC, comments; never a thumbnail, and
  /// orientation 1): the default.
  case kept
  /// Without identifying metadata (`ImageMetadata.removingIdentifying()`): for publishing.
  case stripped
}

extension ImageMetadata {
  /// The metadata without what identifies a person, a device or a place, for a photo that is
  /// published (docs/codecs.md, "Publishing: identifying metadata", lists every rule):
  ///
  /// - EXIF: rebuilt with a list of kept tags (`EXIF.withoutIdentifying`): the camera's make
  ///   and model, the lens's make, model and specification, the exposure, the dates; no GPS IFD,
  ///   maker note, serial numbers, owner, artist, copyright, comments, unique ID, time-zone
  ///   offsets, Windows XP tags or private tags; orientation 1, no thumbnail.
  /// - XMP: dropped whole. XMP is open-ended RDF: any namespace, under any prefix, can hold a
  ///   name, a place, people's names on face regions (`mwg-rs:Regions`,
  ///   `Iptc4xmpExt:PersonInImage`), an edit history, or a copy of the original picture
  ///   (`GImage:Data`); removing known properties from it without an XML parser that resolves
  ///   namespaces would leave what it does not know.
  /// - Photoshop APP13: its IPTC records filtered (`IPTC.withoutIdentifying`: codes, dates,
  ///   versions) and its ResolutionInfo; every other resource dropped (copies of EXIF and XMP,
  ///   URLs, names, thumbnails).
  /// - JPEG comments: dropped (free text).
  /// - The ICC profile: kept byte for byte. A PNG's `iCCP` chunk is made again from it, so its
  ///   profile name (free text) is photoedit's own; `gAMA`, `cHRM` and `sRGB` are kept.
  ///
  /// Applying it twice gives what applying it once gives.
  public func removingIdentifying() -> ImageMetadata {
    var out = ImageMetadata()
    out.exif = exif.flatMap(EXIF.withoutIdentifying)
    out.icc = icc
    out.xmp = nil
    out.photoshop = photoshop.map(PhotoshopResources.withoutIdentifying).flatMap { $0.isEmpty ? nil : $0 }
    out.comments = []
    out.pngChunks = pngChunks.filter { PNGCodec.colourChunkTypes.contains($0.type) && $0.type != "iCCP" }
    return out
  }
}
