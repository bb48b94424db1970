import CJPEGShim
import CTurboJPEG
import Dispatch
import PhotoCore
import Synchronization

/// A JPEG rendered from a JPEG without re-encoding what no step changes: only the iMCUs that a
/// step's footprint touches are rendered from the original's pixels and compressed with the
/// original's quantisation tables and sampling. A baseline file is spliced (`JPEGSplice`: the
/// other MCUs' entropy-coded bits are copied); any other is transcoded (its coefficients read
/// with `jpeg_read_coefficients` through our C shim, the patches' blocks put in place of theirs,
/// and written again). Every other block keeps its coefficients bit for bit, so its decoded
/// pixels are the original's, and the file stays about the original's size.
///
/// Only local steps can take this route (`StepCapability.local`: they change the pixels inside
/// their footprints alone), after exact turns, mirrors and crops (`transformed`), on a JPEG whose
/// colour space is YCbCr or grey.
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
  /// `decoded`, when the caller has it, holds the original's stored pixels as decoding `bytes`
  /// gives them (faceblur's detection searched them): the splice then cuts its patches from them
  /// rather than decoding the original a second time. The render lets go of them before any
  /// route that does not use them (a transform: the moved file's pixels are its own decode's;
  /// the coefficients' route, which holds every block), so that the two never add up.
  ///
  /// `index`, when the caller started one on `bytes` (`JPEGScanIndex.start`), spares the splice
  /// decoding the scan up to each replaced MCU, as far as the index has got.
  ///
  /// - Throws: `CodecError` for damaged data (as decoding reports it) or what libjpeg cannot write.
  public static func render(
    _ bytes: [UInt8], transform: PixelTransform? = nil, kernels: [any StepKernel], options: EncodeOptions,
    decoded: DecodedPixels? = nil, index: JPEGScanIndex? = nil
  ) throws(CodecError) -> [UInt8]? {
    precondition(kernels.allSatisfy { $0.capability.isLocal }, "only local steps keep the original's blocks")
    if let transform, !transform.isIdentity {
      decoded?.image = nil
      guard let moved = try transformed(bytes, by: transform) else { return nil }
      return try render(moved, kernels: kernels, options: options)
    }
    let header = try JPEGMarkers.parseHeader(bytes, metadata: false)
    // As a decode checks it: libjpeg only warns of a cut file, and makes up the rest.
    let scans = try JPEGMarkers.checkComplete(bytes, from: header.firstScanOffset)
    if scans > JPEGMarkers.maxScans { throw .tooManyScans(count: scans, limit: JPEGMarkers.maxScans) }
    return try bytes.withUnsafeBufferPointer { data throws(CodecError) -> [UInt8]? in
      let size = ImageSize(header.width, header.height)
      precondition(kernels.first.map { $0.inputSize == size } ?? true, "the kernels take the stored pixels")
      precondition(decoded?.image.map { ImageSize($0.width, $0.height) == size } ?? true, "the stored pixels")
      let footprints = kernels.flatMap { kernel -> [PixelRect] in
        if case .local(_, let footprint) = kernel.capability { return footprint }
        return []
      }
      let metadata = ImageCodec.renderable(options)
      // A baseline file: only the changed MCUs are coded again, the others' bits copied.
      if var splice = try JPEGSplice(data) {
        splice.use(index)
        if let spliced = try Self.splice(
          splice, footprints: footprints, kernels: kernels, source: JPEGSource(data, header: header),
          decoded: decoded?.image, metadataSegments: JPEGMarkers.segments(for: metadata))
        {
          return spliced
        }
        // Tables that cannot code the new blocks (optimised ones): the coefficients' route.
      }
      decoded?.image = nil
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
      let cell = ImageSize(
        Int(cjpeg_coefficients_imcu_width(coefficients)), Int(cjpeg_coefficients_imcu_height(coefficients)))
      let patches = Self.patches(covering: footprints, in: size, cell: cell, maxRows: patchRows)
      if !patches.isEmpty {
        let source = JPEGSource(data, header: header)
        try render(patches, through: kernels, from: source, decoded: nil) { pixels throws(CodecError) in
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
      return JPEGCodec.withMetadata(jpeg, metadata)
    }
  }

  /// Whether `render` can take the JPEG `bytes` (YCbCr or grey, 8-bit) with `transform` made
  /// exactly (see `transformed`), from the header alone: so that a caller knows before it lets
  /// go of what the other route would need.
  ///
  /// The coefficients (twice over with a transform: the original's and the moved ones) must fit
  /// `budget` bytes (the decode's memory budget by default).
  public static func accepts(
    _ bytes: [UInt8], transform: PixelTransform?, budget: Int = DecodeOptions.defaultMaxMemoryBytes
  ) -> Bool {
    guard let header = try? JPEGMarkers.parseHeader(bytes, metadata: false) else { return false }
    let moved = transform.map { !$0.isIdentity } ?? false
    guard header.coefficientBytes <= budget / (moved ? 2 : 1) else { return false }
    var (width, height): (UInt32, UInt32) = (0, 0)
    let supported = bytes.withUnsafeBufferPointer {
      cjpeg_coefficients_supported($0.baseAddress, $0.count, &width, &height)
    }
    guard supported == 1, width > 0, height > 0 else { return false }
    guard let transform, !transform.isIdentity else { return true }
    return isExact(transform, cell: ImageSize(Int(width), Int(height)))
  }

  /// True when `transform` moves only whole iMCUs of `cell` pixels (libjpeg's perfect
  /// transforms, `jtransform_perfect_transform`) and its crop window starts on an iMCU of the
  /// turned image.
  static func isExact(_ transform: PixelTransform, cell: ImageSize) -> Bool {
    let size = transform.inputSize
    let (across, down) = (size.width % cell.width == 0, size.height % cell.height == 0)
    let perfect =
      switch transform.orientation {
      case 2, 8: across  // a left-right mirror, a turn by 270°: the right edge moves
      case 4, 6: down  // a top-bottom mirror, a turn by 90°: the bottom edge moves
      case 3, 7: across && down  // a half turn, a transverse
      default: true  // none, a transpose
      }
    let turned = transform.orientation >= 5 ? ImageSize(cell.height, cell.width) : cell
    let window = transform.window
    return perfect && window.x % turned.width == 0 && window.y % turned.height == 0
  }

  /// The splice of the patches `footprints` touch, rendered through `kernels` from `source`. The
  /// patches are rendered and compressed on another core while the splice decodes the scan up to
  /// them and codes their blocks (when no core is free, the splice makes them itself when it
  /// first needs them).
  static func splice(
    _ splice: JPEGSplice, footprints: [PixelRect], kernels: [any StepKernel], source: JPEGSource,
    decoded: Image? = nil, metadataSegments: [UInt8]
  ) throws(CodecError) -> [UInt8]? {
    let cell = ImageSize(splice.mcuWidth, splice.mcuHeight)
    let size = source.size
    let patches = Self.patches(covering: footprints, in: size, cell: cell, maxRows: patchRows)
    // Each replaced MCU's patch and place in it, in the file's MCU order (the splice's).
    let mcus = patches.map(splice.mcus)
    var owners: [(mcu: Int, patch: Int, offset: Int)] = []
    for (p, indices) in mcus.enumerated() {
      for (offset, mcu) in indices.enumerated() { owners.append((mcu, p, offset)) }
    }
    owners.sort { $0.mcu < $1.mcu }
    // The helper decodes, renders and compresses the patches (`patchBlocks`, libjpeg's forward
    // DCT and quantisation); the splice's thread decodes the scan up to each and codes its blocks.
    let production = PatchProduction(count: patches.count) { made in
      do throws(CodecError) {
        var k = 0
        try render(patches, through: kernels, from: source, decoded: decoded) { pixels throws(CodecError) in
          made.set(k, try splice.patchBlocks(of: pixels))
          k += 1
        }
      } catch {
        made.fail(error)
      }
    }
    production.start()
    let perMCU = splice.blocksPerMCU * 64
    // Patches side by side take turns, a row of MCUs each: each is kept until its last MCU.
    var compressed: [Int: [Int16]] = [:]
    var remaining = mcus.map(\.count)
    let result = Result { () throws(CodecError) in
      try splice.splice(mcus: owners.map(\.mcu), metadataSegments: metadataSegments) { k in
        let p = owners[k].patch
        if compressed[p] == nil {
          guard let blocks = production.blocks(of: p) else { return nil }
          compressed[p] = blocks
        }
        let start = owners[k].offset * perMCU
        let blocks = Array(compressed[p]![start..<(start + perMCU)])
        remaining[p] -= 1
        if remaining[p] == 0 { compressed[p] = nil }
        return blocks
      }
    }
    // The production reads `source` and `kernels`: it ends before they may go.
    if let failure = production.finish() { throw failure }
    return try result.get()
  }

  /// `bytes` turned, mirrored and cropped by `transform` without decoding them (TurboJPEG's
  /// `tjTransform`: the blocks are moved, and their coefficients transposed or negated), or nil
  /// when that cannot be done exactly: a turn or mirror that would move partial iMCUs at the
  /// image's right or bottom edge (an image whose size is not whole iMCUs), or a crop window whose
  /// top left corner is not on an iMCU boundary of the turned image. No metadata is kept.
  static func transformed(_ bytes: [UInt8], by transform: PixelTransform) throws(CodecError) -> [UInt8]? {
    let operations: [Int: TJXOP] = [
      1: TJXOP_NONE, 2: TJXOP_HFLIP, 3: TJXOP_ROT180, 4: TJXOP_VFLIP, 5: TJXOP_TRANSPOSE, 6: TJXOP_ROT90,
      7: TJXOP_TRANSVERSE, 8: TJXOP_ROT270,
    ]
    let window = transform.window
    let turned = transform.orientation >= 5
    let whole =
      turned ? ImageSize(transform.inputSize.height, transform.inputSize.width) : transform.inputSize
    var spec = tjtransform()
    spec.op = Int32(operations[transform.orientation]!.rawValue)
    spec.options = TJXOPT_PERFECT | TJXOPT_COPYNONE
    if window != PixelRect(whole) {
      spec.options |= TJXOPT_CROP
      spec.r = tjregion(
        x: Int32(window.x), y: Int32(window.y), w: Int32(window.width), h: Int32(window.height))
    }
    guard let handle = tjInitTransform() else { throw .encodingFailed(.jpeg, "cannot start libjpeg-turbo") }
    defer { tjDestroy(handle) }
    var output: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    defer { if let output { tjFree(output) } }
    let status = bytes.withUnsafeBufferPointer { data in
      tjTransform(handle, data.baseAddress, UInt(data.count), 1, &output, &size, &spec, 0)
    }
    // The original decodes (its render was checked): a refusal is an imperfect transform or crop.
    guard status == 0, let output else { return nil }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
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
          patches.append(
            PixelRect(x: x, y: y, width: min(run.upperBound * cell.width, size.width) - x, height: height))
          next[run] = patches.count - 1
        }
      }
      open = next
    }
    return patches.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
  }

  /// Renders each patch from the original's pixels through `kernels` and hands it to `body`, top
  /// to bottom. The pixels are cut from `decoded` (the stored pixels, whole) when there is one.
  /// Else the original is decoded in one pass down the image (cropped to the columns the patches
  /// need, skipping the rows none needs), into a window of the rows the current patch needs; a
  /// patch that needs rows above the window (it never happens with the steps photoedit has)
  /// starts a new pass.
  static func render(
    _ patches: [PixelRect], through kernels: [any StepKernel], from source: JPEGSource, decoded: Image?,
    _ body: (PixelBuffer) throws(CodecError) -> Void
  ) throws(CodecError) {
    let demands = patches.map { RenderPlan.demand(of: $0, through: kernels) }
    /// The patch rendered from `rect`'s pixels in `pixels`; each works on a copy, which the
    /// kernels change in place.
    func rendered(_ patch: PixelRect, _ rects: [PixelRect], from pixels: PixelBuffer) throws(CodecError) {
      let tile = PixelBuffer(rect: rects[0])
      tile.copy(rects[0], from: pixels)
      let rendered: PixelBuffer
      do { rendered = try Planner.chain(kernels, on: tile, rects: rects) } catch {
        throw .corruptData(.jpeg, "\(error)")  // local kernels never throw
      }
      try body(rendered.view(patch))
    }
    if let decoded {
      do {
        try decoded.withReadOnlyPixels { whole in
          for (patch, rects) in zip(patches, demands) { try rendered(patch, rects, from: whole) }
        }
      } catch let error as CodecError {
        throw error
      } catch {
        throw .corruptData(.jpeg, "\(error)")  // `rendered` throws only `CodecError`
      }
      return
    }
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
      // The window becomes the rows from the need's top to its bottom (or the window's, if
      // lower). Patches side by side need the rows the window has: it stays as it is.
      if need.y < window.rect.y || need.maxY > window.rect.maxY {
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
      }
      try rendered(patch, rects, from: window)
    }
  }
}

