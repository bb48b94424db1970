extension ImageMetadata {
  /// The metadata a render may carry: what photoedit understands and knows holds no pixels
  /// (docs/codecs.md, "Metadata"). Decoding applies it (with the MakerNote), and so does every
  /// encode (`ImageCodec.renderable`); applying it twice gives what applying it once gives.
  ///
  /// - EXIF: rebuilt from IFD0, the Exif, GPS and Interoperability IFDs with only the standard
  ///   tags of `EXIF.renderRules` (`EXIF.rendered`): no IFD1 or chained IFD, no picture pointer,
  ///   no private tag, no unreferenced byte; orientation 1. The MakerNote only when
  ///   `keepingMakerNote` (a render that hides faces does not keep it).
  /// - XMP: the properties of known namespaces whose values are text, arrays and structures of
  ///   text, in a fresh packet (`XMP.sanitized`); no thumbnail, no base64 image; dropped whole
  ///   when it cannot be parsed.
  /// - Photoshop APP13: ResolutionInfo, IPTC (records 1 and 2 without the preview), the
  ///   copyright flag and URL (`PhotoshopResources.rendered`).
  /// - Comments: kept, but one holding an image (or long base64) is dropped.
  /// - ICC: kept byte for byte; a PNG's colour chunks (gAMA, cHRM, sRGB, iCCP) too.
  ///
  /// Any value that holds an image anyway (`EmbeddedImage`) is dropped.
  public func rendered(keepingMakerNote: Bool) -> ImageMetadata {
    var out = ImageMetadata()
    out.exif = exif.flatMap { EXIF.rendered($0, keepingMakerNote: keepingMakerNote) }
    out.icc = icc
    out.xmp = xmp.flatMap(XMP.sanitized)
    out.photoshop = photoshop.map(PhotoshopResources.rendered).flatMap { $0.isEmpty ? nil : $0 }
    out.comments = comments.filter { !EmbeddedImage.isPresent(inText: $0) }
    out.pngChunks = pngChunks.filter { PNGCodec.colourChunkTypes.contains($0.type) }
    return out
  }
}
