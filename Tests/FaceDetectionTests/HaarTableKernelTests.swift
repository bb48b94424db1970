import Testing

@testable import PhotoCore

#if canImport(Glibc)
  import Glibc
#endif

/// The vector kernels that make the detector's tables (grey conversion, the pyramid's rows, the
/// integral rows) against plain references: `GreyImage.grey(r:g:b:)`, the scalar
/// `resized(width:height:)` (pinned to OpenCV's output in `HaarCascadeTests`), and sums computed
/// pixel by pixel.
@Suite struct HaarTableKernelTests {
  // MARK: Grey conversion

  /// Every 24-bit colour once (a 4096 × 4096 image), in every vector build this processor runs,
  /// then odd widths for the row tails.
  @Test(arguments: HaarKernel.allCases.filter(\.isAvailable))
  func greyMatchesTheScalarWeightsForEveryColour(_ kernel: HaarKernel) {
    let side = 4096
    var bytes = [UInt8](repeating: 0, count: side * side * 4)
    for i in 0..<(side * side) {
      bytes[4 * i] = UInt8(truncatingIfNeeded: i)
      bytes[4 * i + 1] = UInt8(truncatingIfNeeded: i >> 8)
      bytes[4 * i + 2] = UInt8(truncatingIfNeeded: i >> 16)
      bytes[4 * i + 3] = UInt8(truncatingIfNeeded: i &* 37)
    }
    let grey = GreyImage(Image(width: side, height: side, bytes: bytes), kernel: kernel)
    var mismatches = 0
    for i in 0..<(side * side)
    where grey.pixels[i] != GreyImage.grey(r: bytes[4 * i], g: bytes[4 * i + 1], b: bytes[4 * i + 2]) {
      mismatches += 1
    }
    #expect(mismatches == 0)
  }