/// The original's stored pixels, decoded, lent to `LosslessJPEG.render` so that it can let go of
/// them before a route that does not use them.
public final class DecodedPixels: @unchecked Sendable {
  /// The pixels, or nil once let go of.
  public var image: Image?

  public init(_ image: Image) { self.image = image }
}

/// The patches' blocks, rendered and compressed by whichever thread first takes the work: a
/// helper started for it, or the splice when it needs the first blocks before the helper has
/// started (so that it never waits for a thread that may not come: in a batch, every core may be
/// running a photo).
final class PatchProduction: @unchecked Sendable {
  private let work: (PatchProduction) -> Void
  private let taken = Atomic<Bool>(false)
  private let ended = DispatchSemaphore(value: 0)
  /// Signalled once patch p's blocks are in `results[p]` (or the work failed).
  private let ready: [DispatchSemaphore]
  private var results: [[Int16]?]
  private var failure: CodecError? = nil
  /// Patches set so far: the work makes them in order.
  private var made = 0

  init(count: Int, _ work: @escaping (PatchProduction) -> Void) {
    self.work = work
    ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    results = Array(repeating: nil, count: count)
  }

  /// Starts the work on a helper thread.
  func start() { DispatchQueue.global().async { self.runIfNotTaken() } }

  private func runIfNotTaken() {
    guard taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    else { return }
    work(self)
    // Patches the work never reached (it failed) are released, empty.
    for semaphore in ready[made...] { semaphore.signal() }
    ended.signal()
  }

