import CJPEGShim
import PhotoCore

/// A JPEG rendered from a JPEG without re-encoding what no step changes: the original's DCT
/// coefficients are read (`jpeg_read_coefficients`, through our C shim), only the iMCUs that a
/// step's footprint touches are rendered from the original's pixels, compressed with the
/// original's quantisation tables and sampling, and put in place of the original's, and the
/// coefficients are written again with optimised Huffman tables. Every other block keeps its
/// coefficients bit for bit, so its decoded pixels are the original's, and the file stays about
/// the original's size.
///
/// Only local steps can take this route (`StepCapability.local`: they change the pixels inside
/// their footprints alone), on a JPEG stored upright whose colour space is YCbCr or grey.
public enum LosslessJPEG {
  /// The most rows a patch spans (a multiple of every iMCU height), so that the rows of the
  /// original a patch needs stay a small window of the image.
  static let patchRows = 128

  /// The render of `kernels` (each `.local`, the first taking the original's stored pixels) on
  /// the JPEG `bytes`, with `options`' metadata (its quality and subsampling are not used: the
  /// original's tables and sampling are). nil when the file cannot take the route (CMYK, RGB or
  /// 12-bit JPEGs): then re-encode.
  ///
  /// Memory: the original's coefficients (about 72 MB at 24 MP 4:2:0), the output, and a window
  /// of the original's rows as wide as the footprints and as high as a patch plus the steps' reach.
  ///
  /// - Throws: `CodecError` for damaged data (as decoding reports it) or what libjpeg cannot write.
  public static func render(_ bytes: [UInt8], kernels: [any StepKernel], options: EncodeOptions)
    throws(CodecError) -> [UInt8]?
  {
    precondition(kernels.allSatisfy { $0.capability.isLocal }, "only local steps keep the original's blocks")
    let header = try JPEGMarkers.parseHeader(bytes, metadata: false)
    return try bytes.withUnsafeBufferPointer { data throws(CodecError) -> [UInt8]? in
      var message = [CChar](repeating: 0, count: 256)
      var unsupported: Int32 = 0
      guard
        let coefficients = cjpeg_coefficients_read(
          data.baseAddress, data.count, &unsupported, &message, message.count)
      else {
        if unsupported != 0 { return nil }
        throw JPEGCodec.error(fromLibjpeg: String(cMessage: message), isWarning: false)
      }
      defer { cjpeg_coefficients_close(coefficients) }
      let size = ImageSize(header.width, header.height)
      precondition(kernels.first.map { $0.inputSize == size } ?? true, "the kernels take the stored pixels")
      let cell = ImageSize(
        Int(cjpeg_coefficients_imcu_width(coefficients)), Int(cjpeg_coefficients_imcu_height(coefficients)))
      let footprints = kernels.flatMap { kernel -> [PixelRect] in
        if case .local(_, let footprint) = kernel.capability { return footprint }
        return []
      }
      let patches = Self.patches(covering: footprints, in: size, cell: cell, maxRows: patchRows)
      if !patches.isEmpty {
        let source = JPEGSource(data, header: header)
        try encode(patches, through: kernels, from: source) { pixels throws(CodecError) in
          let r = pixels.rect
          guard
            cjpeg_coefficients_encode_patch(
              coefficients, pixels.base, pixels.stride, UInt32(r.x), UInt32(r.y), UInt32(r.width),
              UInt32(r.height), &message, message.count) == 0
          else { throw .encodingFailed(.jpeg, String(cMessage: message)) }
        }
      }
      var count = 0
      guard
        let written = cjpeg_coefficients_write(
          coefficients, cjpeg_coefficients_is_progressive(coefficients), &count, &message, message.count)
      else { throw .encodingFailed(.jpeg, String(cMessage: message)) }
      defer { cjpeg_free(written) }
      let jpeg = Array(UnsafeBufferPointer(start: written, count: count))
      return JPEGCodec.withMetadata(jpeg, ImageCodec.renderable(options.metadata, policy: options.metadataPolicy))
    }
  }

