import Codecs
import PhotoCore
import Recipe

/// A display-size JPEG of one stage of a photo: the original, the image entering a step, or the
/// render.
public struct PreviewImage: Sendable, Equatable {
  /// The JPEG's bytes: quality `PreviewImage.quality`, 4:2:0, no metadata (no EXIF, no GPS).
  public var jpeg: [UInt8]
  /// The preview's size in pixels.
  public var width: Int, height: Int
  /// Full-size pixels per preview pixel: the image at full size is about `width * scale` wide.
  public var scale: Double

  /// The JPEG quality of every preview.
  public static let quality = 82
}

/// What `EditStore.preview` read and made of one photo, in one pass.
public struct PhotoPreview: Sendable {
  /// The photo's state and recipe, as `status` and `show` report them.
  public var status: PhotoStatus
  /// The render: the original with every step, made as `render --max-size` makes it; for a
  /// photo whose recipe cannot be used (damaged), the photo's own file decoded; nil when not
  /// even that could be read.
  public var render: PreviewImage?
  /// The image entering step `n` (counting from 1; step 1's is the original), for each step
  /// asked for that the recipe has. Empty for a damaged photo.
  public var entering: [Int: PreviewImage] = [:]
  /// Harmless decoder warnings about the original.
  public var warnings: [String] = []
  /// What the previews were made from, for `EditStore.details`: nil for a damaged photo.
  public var source: PreviewSource? = nil
}

/// The original's bytes (read and verified once, by `EditStore.preview`) and the recipe's steps
/// the previews were made from, so that details at a higher resolution come from the same ones.
public struct PreviewSource: Sendable {
  let original: [UInt8]
  let steps: [Step]
  /// The original's size in pixels, as the steps see it (oriented).
  public let width: Int, height: Int
}

/// A region of one stage of a photo to show at more detail than its preview: the render
/// (`step` nil) or the image entering step `step` (from 1), in fractions of that image.
public struct DetailRegion: Sendable, Equatable {
  public var step: Int?
  public var x: Double, y: Double, width: Double, height: Double

  public init(step: Int?, x: Double, y: Double, width: Double, height: Double) {
    (self.step, self.x, self.y, self.width, self.height) = (step, x, y, width, height)
  }
}

/// One region cut out of a stage (`EditStore.details`): its JPEG (as a preview's) and the
/// rectangle it covers, in fractions of the stage (the region rounded out to whole pixels).
public struct PreviewDetail: Sendable, Equatable {
  public var image: PreviewImage
  public var x: Double, y: Double, width: Double, height: Double
}

extension EditStore {
  /// Display-size previews of a photo, read without changing anything and without a lock: the
  /// render, and the image entering each step in `entering` (step 1's is the original), all from
  /// one DCT-scaled decode of the original, then the steps on that small image, then a resample
  /// to `maxSize` on the longest side: the route of `render --max-size`, so each preview is what
  /// an export of that stage at that size gives (up to the JPEG encoding).
  ///
  /// The store's rules hold as for `show` and `render -o`: the sidecar and the original are read
  /// without following links and bounded before allocation, the original is verified against the
  /// sidecar's checksum, and a photo whose edit is being committed by another photoedit is read
  /// after it (or reported interrupted).
  ///
  /// - Parameters:
  ///   - maxSize: the longest side of each preview in pixels.
  ///   - entering: given the recipe's steps, the steps (from 1) whose input to preview as well.
  /// - Throws: `StoreError` when the name is not a photo (missing, a store file, a folder); a
  ///   photo that is damaged comes back with its state and problem instead.
  /// - Complexity: one decode of the original at the smallest DCT scale of at least `maxSize`,
  ///   then the steps and resamples on images of about `maxSize`².
  public func preview(
    _ photo: String, maxSize: Int, entering: (_ steps: [Step]) -> Set<Int> = { _ in [] }
  ) throws(StoreError) -> PhotoPreview {
    precondition(maxSize > 0, "a preview has at least one pixel")
    if PhotoFolder.kind(of: photo) == .directory { throw .isFolder }
    // A writer may commit meanwhile: read until the sidecar is the same before and after.
    var result = PhotoPreview(status: PhotoStatus(state: .damaged))
    for _ in 0..<3 {
      let settled = try opened(photo, for: .reading) { opened throws(StoreError) in
        let paths = opened.paths
        let before = try? paths.read(paths.sidecarName, limit: settings.maxFileBytes, followingLinks: false)
        result = try preview(opened, maxSize: maxSize, entering: entering)
        let after = try? paths.read(paths.sidecarName, limit: settings.maxFileBytes, followingLinks: false)
        return before == after && !paths.exists(paths.journalName)
      }
      if settled { break }
    }
    return result
  }

