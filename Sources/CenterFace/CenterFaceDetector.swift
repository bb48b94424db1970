import PhotoCore

/// CenterFace as photoedit's face detector: a pyramid of searches, so that every face size from
/// the smallest the network sees at full size to the whole photo has a scale where the network
/// sees it well.
///
/// The network finds faces from about 20 to about 2 × `tileMargin` (256) pixels of its input
/// well; larger ones with less context (docs/centerface.md: at full size it misses five large
/// faces of the upscaled set that half size finds). So the search runs at full size, then at
/// 1/4, 1/16, ... while the faces the previous scale sees well are smaller than the photo's
/// short side (a 24 MP photo: 1, 1/4 and 1/16, about 1.07 times the work of full size alone),
/// and merges the scales' faces by non-maximum suppression (IoU 0.3, best score first), as
/// CenterFace merges its own candidates. A coarser scale's faces smaller than ``smallestSeen``
/// pixels of its input are dropped: the finer scale sees them well.
///
/// `minFace` (detect's `--min-face`) is an explicit choice of a coarser first scale: a face of
/// at least `minFace` pixels is still 40 pixels or more of the network's input at the first
/// scale, twice the smallest it finds. `minFace` and `maxFace` also drop faces outside them.
public struct CenterFaceDetector: FaceDetector {
  public let model: CenterFaceModel
  public let identity: DetectorIdentity
  /// The model's file, named when the model is refused for a photo ("" when not known).
  public let path: String
  /// Tiling, overlap and threshold defaults; `threshold` and `inputScale` are set per search.
  public var base = CenterFaceOptions()

  /// The smallest face, in pixels of the network's input, that the first scale must still show a
  /// face of `minFace` at.
  public static let smallestInput = 40.0
  /// How much smaller each coarser scale is (side ratio).
  public static let scaleStep = 4.0
  /// The smallest face, in pixels of the network's input, that a coarser scale reports. Below it
  /// the network's finds are mostly false (blurred texture in enlarged photos: docs/centerface.md,
  /// "What photoedit runs"), and the finer scale sees such a face at `scaleStep` times the size.
  public static let smallestSeen = Double(DetectorKind.centerface.smallestFace)

  /// - Parameters:
  ///   - checksum: the model file's SHA-256, for the identity.
  ///   - path: the model's file, for messages.
  public init(model: CenterFaceModel, checksum: String, path: String = "") {
    self.model = model
    self.path = path
    identity = DetectorIdentity(name: "centerface", version: 1, model: checksum)
  }

  /// The input scales searched for an image of `width` × `height` with these options, finest
  /// first.
  public func scales(width: Int, height: Int, options: DetectionOptions) -> [Double] {
    var scale = 1.0
    if let minFace = options.minFace {
      while scale / Self.scaleStep * Double(minFace) >= Self.smallestInput { scale /= Self.scaleStep }
    }
    var out = [scale]
    let wellSeen = 2.0 * Double(base.tileMargin)
    let largest = Double(min(options.maxFace ?? Int.max, min(width, height)))
    // Each coarser scale sees faces up to `wellSeen / scale` pixels of the photo well.
    while wellSeen / out.last! < largest, out.last! / Self.scaleStep * Double(max(width, height)) >= 32 {
      out.append(out.last! / Self.scaleStep)
    }
    return out
  }

  /// Each tile's margin (`base.tileMargin`) at the coarsest scale of the image's pyramid that
  /// reports a face of `side` pixels, in pixels of the image; the grid is the network's stride
  /// (32 pixels of its input) at that scale, in pixels of the image: a crop whose corner is on it
  /// is cut into strides as the whole image is, so the network sees a face there as it sees it in
  /// the whole image (a crop 24 pixels off scored one pixelated face 0.41 where the whole image
  /// scores 0.50).
  public func cropContext(faceSide side: Double, imageSize: ImageSize, options: DetectionOptions) -> (
    margin: Int, grid: Int
  ) {
    let all = scales(width: imageSize.width, height: imageSize.height, options: options)
    var coarsest = all[0]
    for s in all.dropFirst() where side * s >= Self.smallestSeen { coarsest = min(coarsest, s) }
    return context(atScale: coarsest)
  }

