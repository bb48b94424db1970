import Codecs
import PhotoCore

/// A decoded photo as the store needs it (Codecs' `DecodedImage`, which tests cannot build).
struct DecodedPhoto: Sendable {
  var image: Image
  var format: ImageFormat
  /// The EXIF orientation the file had; the pixels are already upright.
  var orientation: Int
  var subsampling: ChromaSubsampling?
  var metadata: ImageMetadata
  /// The upright size before any DCT scaling, in pixels.
  var fullWidth: Int, fullHeight: Int
  var warnings: [String]
}

/// The codecs and filters the store renders with, behind one seam so that tests can run the
/// store's file protocol on tiny synthetic formats as well as on real JPEG and PNG.
protocol RenderEngine: Sendable {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(StoreError) -> DecodedPhoto
  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8]
  /// Known filter, version not newer, valid parameters; migrates an older filter version.
  func validate(_ operation: Operation) throws(StoreError) -> Operation
  func render(_ operation: Operation, on image: inout Image, context: FilterContext) throws(StoreError)
  func resolve(_ pending: PendingOperation, for image: Image, context: FilterContext) throws(StoreError)
    -> Operation
  func pending(from operation: Operation) throws(StoreError) -> PendingOperation
  /// The image laid over the recipe's background colour, for a JPEG output of a non-opaque image.
  func flattened(_ image: Image, operations: [Operation]) -> Image
  /// The image scaled down so its longest side is `longestSide` pixels.
  func resampled(_ image: Image, longestSide: Int) -> Image
}

extension StoreError {
  init(_ error: FilterError) {
    switch error {
    case .unknownFilter(let name): self = .unknownFilter(name: name)
    default: self = .filter(error.description)
    }
  }
}

/// The real codecs and filters.
struct LiveEngine: RenderEngine {
  func decode(_ bytes: [UInt8], maxPixels: Int, minimumLongestSide: Int?) throws(StoreError) -> DecodedPhoto {
    var options = DecodeOptions()
    options.maxPixels = maxPixels
    options.minimumLongestSide = minimumLongestSide
    let d: DecodedImage
    do { d = try ImageCodec.decode(bytes, options: options) } catch { throw .codec(error.description) }
    return DecodedPhoto(
      image: d.image, format: d.format, orientation: d.orientation, subsampling: d.subsampling,
      metadata: d.metadata, fullWidth: d.fullWidth, fullHeight: d.fullHeight, warnings: d.warnings)
  }

  func encode(
    _ image: Image, as format: ImageFormat, quality: Int, subsampling: ChromaSubsampling,
    metadata: ImageMetadata
  ) throws(StoreError) -> [UInt8] {
    var options = EncodeOptions()
    options.quality = quality
    options.subsampling = subsampling
    options.metadata = metadata
    do { return try ImageCodec.encode(image, as: format, options: options) } catch {
      throw .codec(error.description)
    }
  }

  func validate(_ operation: Operation) throws(StoreError) -> Operation {
    do { return try Filters.validate(operation) } catch { throw StoreError(error) }
  }

  func render(_ operation: Operation, on image: inout Image, context: FilterContext) throws(StoreError) {
    do { try Filters.render(operation, on: &image, context: context) } catch { throw StoreError(error) }
  }

  func resolve(_ pending: PendingOperation, for image: Image, context: FilterContext) throws(StoreError)
    -> Operation
  {
    do { return try pending.resolve(for: image, context: context) } catch { throw StoreError(error) }
  }

  func pending(from operation: Operation) throws(StoreError) -> PendingOperation {
    do { return try Filters.pending(from: operation) } catch { throw StoreError(error) }
  }

  func flattened(_ image: Image, operations: [Operation]) -> Image {
    Compositing.flattened(image, over: RGBA(255, 255, 255))
  }

  func resampled(_ image: Image, longestSide: Int) -> Image {
    Compositing.areaResampled(image, longestSide: longestSide)
  }
}

/// Interim pixel helpers until the codecs and filters branches provide `Image.flattened(over:)`
/// and `Image.resampled(longestSide:)`.
enum Compositing {
  /// Straight-alpha "over" onto an opaque colour.
  ///
  /// - Complexity: O(width × height).
  static func flattened(_ image: Image, over background: RGBA) -> Image {
    var out = image
    let bg = [Int(background.r), Int(background.g), Int(background.b)]
    out.bytes.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
        let a = Int(p[i + 3])
        for c in 0..<3 { p[i + c] = UInt8((Int(p[i + c]) * a + bg[c] * (255 - a) + 127) / 255) }
        p[i + 3] = 255
        i += 4
      }
    }
    return out
  }

  /// Box-filter (area) downscale so the longest side is `longestSide`; never enlarges.
  ///
  /// - Complexity: O(width × height).
  static func areaResampled(_ image: Image, longestSide: Int) -> Image {
    let longest = max(image.width, image.height)
    guard longestSide < longest, longestSide > 0 else { return image }
    let scale = Double(longestSide) / Double(longest)
    let w = max(1, Int((Double(image.width) * scale).rounded()))
    let h = max(1, Int((Double(image.height) * scale).rounded()))
    var out = [UInt8](repeating: 0, count: w * h * 4)
    for y in 0..<h {
      let y0 = y * image.height / h
      let y1 = max(y0 + 1, (y + 1) * image.height / h)
      for x in 0..<w {
        let x0 = x * image.width / w
        let x1 = max(x0 + 1, (x + 1) * image.width / w)
        var sum = [0, 0, 0, 0]
        for sy in y0..<y1 {
          for sx in x0..<x1 {
            let i = (sy * image.width + sx) * 4
            for c in 0..<4 { sum[c] += Int(image.bytes[i + c]) }
          }
        }
        let n = (y1 - y0) * (x1 - x0)
        for c in 0..<4 { out[(y * w + x) * 4 + c] = UInt8((sum[c] + n / 2) / n) }
      }
    }
    return Image(width: w, height: h, bytes: out)
  }
}
