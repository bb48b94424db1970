import CHEIF
import PhotoCore

/// libheif, the one file where its C names appear (with HEIFDecodeGuard.swift, its decoder
/// plugins): HEIC (HEVC, decoded by libde265, encoded by x265) and AVIF (AV1, decoded by dav1d,
/// encoded by aom). libheif returns every error as a `heif_error` struct (no callback, no
/// longjmp, nothing printed); each becomes a `CodecError`.
enum HEIFLibrary {
  /// What a file's primary image and the items around it say, from its boxes: no pixel decoded.
  struct Primary {
    /// The upright size: libheif's, after the `clap`, `irot` and `imir` transforms.
    var width: Int, height: Int
    /// The coded size's pixels (`ispe`, before `clap` crops it), or the upright size's when
    /// that is larger: what decoding costs.
    var codedPixels: Int
    var hasAlpha: Bool
    /// The bits per sample of the luma and chroma planes (8, 10, 12), or -1 when unknown.
    var lumaBits: Int, chromaBits: Int
    /// The Exif item's TIFF structure (after its 4-byte offset and what it skips), the XMP
    /// (`mime` item of type application/rdf+xml) and the ICC profile (`colr` of type `prof` or
    /// `rICC`).
    var exif: [UInt8]?, xmp: [UInt8]?, icc: [UInt8]?
    /// Pictures in the file besides the primary image's own pixels (and its alpha): each a
    /// description for `photoedit audit`.
    var otherImages: [String] = []
  }

  /// The most bytes one metadata item or profile may hold (a file's Exif, XMP, ICC): 64 MiB.
  static let maxMetadataBytes = 64 << 20

