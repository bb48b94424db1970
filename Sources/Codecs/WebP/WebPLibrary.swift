import CWebP
import PhotoCore

/// libwebp, the one file where its C names appear. libwebp reports errors by return values only
/// (no callback, no longjmp, nothing printed), so every call here returns to Swift.
enum WebPLibrary {
  /// What libwebp's header parse says of a file (`WebPGetFeatures`).
  struct Features {
    var width: Int, height: Int
    var hasAlpha: Bool
    var animated: Bool
    /// The bitstream is VP8L (lossless).
    var lossless: Bool
  }

  /// The features of a WebP file, from its headers; no pixel is decoded.
  static func features(_ bytes: [UInt8]) throws(CodecError) -> Features {
    var features = WebPBitstreamFeatures()
    let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
    guard status == VP8_STATUS_OK else { throw error(status, while: "reading the header") }
    return Features(
      width: Int(features.width), height: Int(features.height), hasAlpha: features.has_alpha != 0,
      animated: features.has_animation != 0, lossless: features.format == 2)
  }

  /// Decodes the whole file into `destination` (width × height × 4 bytes, RGBA, rows packed):
  /// libwebp writes straight into it, with no frame of its own.
  static func decodeRGBA(
    _ bytes: [UInt8], width: Int, height: Int, into destination: UnsafeMutableBufferPointer<UInt8>
  ) throws(CodecError) {
    var config = WebPDecoderConfig()
    guard WebPInitDecoderConfig(&config) != 0 else {
      throw .unsupported("this libwebp's decoder is not the version photoedit was built with")
    }
    config.output.colorspace = MODE_RGBA
    config.output.is_external_memory = 1
    config.output.width = Int32(width)
    config.output.height = Int32(height)
    config.output.u.RGBA.rgba = destination.baseAddress
    config.output.u.RGBA.stride = Int32(width * 4)
    config.output.u.RGBA.size = destination.count
    let status = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
    // External memory: this frees nothing of ours, only what libwebp may hold besides.
    WebPFreeDecBuffer(&config.output)
    guard status == VP8_STATUS_OK else { throw error(status, while: "decoding") }
  }

  /// The error a libwebp status means.
  static func error(_ status: VP8StatusCode, while doing: String) -> CodecError {
    switch status {
    case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(.webp)
    case VP8_STATUS_OUT_OF_MEMORY: .corruptData(.webp, "libwebp ran out of memory \(doing)")
    case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupported("a WebP feature libwebp does not decode")
    default: .corruptData(.webp, "libwebp found the bitstream damaged \(doing) (status \(status.rawValue))")
    }
  }

  /// A simple-format WebP file (RIFF with one VP8, VP8L, or VP8X+ALPH+VP8 image) of `image`:
  /// lossless, or lossy at `quality` (1...100), with libwebp's default preset and method 4 as its
  /// simple API (`WebPEncodeRGBA`) uses them, but lossless keeps the exact colour of fully
  /// transparent pixels (`exact`) as PNG does. Opaque images are encoded as RGB.
  static func encode(_ image: Image, lossless: Bool, quality: Int) throws(CodecError) -> [UInt8] {
    var config = WebPConfig()
    var picture = WebPPicture()
    guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, lossless ? 70 : Float(quality)) != 0,
      WebPPictureInit(&picture) != 0
    else {
      throw .encodingFailed(.webp, "this libwebp's encoder is not the version photoedit was built with")
    }
    config.lossless = lossless ? 1 : 0
    config.exact = lossless ? 1 : 0
    picture.use_argb = lossless ? 1 : 0
    picture.width = Int32(image.width)
    picture.height = Int32(image.height)
    var writer = WebPMemoryWriter()
    WebPMemoryWriterInit(&writer)
    defer { WebPMemoryWriterClear(&writer) }
    let opaque = image.isOpaque
    let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer -> Bool in
      picture.writer = WebPMemoryWrite
      picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
      defer { WebPPictureFree(&picture) }
      let imported: Int32
      if opaque {
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        image.bytes.withUnsafeBufferPointer { src in
          for i in 0..<(image.width * image.height) {
            rgb[i * 3] = src[i * 4]
            rgb[i * 3 + 1] = src[i * 4 + 1]
            rgb[i * 3 + 2] = src[i * 4 + 2]
          }
        }
        imported = rgb.withUnsafeBufferPointer {
          WebPPictureImportRGB(&picture, $0.baseAddress, Int32(image.width * 3))
        }
      } else {
        imported = image.bytes.withUnsafeBufferPointer {
          WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(image.width * 4))
        }
      }
      return imported != 0 && WebPEncode(&config, &picture) != 0
    }
    guard encoded, writer.size > 0, let memory = writer.mem else {
      throw .encodingFailed(
        .webp,
        "libwebp could not encode \(image.width)x\(image.height) pixels (error \(picture.error_code.rawValue))"
      )
    }
    return Array(UnsafeBufferPointer(start: memory, count: writer.size))
  }
}