  private func preview(_ opened: OpenedPhoto, maxSize: Int, entering: (_ steps: [Step]) -> Set<Int>)
    throws(StoreError) -> PhotoPreview
  {
    switch opened.state {
    case .damaged(let error, let read):
      // What the world sees is the photo's file: show it plainly when it can be decoded.
      let plain = try? previews(of: opened.photoBytes(), steps: [], maxSize: maxSize, entering: []).render
      return PhotoPreview(
        status: PhotoStatus(
          state: .damaged, problem: .error(error), data: read?.data, migratedFrom: read?.migratedFrom),
        render: plain)
    case .unedited:
      let bytes = try opened.photoBytes()
      let made = try previews(of: bytes, steps: [], maxSize: maxSize, entering: [])
      return PhotoPreview(
        status: PhotoStatus(state: .unedited), render: made.render, warnings: made.warnings,
        source: PreviewSource(original: bytes, steps: [], width: made.size.width, height: made.size.height))
    case .edited(let edited, let read):
      let status = Self.status(of: edited, read)
      let steps = read.data.steps
      let made = try previews(
        of: edited.originalBytes, steps: steps, maxSize: maxSize,
        entering: entering(steps).filter { steps.indices.contains($0 - 1) })
      return PhotoPreview(
        status: status, render: made.render, entering: made.entering, warnings: made.warnings,
        source: PreviewSource(
          original: edited.originalBytes, steps: steps, width: made.size.width, height: made.size.height))
    }
  }

  private func previews(of original: [UInt8], steps: [Step], maxSize: Int, entering: Set<Int>)
    throws(StoreError) -> (
      render: PreviewImage, entering: [Int: PreviewImage], warnings: [String], size: ImageSize
    )
  {
    var (image, details) = try decodeOriginal(original, maxSize: maxSize)
    // How many full-size pixels one decoded pixel stands for (the DCT scale of the decode).
    let decodeScale = Double(details.fullWidth) / Double(image.width)
    var stages: [Int: PreviewImage] = [:]
    // The last stage resampled, and where the image has changed since: local steps (faceblur's
    // circles, brush strokes) change only their footprints, so the next resample makes only
    // the preview pixels those reach again.
    var last: (small: Image, changed: [PixelRect])? = nil
    for (i, step) in steps.enumerated() {
      if entering.contains(i + 1) {
        let (preview, small) = try encodePreview(
          image, decodeScale: decodeScale, steps: Array(steps.prefix(i)), maxSize: maxSize, after: last)
        stages[i + 1] = preview
        last = (small, [])
      }
      if let before = last {
        last = nil
        if let kernels = try? step.kernels(input: ImageSize(image.width, image.height)) {
          var changed = before.changed
          var local = true
          for kernel in kernels {
            guard case .local(_, let footprint) = kernel.capability, kernel.outputSize == kernel.inputSize
            else {
              local = false
              break
            }
            changed += footprint
          }
          if local { last = (before.small, changed) }
        }
      }
      do { try step.render(on: &image) } catch { throw .step(index: i, error) }
    }
    let (render, _) = try encodePreview(
      image, decodeScale: decodeScale, steps: steps, maxSize: maxSize, after: last)
    return (render, stages, details.warnings, ImageSize(details.fullWidth, details.fullHeight))
  }