  /// Called by the work: patch `p`'s blocks (`JPEGSplice.patchBlocks`).
  func set(_ p: Int, _ blocks: [Int16]) {
    precondition(p == made, "patches are made in order")
    results[p] = blocks
    made += 1
    ready[p].signal()
  }

  /// Called by the work when it fails; the patches after the last one set come empty.
  func fail(_ error: CodecError) { failure = error }

  /// Patch `p`'s blocks, waiting until they are made (making them all, if no thread has begun);
  /// nil when the work failed first. They are handed over once: the production lets them go.
  func blocks(of p: Int) -> [Int16]? {
    runIfNotTaken()
    ready[p].wait()
    defer { results[p] = nil }
    return results[p]
  }

  /// Waits for the work to end (doing it, if no thread has begun); its error, if any.
  func finish() -> CodecError? {
    runIfNotTaken()
    ended.wait()
    ended.signal()
    return failure
  }
}

extension JPEGSplice {
  /// The blocks of `pixels` (a patch of whole MCUs of the file, or reaching its right and bottom
  /// edges), compressed with the file's own tables and sampling (`cjpeg_patch_blocks`), by MCU
  /// index of the file: `splice`'s replacements.
  func blocks(of pixels: PixelBuffer) throws(CodecError) -> [(mcu: Int, blocks: [Int16])] {
    let perMCU = blocksPerMCU * 64
    let coefficients = try patchBlocks(of: pixels)
    return mcus(of: pixels.rect).enumerated().map { k, mcu in
      (mcu, Array(coefficients[(k * perMCU)..<((k + 1) * perMCU)]))
    }
  }

