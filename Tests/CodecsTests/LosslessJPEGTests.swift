import CJPEGShim
import Foundation
import PhotoCore
import Testing

@testable import Codecs

/// The lossless route (`LosslessJPEG`): a local step on a JPEG keeps every DCT block it does not
/// touch bit for bit, its pixels far from the edit are the original's, and the file keeps its size.
@Suite struct LosslessJPEGTests {
  /// One component's blocks, as a JPEG stores them: `blocks[row][column]` is 64 coefficients.
  struct Component {
    var h: Int, v: Int
    var blocks: [[[Int16]]]
  }

  /// Every coefficient of a JPEG, with its iMCU size in pixels.
  static func coefficients(_ bytes: [UInt8]) throws -> (cell: ImageSize, components: [Component]) {
    try bytes.withUnsafeBufferPointer { data in
      var message = [CChar](repeating: 0, count: 256)
      var unsupported: Int32 = 0
      let c = try #require(cjpeg_coefficients_read(data.baseAddress, data.count, &unsupported, &message, 256))
      defer { cjpeg_coefficients_close(c) }
      let cell = ImageSize(Int(cjpeg_coefficients_imcu_width(c)), Int(cjpeg_coefficients_imcu_height(c)))
      let header = try JPEGMarkers.parseHeader(bytes, metadata: false)
      var components: [Component] = []
      for k in 0..<Int(cjpeg_coefficients_component_count(c)) {
        let single = header.components.count == 1
        let (h, v) = single ? (1, 1) : (header.components[k].h, header.components[k].v)
        var rows: [[[Int16]]] = []
        for row in 0..<cjpeg_coefficients_blocks_down(c, Int32(k)) {
          var blocks: [[Int16]] = []
          for column in 0..<cjpeg_coefficients_blocks_across(c, Int32(k)) {
            var block = [Int16](repeating: 0, count: 64)
            #expect(cjpeg_coefficients_block(c, Int32(k), row, column, &block) == 0)
            blocks.append(block)
          }
          rows.append(blocks)
        }
        components.append(Component(h: h, v: v, blocks: rows))
      }
      return (cell, components)
    }
  }

  static func kernels(_ filter: String, _ parameters: [String: JSONValue], size: ImageSize) throws
    -> [any StepKernel]
  {
    try Filters.step(filter: filter, version: 1, parameters: parameters, derived: [:]).kernels(input: size)
  }

  static func footprints(_ kernels: [any StepKernel]) -> [PixelRect] {
    kernels.flatMap { kernel -> [PixelRect] in
      if case .local(_, let footprint) = kernel.capability { return footprint }
      return []
    }
  }

  static let pixelate: [String: JSONValue] = [
    "x": .number(0.3), "y": .number(0.25), "width": .number(0.2), "height": .number(0.3),
    "block": .number(0.05),
  ]

  /// Baseline 4:2:0, 4:4:4 and greyscale files, progressive 4:2:2 and 4:1:1, and a 16 MP camera photo.
  static let files = [
    "jpeg/testorig.jpg", "jpeg/video-001.jpeg", "jpeg/hopper_gray.jpg", "jpeg/video-005.gray.jpeg",
    "jpeg/video-001.q50.422.progressive.jpeg", "jpeg/video-001.q50.411.progressive.jpeg",
    "photos/seeding_by_Clements_Engelhardt.jpg",
  ]

  @Test(arguments: files)
  func blocksNoEditTouchesKeepTheirCoefficients(_ file: String) throws {
    let original = try fixture(file)
    let header = try JPEGMarkers.parseHeader(original, metadata: false)
    let size = ImageSize(header.width, header.height)
    let kernels = try Self.kernels("pixelate", Self.pixelate, size: size)
    let rendered = try #require(try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions()))
    let (cell, before) = try Self.coefficients(original)
    let (_, after) = try Self.coefficients(rendered)
    let footprint = Self.footprints(kernels)
    #expect(before.count == after.count)
    var (kept, changed) = (0, 0)
    for (b, a) in zip(before, after) {
      #expect(a.blocks.count == b.blocks.count)
      for (row, blocks) in b.blocks.enumerated() {
        for (column, block) in blocks.enumerated() {
          // The block's iMCU, in pixels.
          let r = PixelRect(
            x: column / a.h * cell.width, y: row / a.v * cell.height, width: cell.width, height: cell.height)
          if footprint.contains(where: { $0.intersects(r) }) {
            if a.blocks[row][column] != block { changed += 1 }
          } else {
            #expect(a.blocks[row][column] == block, "block \(row), \(column) is untouched")
            kept += 1
          }
        }
      }
    }
    #expect(kept > 0 && changed > 0)
    #expect(Self.isProgressive(rendered) == Self.isProgressive(original))
  }

