import PhotoCore
import Testing

@testable import Codecs

/// The format registry: every entry is known by its own signature and extensions, whatever
/// writes it reads back as itself, and the messages list what is registered.
@Suite struct FormatRegistryTests {
  @Test func everyFormatIsKnownByItsBytesAndNames() throws {
    #expect(ImageFormat.allCases == [.jpeg, .png, .heic, .avif, .webp, .tiff])
    #expect(FormatRegistry.readableNames == "JPEG, PNG, HEIC, AVIF, WebP and TIFF")
    #expect(
      FormatRegistry.writableExtensions
        == ".jpg, .jpeg, .png, .heic, .heif, .hif, .avif, .webp, .tif or .tiff")
    let image = noiseImage(width: 9, height: 7)
    for format in ImageFormat.writable {
      let bytes = try ImageCodec.encode(image, as: format)
      #expect(try ImageCodec.format(of: bytes) == format)
      #expect(try ImageCodec.readInfo(bytes).format == format)
      let decoded = try ImageCodec.decode(bytes)
      #expect(decoded.format == format && decoded.image.width == 9 && decoded.image.height == 7)
      for ext in format.codec.extensions {
        #expect(ImageFormat(pathExtension: "dir.jpg/IMG_1.\(ext.uppercased())") == format)
        #expect(UnreadablePhotoFormat.name(of: "x.\(ext)", firstBytes: bytes) == nil)
      }
      #expect(ImageFormat(rawValue: format.rawValue) == format)
      // Every other format's codec says the bytes are not its own.
      for other in ImageFormat.allCases where other != format {
        #expect(other.codec.sniff(bytes) == .none, "\(other) on \(format)")
      }
    }
  }

  /// The store's choices come from the capabilities: which formats keep alpha, which are lossy,
  /// which have the lossless route, which write band by band.
  @Test func capabilities() {
    #expect(ImageFormat.allCases.filter(\.capabilities.alpha) == [.png, .heic, .avif, .webp, .tiff])
    #expect(ImageFormat.allCases.filter(\.capabilities.lossy) == [.jpeg, .heic, .avif, .webp])
    #expect(ImageFormat.allCases.filter(\.capabilities.losslessOption) == [.webp])
    #expect(ImageFormat.allCases.filter(\.capabilities.losslessRoute) == [.jpeg])
    #expect(ImageFormat.allCases.filter(\.capabilities.subsampling) == [.jpeg])
    #expect(ImageFormat.png.codec.writesBands && !ImageFormat.webp.codec.writesBands)
  }
}