  /// Parses `bytes` with libheif (without copying them: the context lives inside this call),
  /// with its image size limit set to `maxSide` pixels a side, and gives `body` the primary
  /// image's handle and what it says.
  static func withPrimary<R>(
    _ bytes: [UInt8], format: ImageFormat, maxSide: Int,
    _ body: (OpaquePointer, Primary) throws(CodecError) -> R
  ) throws(CodecError) -> R {
    guard let context = heif_context_alloc() else {
      throw .corruptData(format, "libheif could not allocate its context")
    }
    defer { heif_context_free(context) }
    heif_context_set_maximum_image_size_limit(context, Int32(clamping: maxSide))
    // A grid's tiles decoded on this thread, one after another: `HEIFDecodeGuard` holds each
    // decode's allowance for its thread.
    heif_context_set_max_decoding_threads(context, 0)
    let result: Result<R, CodecError> = bytes.withUnsafeBytes { raw in
      do throws(CodecError) {
        try check(
          heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil), format,
          "reading the file")
        var handle: OpaquePointer? = nil
        try check(
          heif_context_get_primary_image_handle(context, &handle), format, "finding the primary image")
        guard let handle else { throw .corruptData(format, "libheif found no primary image") }
        defer { heif_image_handle_release(handle) }
        let primary = try describe(handle, context: context, format: format, bytes: bytes)
        return .success(try body(handle, primary))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// The primary image's size, channels, metadata and the file's other pictures.
  private static func describe(
    _ handle: OpaquePointer, context: OpaquePointer, format: ImageFormat, bytes: [UInt8]
  ) throws(CodecError) -> Primary {
    var (width, height) = (
      Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle))
    )
    let (codedWidth, codedHeight) = (
      max(0, Int(heif_image_handle_get_ispe_width(handle))),
      max(0, Int(heif_image_handle_get_ispe_height(handle)))
    )
    // libheif 1.15 turns the size by a quarter-turn `irot` only when the property is associated
    // after `ispe`; Canon's cameras associate it first (the decoded image is turned all the same).
    if width == codedWidth, height == codedHeight, width != height, HEIFItems.primaryRotation(bytes) & 1 == 1
    {
      swap(&width, &height)
    }
    let coded = saturating(codedWidth, codedHeight)
    var primary = Primary(
      width: width, height: height, codedPixels: max(coded, saturating(max(width, 0), max(height, 0))),
      hasAlpha: heif_image_handle_has_alpha_channel(handle) != 0,
      lumaBits: Int(heif_image_handle_get_luma_bits_per_pixel(handle)),
      chromaBits: Int(heif_image_handle_get_chroma_bits_per_pixel(handle)))
    guard primary.width > 0, primary.height > 0 else {
      throw .corruptData(format, "the primary image has no size (\(primary.width)x\(primary.height))")
    }
    // The Exif item: a 4-byte big-endian offset from its end to the TIFF header ("Exif\0\0"
    // usually lies between).
    if let block = try metadataBlocks(handle, type: "Exif", format: format).first, block.count >= 4 {
      let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
      if offset <= block.count - 4 - 8 {
        var tiff = Array(block[(4 + offset)...])
        if tiff.starts(with: "Exif\0\0".utf8) { tiff.removeFirst(6) }
        primary.exif = tiff
      }
    }
    for id in metadataIDs(handle, type: "mime") {
      guard let type = heif_image_handle_get_metadata_content_type(handle, id),
        String(cString: type) == "application/rdf+xml"
      else { continue }
      primary.xmp = try metadata(handle, id: id, format: format)
      break
    }
    let profile = heif_image_handle_get_color_profile_type(handle)
    if profile == heif_color_profile_type_prof || profile == heif_color_profile_type_rICC {
      let size = heif_image_handle_get_raw_color_profile_size(handle)
      if size > 0 && size <= maxMetadataBytes {
        var icc = [UInt8](repeating: 0, count: size)
        let read = icc.withUnsafeMutableBytes {
          heif_image_handle_get_raw_color_profile(handle, $0.baseAddress)
        }
        if read.code == heif_error_Ok { primary.icc = icc }
      }
    }
    let thumbnails = Int(heif_image_handle_get_number_of_thumbnails(handle))
    if thumbnails > 0 { primary.otherImages.append("thumbnail (thmb)") }
    if heif_image_handle_get_number_of_depth_images(handle) > 0 { primary.otherImages.append("depth map") }
    // Auxiliary images besides alpha and depth (LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | _DEPTH).
    if heif_image_handle_get_number_of_auxiliary_images(handle, 2 | 4) > 0 {
      primary.otherImages.append("auxiliary image (auxl)")
    }
    if heif_context_get_number_of_top_level_images(context) > 1 {
      primary.otherImages.append("other top-level images")
    }
    return primary
  }

  /// The IDs of the handle's metadata items of `type` ("Exif", "mime").
  private static func metadataIDs(_ handle: OpaquePointer, type: String) -> [heif_item_id] {
    let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
    guard count > 0 else { return [] }
    var ids = [heif_item_id](repeating: 0, count: count)
    let filled = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
    return Array(ids.prefix(max(0, min(filled, count))))
  }

  /// Every metadata item of `type`, in file order.
  private static func metadataBlocks(_ handle: OpaquePointer, type: String, format: ImageFormat)
    throws(CodecError) -> [[UInt8]]
  {
    var blocks: [[UInt8]] = []
    for id in metadataIDs(handle, type: type) { blocks.append(try metadata(handle, id: id, format: format)) }
    return blocks
  }