  /// faceblur's case: the caller lends the pixels its detection decoded. The splice cuts its
  /// patches from them, and the file is the one a second decode gives; a route that does not use
  /// them (the coefficients' route of progressive files) lets go of them first. Two regions side
  /// by side make patches in the same rows, which the second decode's window serves in turn.
  @Test(arguments: files)
  func lentPixelsGiveTheSameFileAndAreLetGoWhereNotUsed(_ file: String) throws {
    let original = try fixture(file)
    let decoded = try ImageCodec.decode(original).image
    let size = ImageSize(decoded.width, decoded.height)
    func region(_ x: Double) -> [String: JSONValue] {
      [
        "x": .number(x), "y": .number(0.3), "width": .number(0.15), "height": .number(0.4),
        "block": .number(0.05),
      ]
    }
    let kernels =
      try Self.kernels("pixelate", region(0.1), size: size)
      + Self.kernels("pixelate", region(0.6), size: size)
    let decodedAgain = try #require(
      try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions()))
    let lent = DecodedPixels(decoded)
    let cut = try #require(
      try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions(), decoded: lent))
    #expect(cut == decodedAgain)
    if Self.isProgressive(original) { #expect(lent.image == nil) }
    // A row far from the edits decodes to the original's pixels; the edits changed the file.
    let rendered = try ImageCodec.decode(cut).image
    let row = (size.height / 8 * size.width * 4)..<((size.height / 8 + 1) * size.width * 4)
    #expect(rendered.bytes[row] == decoded.bytes[row])
    #expect(cut != original)
  }

  static func isProgressive(_ bytes: [UInt8]) -> Bool {
    (try? JPEGMarkers.parseHeader(bytes, metadata: false).frameMarker) == 0xC2
  }

  @Test(arguments: ["jpeg/testorig.jpg", "photos/seeding_by_Clements_Engelhardt.jpg"])
  func pixelsFarFromTheEditAreTheOriginalsAndTheEditIsMade(_ file: String) throws {
    let original = try fixture(file)
    let decoded = try ImageCodec.decode(original).image
    let size = ImageSize(decoded.width, decoded.height)
    let parameters: [String: JSONValue] = [
      "shape": .string("circle"), "center": .array([.number(0.4), .number(0.5)]), "radius": .number(0.15),
      "block": .number(0.03),
    ]
    let kernels = try Self.kernels("pixelate", parameters, size: size)
    let rendered = try #require(try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions()))
    let lossless = try ImageCodec.decode(rendered).image
    // What the re-encoding route renders before it encodes: the decoded original, pixelated.
    var expected = decoded
    try expected.render(kernels)
    let near = Self.footprints(kernels).map { $0.grown(dx: 32, dy: 32) }
    var (far, farDiffering, inside, insideError) = (0, 0, 0, 0)
    for y in 0..<size.height {
      for x in 0..<size.width {
        let i = (y * size.width + x) * 4
        if near.contains(where: { $0.contains(x: x, y: y) }) {
          for c in 0..<3 { insideError += abs(Int(lossless.bytes[i + c]) - Int(expected.bytes[i + c])) }
          inside += 1
        } else {
          far += 1
          if lossless.bytes[i..<i + 4] != decoded.bytes[i..<i + 4] { farDiffering += 1 }
        }
      }
    }
    #expect(far > 0 && farDiffering == 0)
    // Inside, the pixelation is there, to within the original's quantisation.
    #expect(
      Double(insideError) / Double(3 * inside) < 3, "mean error \(Double(insideError) / Double(3 * inside))")
    #expect(lossless.bytes != decoded.bytes)
  }

  @Test func aCameraPhotoKeepsItsSize() throws {
    let original = try fixture("photos/seeding_by_Clements_Engelhardt.jpg")
    let header = try JPEGMarkers.parseHeader(original, metadata: true)
    let size = ImageSize(header.width, header.height)
    let kernels = try Self.kernels("pixelate", Self.pixelate, size: size)
    var options = EncodeOptions()
    options.metadata = try ImageCodec.decode(original).metadata
    let rendered = try #require(try LosslessJPEG.render(original, kernels: kernels, options: options))
    #expect(
      Double(rendered.count) <= 1.05 * Double(original.count), "\(rendered.count) against \(original.count)")
  }

  @Test func metadataIsWrittenAsTheReencodingRouteWritesIt() throws {
    let original = try fixture("jpeg/icc_profile_big.jpg")
    let decoded = try ImageCodec.decode(original)
    let kernels = try Self.kernels(
      "pixelate", Self.pixelate, size: ImageSize(decoded.image.width, decoded.image.height))
    var options = EncodeOptions()
    options.metadata = decoded.metadata
    let rendered = try #require(try LosslessJPEG.render(original, kernels: kernels, options: options))
    let again = try ImageCodec.decode(rendered)
    #expect(again.metadata.icc != nil)
    #expect(again.metadata.icc == decoded.metadata.icc)
  }

  @Test(arguments: ["jpeg/pil_sample_cmyk.jpg", "jpeg/video-001.cmyk.jpeg"])
  func filesThatAreNotYCbCrOrGreyTakeTheOtherRoute(_ file: String) throws {
    let original = try fixture(file)
    let header = try JPEGMarkers.parseHeader(original, metadata: false)
    let kernels = try Self.kernels("pixelate", Self.pixelate, size: ImageSize(header.width, header.height))
    #expect(try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions()) == nil)
  }

  @Test func aDamagedFileIsAnError() throws {
    let whole = try fixture("jpeg/testorig.jpg")
    let original = Array(whole[..<(whole.count * 2 / 3)])
    let header = try JPEGMarkers.parseHeader(original, metadata: false)
    let kernels = try Self.kernels("pixelate", Self.pixelate, size: ImageSize(header.width, header.height))
    #expect(throws: CodecError.self) {
      _ = try LosslessJPEG.render(original, kernels: kernels, options: EncodeOptions())
    }
  }

  @Test func patchesCoverEveryTouchedCellOnce() {
    let size = ImageSize(1000, 700)
    let cell = ImageSize(16, 16)
    let footprints = [
      PixelRect(x: 5, y: 5, width: 40, height: 300), PixelRect(x: 30, y: 100, width: 200, height: 20),
      PixelRect(x: 990, y: 690, width: 10, height: 10), PixelRect(x: 400, y: 0, width: 1, height: 1),
    ]
    let patches = LosslessJPEG.patches(covering: footprints, in: size, cell: cell, maxRows: 128)
    var covered = [Int](repeating: 0, count: 63 * 44)
    for p in patches {
      #expect(p.x % 16 == 0 && p.y % 16 == 0 && p.height <= 128)
      #expect(p.maxX % 16 == 0 || p.maxX == size.width)
      #expect(p.maxY % 16 == 0 || p.maxY == size.height)
      for cy in (p.y / 16)..<((p.maxY + 15) / 16) {
        for cx in (p.x / 16)..<((p.maxX + 15) / 16) { covered[cy * 63 + cx] += 1 }
      }
    }
    for cy in 0..<44 {
      for cx in 0..<63 {
        let r = PixelRect(x: cx * 16, y: cy * 16, width: 16, height: 16)
        #expect(covered[cy * 63 + cx] == (footprints.contains { $0.intersects(r) } ? 1 : 0))
      }
    }
    #expect(patches == patches.sorted { ($0.y, $0.x) < ($1.y, $1.x) })
  }
}