  /// The file's MCU indices (raster order) of the MCUs of `patch` (whole MCUs, or reaching the
  /// image's right and bottom edges), in the patch's own raster order: `cjpeg_patch_blocks`'s.
  func mcus(of patch: PixelRect) -> [Int] {
    let (x0, y0) = (patch.x / mcuWidth, patch.y / mcuHeight)
    let across = (patch.width + mcuWidth - 1) / mcuWidth
    let down = (patch.height + mcuHeight - 1) / mcuHeight
    return (0..<down).flatMap { my in (0..<across).map { mx in (y0 + my) * mcusAcross + x0 + mx } }
  }

  /// The blocks of `pixels` as `cjpeg_patch_blocks` gives them: the patch's MCUs in raster order,
  /// `blocksPerMCU` blocks of 64 coefficients each.
  func patchBlocks(of pixels: PixelBuffer) throws(CodecError) -> [Int16] {
    let r = pixels.rect
    let blocks = mcus(of: r).count * blocksPerMCU
    var coefficients = [Int16](repeating: 0, count: blocks * 64)
    var count = 0
    var message = [CChar](repeating: 0, count: 256)
    let status = coefficients.withUnsafeMutableBufferPointer { out in
      cjpeg_patch_blocks(
        jpeg.baseAddress, jpeg.count, pixels.base, pixels.stride, UInt32(r.width), UInt32(r.height),
        out.baseAddress, blocks, &count, &message, message.count)
    }
    guard status == 0, count == blocks else {
      throw .encodingFailed(.jpeg, String(cMessage: message))
    }
    return coefficients
  }
}