  /// One metadata item's bytes, at most `maxMetadataBytes`.
  private static func metadata(_ handle: OpaquePointer, id: heif_item_id, format: ImageFormat)
    throws(CodecError) -> [UInt8]
  {
    let size = heif_image_handle_get_metadata_size(handle, id)
    guard size <= maxMetadataBytes else {
      throw .corruptData(
        format, "a metadata item of \(size) bytes, more than the \(maxMetadataBytes) allowed")
    }
    var data = [UInt8](repeating: 0, count: size)
    try check(
      data.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }, format,
      "reading a metadata item")
    return data
  }

  /// Decodes the primary image into `destination` (width × height × 4 bytes, RGBA, rows
  /// packed): libheif applies `clap`, `irot` and `imir` (the transforms rule, not an EXIF
  /// orientation), takes 10- and 12-bit samples to 8 bits, gives alpha from the alpha image or
  /// 255, and grid images whole.
  /// `allowance` bounds the decoders' picture memory (`HEIFDecodeGuard`).
  static func decodeRGBA(
    _ handle: OpaquePointer, format: ImageFormat, width: Int, height: Int, allowance: Int,
    into destination: UnsafeMutableBufferPointer<UInt8>
  ) throws(CodecError) -> (width: Int, height: Int) {
    guard let options = heif_decoding_options_alloc() else {
      throw .corruptData(format, "libheif could not allocate its decoding options")
    }
    defer { heif_decoding_options_free(options) }
    options.pointee.ignore_transformations = 0
    options.pointee.convert_hdr_to_8bit = 1
    var decoded: OpaquePointer? = nil
    try HEIFDecodeGuard.decoding(allowance: allowance) { () throws(CodecError) in
      try check(
        heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
        format,
        "decoding")
    }
    guard let decoded else { throw .corruptData(format, "libheif decoded no image") }
    defer { heif_image_release(decoded) }
    let (gotWidth, gotHeight) = (
      Int(heif_image_get_width(decoded, heif_channel_interleaved)),
      Int(heif_image_get_height(decoded, heif_channel_interleaved))
    )
    // Turned when libheif's header size missed a quarter-turn (`describe`): the same pixels.
    guard (gotWidth, gotHeight) == (width, height) || (gotWidth, gotHeight) == (height, width) else {
      throw .corruptData(
        format, "the decoded image is \(gotWidth)x\(gotHeight), its header says \(width)x\(height)")
    }
    let (width, height) = (gotWidth, gotHeight)
    guard heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved) == 8 else {
      throw .unsupported("libheif did not give this \(format.displayName) 8 bits a sample")
    }
    var stride: Int32 = 0
    guard let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride),
      Int(stride) >= width * 4
    else { throw .corruptData(format, "libheif gave no pixels") }
    let rowBytes = width * 4
    for y in 0..<height {
      (destination.baseAddress! + y * rowBytes).update(from: plane + y * Int(stride), count: rowBytes)
    }
    return (width, height)
  }

  /// A HEIC (x265) or AVIF (aom) file of `image` holding only it: lossy at `quality` (1...100)
  /// with 4:2:0 chroma; an alpha image when
  /// `image` is not opaque; `metadata`'s ICC profile in a `colr` box, its EXIF in an Exif item
  /// (offset 0) and its XMP in a `mime` item. Never a thumbnail.
  static func encode(
    _ image: Image, format: ImageFormat, quality: Int, settings: [(String, String)],
    metadata: ImageMetadata
  ) throws(CodecError) -> [UInt8] {
    guard let context = heif_context_alloc() else {
      throw .encodingFailed(format, "libheif could not allocate its context")
    }
    defer { heif_context_free(context) }
    let opaque = image.isOpaque
    var picture: OpaquePointer? = nil
    try encoding(
      heif_image_create(
        Int32(image.width), Int32(image.height), heif_colorspace_RGB,
        opaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &picture), format)
    guard let picture else { throw .encodingFailed(format, "libheif made no image") }
    defer { heif_image_release(picture) }
    try encoding(
      heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8),
      format)
    var stride: Int32 = 0
    guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else {
      throw .encodingFailed(format, "libheif gave no plane to fill")
    }
    image.bytes.withUnsafeBufferPointer { source in
      let channels = opaque ? 3 : 4
      for y in 0..<image.height {
        let row = plane + y * Int(stride)
        let from = source.baseAddress! + y * image.width * 4
        if opaque {
          for x in 0..<image.width {
            row[x * 3] = from[x * 4]
            row[x * 3 + 1] = from[x * 4 + 1]
            row[x * 3 + 2] = from[x * 4 + 2]
          }
        } else {
          row.update(from: from, count: image.width * channels)
        }
      }
    }
    if let icc = metadata.icc, !icc.isEmpty {
      try encoding(
        icc.withUnsafeBytes { heif_image_set_raw_color_profile(picture, "prof", $0.baseAddress, $0.count) },
        format)
    }

    var encoder: OpaquePointer? = nil
    try encoding(
      heif_context_get_encoder_for_format(
        context, format == .avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder), format)
    guard let encoder else { throw .encodingFailed(format, "libheif has no encoder for it") }
    defer { heif_encoder_release(encoder) }
    try encoding(heif_encoder_set_lossy_quality(encoder, Int32(quality)), format)
    try encoding(heif_encoder_set_parameter(encoder, "chroma", "420"), format)
    for (name, value) in settings { try encoding(heif_encoder_set_parameter(encoder, name, value), format) }

    guard let options = heif_encoding_options_alloc() else {
      throw .encodingFailed(format, "libheif could not allocate its encoding options")
    }
    defer { heif_encoding_options_free(options) }
    options.pointee.save_alpha_channel = 1
    var handle: OpaquePointer? = nil
    try encoding(heif_context_encode_image(context, picture, encoder, options, &handle), format)
    guard let handle else { throw .encodingFailed(format, "libheif encoded no image") }
    defer { heif_image_handle_release(handle) }
    if let exif = metadata.exif, !exif.isEmpty {
      try encoding(
        exif.withUnsafeBytes {
          heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32(clamping: $0.count))
        },
        format)
    }
    if let xmp = metadata.xmp, !xmp.isEmpty {
      try encoding(
        xmp.withUnsafeBytes {
          heif_context_add_XMP_metadata(context, handle, $0.baseAddress, Int32(clamping: $0.count))
        },
        format)
    }
    let output = Output()
    var writer = heif_writer(
      writer_api_version: 1,
      write: { _, data, size, userdata in
        let output = Unmanaged<Output>.fromOpaque(userdata!).takeUnretainedValue()
        if let data, size > 0 {
          output.bytes += UnsafeRawBufferPointer(start: data, count: size)
        }
        return heif_error(
          code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: HEIFLibrary.success)
      })
    try encoding(heif_context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), format)
    withExtendedLifetime(output) {}
    return output.bytes
  }

  /// Where `heif_context_write` puts the file.
  private final class Output { var bytes: [UInt8] = [] }

  /// The message of a success, a C string for libheif.
  private static var success: UnsafePointer<CChar> {
    UnsafeRawPointer(StaticString("Success").utf8Start).assumingMemoryBound(to: CChar.self)
  }

  /// Throws the `CodecError` a libheif error means when reading (`doing` says what failed).
  private static func check(_ error: heif_error, _ format: ImageFormat, _ doing: String) throws(CodecError) {
    guard error.code != heif_error_Ok else { return }
    let message = error.message.map { String(cString: $0) } ?? "no message"
    switch (error.code, error.subcode) {
    case (_, heif_suberror_End_of_data): throw .truncated(format)
    case (_, heif_suberror_Security_limit_exceeded):
      throw .corruptData(format, "libheif refused it \(doing): \(message)")
    case (heif_error_Unsupported_feature, _), (heif_error_Unsupported_filetype, _):
      throw .unsupported("\(format.displayName): \(message)")
    default:
      throw .corruptData(format, "libheif found it damaged \(doing): \(message)")
    }
  }

  /// Throws `.encodingFailed` with libheif's message.
  private static func encoding(_ error: heif_error, _ format: ImageFormat) throws(CodecError) {
    guard error.code != heif_error_Ok else { return }
    let message = error.message.map { String(cString: $0) } ?? "no message"
    throw .encodingFailed(format, "libheif: \(message)")
  }
}