  /// Regions of the photo's stages cut out at up to full resolution, each scaled down to
  /// `longestSide` pixels on its longest side when it has more: one decode of the original (at
  /// the smallest DCT scale that gives every region its `longestSide` pixels, or as many as the
  /// original has), the steps on it, and each region cut from its stage's pixels (a render's
  /// hidden faces stay hidden in its regions). The regions come back in the order asked; a
  /// region of a step the recipe does not have, or empty, comes back nil.
  ///
  /// - Complexity: a decode of the original and its steps at up to full size.
  public func details(of source: PreviewSource, regions: [DetailRegion], longestSide: Int) throws(StoreError)
    -> [PreviewDetail?]
  {
    precondition(longestSide > 0, "a detail has at least one pixel")
    let valid = regions.map { r in
      r.width > 0 && r.height > 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= 1.000001
        && r.y + r.height <= 1.000001
        && (r.step.map { source.steps.indices.contains($0 - 1) } ?? true)
    }
    guard valid.contains(true) else { return regions.map { _ in nil } }
    // The decode each region needs: its longest side at full size, brought to `longestSide`.
    // Steps keep the original's pixel density (crops and turns), so a stage's region measures
    // about the same in the original's pixels, either way round; the smaller reading is taken.
    let (w, h) = (Double(source.width), Double(source.height))
    var scale = 0.0
    for (r, ok) in zip(regions, valid) where ok {
      let side = min(max(r.width * w, r.height * h), max(r.width * h, r.height * w))
      scale = max(scale, min(1, Double(longestSide) / max(side, 1)))
    }
    let target = Int((max(w, h) * scale).rounded(.up))
    var (image, decoded) = try decodeOriginal(source.original, maxSize: scale >= 1 ? nil : target)
    // Full-size pixels per decoded pixel (the steps keep it).
    let decodeScale = Double(decoded.fullWidth) / Double(image.width)
    var out = [PreviewDetail?](repeating: nil, count: regions.count)
    func cut(_ stage: Int?, steps: ArraySlice<Step>) throws(StoreError) {
      for (i, r) in regions.enumerated() where valid[i] && r.step == stage {
        let (iw, ih) = (Double(image.width), Double(image.height))
        let x0 = min(image.width - 1, max(0, Int((r.x * iw).rounded(.down))))
        let y0 = min(image.height - 1, max(0, Int((r.y * ih).rounded(.down))))
        let x1 = max(x0 + 1, min(image.width, Int(((r.x + r.width) * iw).rounded(.up))))
        let y1 = max(y0 + 1, min(image.height, Int(((r.y + r.height) * ih).rounded(.up))))
        var piece = image.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let full = Double(piece.width) * decodeScale
        if max(piece.width, piece.height) > longestSide { piece = piece.resampled(longestSide: longestSide) }
        let options = EncodeOptions(quality: PreviewImage.quality, subsampling: .s420)
        let bytes = try encode(piece, as: .jpeg, options: options, steps: Array(steps))
        out[i] = PreviewDetail(
          image: PreviewImage(
            jpeg: bytes, width: piece.width, height: piece.height, scale: full / Double(piece.width)),
          x: Double(x0) / iw, y: Double(y0) / ih, width: Double(x1 - x0) / iw, height: Double(y1 - y0) / ih)
      }
    }
    for (i, step) in source.steps.enumerated() {
      try cut(i + 1, steps: source.steps.prefix(i))
      do { try step.render(on: &image) } catch { throw .step(index: i, error) }
    }
    try cut(nil, steps: source.steps[...])
    return out
  }

  /// One stage resampled to `maxSize` and encoded as a preview JPEG (transparency laid over the
  /// colour the steps name, as a JPEG render does), and the resampled image. `after` is an
  /// earlier stage's resampled image and every rectangle where this stage differs from it, when
  /// known: the same pixels, made faster.
  private func encodePreview(
    _ image: Image, decodeScale: Double, steps: [Step], maxSize: Int,
    after earlier: (small: Image, changed: [PixelRect])?
  ) throws(StoreError) -> (PreviewImage, Image) {
    var small = image
    if max(image.width, image.height) > maxSize {
      if let earlier {
        small = image.resampled(updating: earlier.small, changed: earlier.changed)
      } else {
        small = image.resampled(longestSide: maxSize)
      }
    }
    let options = EncodeOptions(quality: PreviewImage.quality, subsampling: .s420)
    let bytes = try encode(small, as: .jpeg, options: options, steps: steps)
    let scale = decodeScale * Double(image.width) / Double(small.width)
    return (PreviewImage(jpeg: bytes, width: small.width, height: small.height, scale: scale), small)
  }
}