  /// What a tile at input scale `scale` reads around the cells it owns (`base.tileMargin`), and
  /// the network's stride (32 pixels of its input), in pixels of the image.
  func context(atScale scale: Double) -> (margin: Int, grid: Int) {
    (Int((Double(base.tileMargin) / scale).rounded(.up)), max(32, Int((32 / scale).rounded())))
  }

  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    try search(PatchedImage(image), options: options) { _ in nil }
  }

  /// At each scale, only `focus` grown by the scale's tile margin (``cropContext``'s margin, in
  /// pixels of `image`) and at least `margin`, its corner on the scale's grid (32 pixels of the
  /// scale's input): the context each of the scale's own tiles reads around the cells it owns.
  /// The scales are those of the whole image, and at the coarsest the region is usually all of
  /// it; at full size, a face's circle and its tiles' margin are a fraction of a crop grown by a
  /// coarser scale's margin.
  /// `image` is read as each scale resamples it, never copied.
  public func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
    throws(DetectionError) -> [Face]
  {
    let all = PixelRect(ImageSize(image.width, image.height))
    return try search(image, options: options, maxTilePixels: Self.focusedTilePixels) { scale in
      let tile = context(atScale: scale)
      let grown = max(margin, tile.margin)
      return focus.grown(dx: grown, dy: grown).intersection(all).cornerOnGrid(tile.grid)
    }
  }

  /// The largest tile of a focused search, in pixels of its scale's input: smaller than a whole
  /// photo's (`CenterFaceOptions.maxTilePixels`), so that a large face's check, whose region at
  /// full size can pass 4,000,000 pixels, holds no more than a photo's detection did (about
  /// 22 bytes a pixel of a tile).
  static let focusedTilePixels = 3_000_000

  /// The pyramid's search of `image`, each scale over `region(scale)` of it (nil: all of it;
  /// empty: nothing), in tiles of at most `maxTilePixels` (nil: the model's options').
  private func search(
    _ image: PatchedImage, options: DetectionOptions, maxTilePixels: Int? = nil,
    region: (Double) -> PixelRect?
  ) throws(DetectionError) -> [Face] {
    var found: [CenterFaceDetection] = []
    for (k, scale) in scales(width: image.width, height: image.height, options: options).enumerated() {
      var o = base
      o.threshold = Float(options.threshold)
      o.inputScale = scale
      if let maxTilePixels { o.maxTilePixels = min(o.maxTilePixels, maxTilePixels) }
      let part = region(scale) ?? PixelRect(ImageSize(image.width, image.height))
      guard !part.isEmpty else { continue }
      var here: [CenterFaceDetection]
      do {
        here = try model.faces(in: image.window(part), options: o)
      } catch { throw error.naming(model: path) }
      if part.x != 0 || part.y != 0 {
        here = here.map { d in
          var d = d
          (d.x, d.y) = (d.x + Double(part.x), d.y + Double(part.y))
          d.landmarks = d.landmarks.map {
            CenterFacePoint(x: $0.x + Double(part.x), y: $0.y + Double(part.y))
          }
          return d
        }
      }
      // A coarser scale keeps only faces the network can see there: a smaller one is at least
      // `scaleStep` × `smallestSeen` pixels of the finer scale's input, where it is seen well.
      found += k == 0 ? here : here.filter { max($0.width, $0.height) * scale >= Self.smallestSeen }
    }
    guard let kept = Self.suppress(found, iou: Double(base.nmsIoU)) else {
      throw .overlapRemovalTooLong(model: path, limit: OverlapRemoval.workLimit)
    }
    let lo = Double(options.minFace ?? 0)
    let hi = Double(options.maxFace ?? Int.max)
    return kept.filter { max($0.width, $0.height) >= lo && max($0.width, $0.height) <= hi }.map { d in
      Face(
        x: d.x, y: d.y, width: d.width, height: d.height, score: Double(d.score),
        landmarks: d.landmarks.map { FacePoint(x: $0.x, y: $0.y) })
    }.inReadingOrder
  }

  /// Greedy non-maximum suppression across scales: by descending score (ties by position), a
  /// face overlapping a kept one by `iou` or more is dropped. Nil when the removal passed its
  /// bound (see `OverlapRemoval`).
  static func suppress(_ faces: [CenterFaceDetection], iou: Double) -> [CenterFaceDetection]? {
    let ordered = faces.indices.sorted {
      let (a, b) = (faces[$0], faces[$1])
      return (a.score, -a.y, -a.x, -a.width) > (b.score, -b.y, -b.x, -b.width)
    }.map { faces[$0] }
    let bounds = ordered.map { ($0.x, $0.y, $0.x + $0.width, $0.y + $0.height) }
    let kept = OverlapRemoval.kept(bounds, iou: iou) {
      let (f, k) = (ordered[$0], ordered[$1])
      let w = min(f.x + f.width, k.x + k.width) - max(f.x, k.x)
      let h = min(f.y + f.height, k.y + k.height) - max(f.y, k.y)
      guard w > 0, h > 0 else { return false }
      return w * h / (f.width * f.height + k.width * k.height - w * h) >= iou
    }
    return kept?.map { ordered[$0] }
  }
}