  /// The rectangles of whole iMCUs (`cell`s, cut at the image's right and bottom edges) that
  /// `footprints` touch, by rows of cells then columns: runs of touched cells in a row of cells,
  /// merged down while the run is the same and the patch stays `maxRows` high. Every touched cell
  /// is in exactly one patch.
  static func patches(covering footprints: [PixelRect], in size: ImageSize, cell: ImageSize, maxRows: Int)
    -> [PixelRect]
  {
    let across = (size.width + cell.width - 1) / cell.width
    let down = (size.height + cell.height - 1) / cell.height
    var touched = [Bool](repeating: false, count: across * down)
    for footprint in footprints {
      let r = footprint.intersection(PixelRect(size))
      guard !r.isEmpty else { continue }
      for cy in (r.y / cell.height)...((r.maxY - 1) / cell.height) {
        for cx in (r.x / cell.width)...((r.maxX - 1) / cell.width) { touched[cy * across + cx] = true }
      }
    }
    var patches: [PixelRect] = []
    // The patches still growing down: by their run of columns.
    var open: [Range<Int>: Int] = [:]
    for cy in 0..<down {
      var runs: [Range<Int>] = []
      var cx = 0
      while cx < across {
        guard touched[cy * across + cx] else {
          cx += 1
          continue
        }
        let start = cx
        while cx < across && touched[cy * across + cx] { cx += 1 }
        runs.append(start..<cx)
      }
      var next: [Range<Int>: Int] = [:]
      for run in runs {
        let y = cy * cell.height
        let height = min(cell.height, size.height - y)
        if let k = open[run], patches[k].height + height <= maxRows {
          let p = patches[k]
          patches[k] = PixelRect(x: p.x, y: p.y, width: p.width, height: p.height + height)
          next[run] = k
        } else {
          let x = run.lowerBound * cell.width
          patches.append(PixelRect(x: x, y: y, width: min(run.upperBound * cell.width, size.width) - x, height: height))
          next[run] = patches.count - 1
        }
      }
      open = next
    }
    return patches.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
  }

  /// Renders each patch from the original's pixels through `kernels` and hands it to `body`, top
  /// to bottom. The original is decoded in one pass down the image (cropped to the columns the
  /// patches need, skipping the rows none needs), into a window of the rows the current patch
  /// needs; a patch that needs rows above the window (it never happens with the steps photoedit
  /// has) starts a new pass.
  static func encode(
    _ patches: [PixelRect], through kernels: [any StepKernel], from source: JPEGSource,
    _ body: (PixelBuffer) throws(CodecError) -> Void
  ) throws(CodecError) {
    let demands = patches.map { RenderPlan.demand(of: $0, through: kernels) }
    let columns = demands.reduce(PixelRect.empty) { $0.union($1[0]) }.columns
    let height = source.size.height
    var pass: JPEGPass? = nil
    var window = PixelBuffer(rect: .empty)
    func start(at row: Int) throws(CodecError) {
      pass = nil  // one decoder at a time
      do {
        pass = try source.startPass(rows: row..<height, columns: columns, toEnd: false) as? JPEGPass
      } catch let error as CodecError {
        throw error
      } catch {
        throw .corruptData(.jpeg, "\(error)")  // the source throws only `CodecError`
      }
      window = PixelBuffer(rect: PixelRect(x: columns.lowerBound, y: row, width: columns.count, height: 0))
    }
    for (patch, rects) in zip(patches, demands) {
      let need = rects[0]
      if pass == nil || need.y < window.rect.y { try start(at: need.y) }
      guard let pass else { throw .corruptData(.jpeg, "no pass over the JPEG") }
      // The window becomes the rows from the need's top to its bottom (or the window's, if lower).
      let rows = need.y..<max(need.maxY, window.rect.maxY)
      let grown = PixelBuffer(rect: PixelRect(columns: columns, rows: rows))
      grown.copy(grown.rect.intersection(window.rect), from: window)
      let first = max(window.rect.maxY, rows.lowerBound)
      if first < rows.upperBound {
        try pass.skip(first - pass.nextRow)
        do {
          try pass.read(into: grown.row(first), stride: grown.stride, count: rows.upperBound - first)
        } catch let error as CodecError {
          throw error
        } catch {
          throw .corruptData(.jpeg, "\(error)")
        }
      }
      window = grown
      // The kernels change their tile in place: each patch works on a copy.
      let tile = PixelBuffer(rect: need)
      tile.copy(need, from: window)
      let rendered: PixelBuffer
      do { rendered = try Planner.chain(kernels, on: tile, rects: rects) } catch {
        throw .corruptData(.jpeg, "\(error)")  // local kernels never throw
      }
      try body(rendered.view(patch))
    }
  }
}