  @Test(arguments: [1, 2, 7, 8, 9, 15, 16, 17, 31, 33])
  func greyRowTailsMatchTheScalarWeights(width: Int) {
    let rgba = noiseGrey(width: width * 4, height: 5, seed: UInt32(width)).pixels
    for kernel in HaarKernel.allCases.filter(\.isAvailable) {
      let grey = GreyImage(Image(width: width, height: 5, bytes: rgba), kernel: kernel)
      for i in 0..<(width * 5) {
        #expect(
          grey.pixels[i] == GreyImage.grey(r: rgba[4 * i], g: rgba[4 * i + 1], b: rgba[4 * i + 2]),
          "\(kernel)")
      }
    }
  }

  // MARK: Resized rows

  /// Every row of `image` resized to `width` × `height` by ``GreyImage/ResizedRows``, in order,
  /// with the horizontal passes of the vector build `kernel`.
  func streamedRows(_ image: GreyImage, width: Int, height: Int, kernel: HaarKernel = .best) -> [UInt8] {
    image.pixels.withUnsafeBufferPointer { px in
      streamedRows(
        px.baseAddress!, sourceWidth: image.width, sourceHeight: image.height, width: width, height: height,
        kernel: kernel)
    }
  }

  /// The same from the `sourceWidth` × `sourceHeight` grey levels at `source`.
  func streamedRows(
    _ source: UnsafePointer<UInt8>, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int,
    kernel: HaarKernel
  ) -> [UInt8] {
    var rows = GreyImage.ResizedRows(
      source, width: sourceWidth, height: sourceHeight, to: (width, height), kernel: kernel)
    var out = [UInt8](repeating: 0, count: width * height)
    out.withUnsafeMutableBufferPointer { o in
      for y in 0..<height { rows.row(y, into: o.baseAddress! + y * width) }
    }
    return out
  }

  #if os(Linux)
    /// The vector builds' 8-byte loads never read past the source: with its last byte just
    /// before a page that cannot be read (a read past it kills the test), sources of widths
    /// 200...263 shrunk by about 1.08 and 1.9 (some loads end exactly at the last byte) give the
    /// scalar resize's rows in every build.
    @Test func resizedRowsReadNothingPastTheSource() throws {
      let page = Int(sysconf(Int32(_SC_PAGESIZE)))
      let kernels = HaarKernel.allCases.filter(\.isAvailable)
      for sourceWidth in 200...263 {
        for width in [sourceWidth * 25 / 27, sourceWidth * 10 / 19] {
          let (sourceHeight, height) = (3, 2)
          let count = sourceWidth * sourceHeight
          let length = (count + page - 1) / page * page + page
          let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
          let base = try #require(mapped == MAP_FAILED ? nil : mapped)
          defer { munmap(base, length) }
          let fence = base + (length - page)
          try #require(mprotect(fence, page, PROT_NONE) == 0)
          let source = (fence - count).assumingMemoryBound(to: UInt8.self)
          let image = noiseGrey(width: sourceWidth, height: sourceHeight, seed: UInt32(sourceWidth))
          image.pixels.withUnsafeBufferPointer { source.update(from: $0.baseAddress!, count: count) }
          let expected = image.resized(width: width, height: height, parallel: false).pixels
          for kernel in kernels {
            let out = streamedRows(
              source, sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: width, height: height,
              kernel: kernel)
            #expect(out == expected, "\(sourceWidth) -> \(width) [\(kernel)]")
          }
        }
      }
    }
  #endif

  /// Sources and outputs narrower than one vector, odd widths, one-column and one-row sources,
  /// shrinking and growing; and rows wide enough for the vector builds' shifted loads, shrunk by
  /// just over 1, just under 2 and just over 2 (where four columns no longer fit one load), in
  /// every build this processor runs.
  @Test(arguments: [
    (1, 1, 1, 1), (1, 5, 1, 3), (2, 3, 1, 2), (2, 2, 3, 3), (5, 4, 3, 3), (7, 3, 7, 2), (9, 9, 8, 8),
    (16, 2, 15, 1), (17, 17, 16, 16), (33, 5, 23, 4), (40, 1, 37, 1), (31, 29, 45, 41), (3, 40, 47, 13),
    (255, 19, 221, 17), (1, 30, 19, 20), (30, 1, 19, 1), (300, 7, 277, 5), (301, 5, 161, 3),
    (500, 4, 251, 3), (97, 6, 48, 3), (1000, 3, 480, 2), (64, 3, 57, 2),
  ])
  func resizedRowsMatchTheScalarResize(
    sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
  ) {
    let image = noiseGrey(width: sourceWidth, height: sourceHeight, seed: UInt32(sourceWidth * 31 + width))
    let expected = image.resized(width: width, height: height, parallel: false).pixels
    for kernel in HaarKernel.allCases.filter(\.isAvailable) {
      #expect(streamedRows(image, width: width, height: height, kernel: kernel) == expected, "\(kernel)")
    }
  }

  /// Every scale of the detector's pyramid (factor 1.1) of a 301 × 203 image, as
  /// `HaarDetector.workingSize` sizes them, down to the 24-pixel window; on noise and on extreme
  /// levels (0 and 255 in blocks) where the 16-bit lanes are fullest.
  @Test(arguments: [false, true])
  func resizedRowsMatchAtEveryScaleOfAPyramid(extremes: Bool) throws {
    let cascade = try defaultCascade.get()
    var image = noiseGrey(width: 301, height: 203, seed: 5)
    if extremes {
      for i in image.pixels.indices { image.pixels[i] = (i / 3 + i / 301 / 2) % 2 == 0 ? 255 : 0 }
    }
    var scale: Float = 1
    var checked = 0
    while true {
      let (width, height, _, _) = HaarDetector.workingSize(
        width: 301, height: 203, cascade: cascade, scale: scale)
      if width < 24 || height < 24 { break }
      if width != 301 || height != 203 {
        let expected = image.resized(width: width, height: height, parallel: false).pixels
        #expect(streamedRows(image, width: width, height: height) == expected, "\(width) × \(height)")
        checked += 1
      }
      scale *= 1.1
    }
    #expect(checked >= 20)
  }

  // MARK: Integral rows

  /// The sum of `f(pixel)` over the pixels above and left of grid point (X, Y), wrapped to 32 bits.
  func naiveSum(_ image: GreyImage, _ x: Int, _ y: Int, _ f: (Int) -> Int) -> Int32 {
    var total = 0
    for yy in 0..<y {
      for xx in 0..<x { total += f(Int(image.pixels[yy * image.width + xx])) }
    }
    return Int32(truncatingIfNeeded: total)
  }

  /// The tilted sum at grid point (X, Y): pixels (x, y) with y < Y and |x − X + 1| ≤ Y − y − 1.
  func naiveTilted(_ image: GreyImage, _ x: Int, _ y: Int) -> Int32 {
    var total = 0
    for yy in 0..<y {
      for xx in 0..<image.width where abs(xx - x + 1) <= y - yy - 1 {
        total += Int(image.pixels[yy * image.width + xx])
      }
    }
    return Int32(truncatingIfNeeded: total)
  }

  /// Rows appended one by one hold, entry by entry and in both column layouts, the sums and
  /// squared sums computed pixel by pixel: widths below, at and past one vector, odd and even.
  @Test(arguments: [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 40])
  func integralRowsMatchNaiveSums(width: Int) {
    let height = 6
    let image = noiseGrey(width: width, height: height, seed: UInt32(100 + width))
    for layout in [CascadeEvaluator.Layout.plain, .evenOdd(half: (width + 2) / 2)] {
      for tilted in [false, true] {
        let rows = IntegralRows(
          width: width, capacity: height + 1, layout: layout, tilted: tilted, sourceRows: height)
        image.pixels.withUnsafeBufferPointer { px in
          for y in 0..<height { rows.append(px.baseAddress! + y * width) }
        }
        for y in 0...height {
          for x in 0...width {
            let at = y * rows.stride + layout.column(x)
            #expect(rows.values[at] == naiveSum(image, x, y) { $0 }, "\(layout) (\(x), \(y))")
            #expect(rows.squares[at] == naiveSum(image, x, y) { $0 * $0 }, "\(layout) (\(x), \(y))")
            if tilted {
              #expect(rows.values[rows.tiltedOffset + at] == naiveTilted(image, x, y), "(\(x), \(y))")
            }
          }
        }
      }
    }
  }

  /// White rows 2 003 pixels wide: the squared sums pass 2³² and wrap as OpenCV's `CV_32S` tables
  /// do, and a four-corner difference inside a window is still exact.
  @Test func integralRowsWrapAsOpenCVsDo() {
    let (width, height) = (2003, 40)
    let image = GreyImage(
      width: width, height: height, pixels: [UInt8](repeating: 255, count: width * height))
    for layout in [CascadeEvaluator.Layout.plain, .evenOdd(half: (width + 2) / 2)] {
      let rows = IntegralRows(
        width: width, capacity: height + 1, layout: layout, tilted: false, sourceRows: height)
      image.pixels.withUnsafeBufferPointer { px in
        for y in 0..<height { rows.append(px.baseAddress! + y * width) }
      }
      for (x, y) in [(0, 40), (1, 1), (8, 3), (9, 40), (1999, 39), (2002, 40), (2003, 40), (2003, 17)] {
        let at = y * rows.stride + layout.column(x)
        #expect(rows.values[at] == Int32(truncatingIfNeeded: 255 * x * y))
        #expect(rows.squares[at] == Int32(truncatingIfNeeded: 65025 * x * y))
      }
      // A 24 × 24 window at (1977, 13): its squared sum from four wrapped corners.
      func corner(_ x: Int, _ y: Int) -> Int32 { rows.squares[y * rows.stride + layout.column(x)] }
      #expect(corner(2001, 37) &- corner(1977, 37) &- corner(2001, 13) &+ corner(1977, 13) == 65025 * 576)
    }
  }
}
