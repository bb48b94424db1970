#if canImport(Glibc)
  import Glibc
#endif

/// Replaces some MCUs of a baseline JPEG without re-coding the others: the original's
/// entropy-coded bits of every untouched MCU are copied (shifted to where they now start), only
/// the replaced MCUs are Huffman-coded, with the original's own tables, and so is the DC of the
/// MCU after each run of replaced ones (its difference from the DC before it changed).
///
/// It takes a baseline (SOF0/SOF1) 8-bit Huffman JPEG with one scan holding all its components
/// (three interleaved, or one), with or without restart markers. The scan is decoded only as far
/// as the splice needs it: up to the MCU after the last replaced one (and, when the bits after it
/// move by a fraction of a byte, possibly to the end, to find where the last MCU ends); with
/// restart markers, only the restart intervals that hold a replaced MCU are decoded, every other
/// interval is copied byte for byte.
///
/// The splice reads the bytes `init` was given: they must stay alive and unchanged while it is
/// used (as with `withUnsafeBufferPointer`'s closure).
struct JPEGSplice {
  /// A component of the frame, in frame order (the scan's order: others are not spliced).
  struct Component {
    var h: Int, v: Int
    /// Blocks of this component in one MCU (1 in a single-component scan).
    var blocksPerMCU: Int
    /// Their memory is owned by `huffmanTables`.
    var dc: JPEGHuffmanTable, ac: JPEGHuffmanTable
  }

  let jpeg: UnsafeBufferPointer<UInt8>
  let components: [Component]
  /// Every Huffman table the file defines, kept alive for `components`.
  let huffmanTables: [JPEGHuffmanStorage]
  /// MCU size in pixels (8 * max sampling factor; 8 for a single component).
  let mcuWidth: Int, mcuHeight: Int
  let mcusAcross: Int, mcusDown: Int
  /// MCUs per restart interval, 0 when there are no restart markers.
  let restartInterval: Int
  /// The original's DQT, SOF, DHT, DRI and SOS segments, in file order.
  let tables: [UInt8]
  /// The original's JFIF APP0 and Adobe APP14 segments, their fixed fields only (no JFIF
  /// thumbnail): they say how to read the colours, they are not metadata.
  let jfif: [UInt8], adobe: [UInt8]
  /// The stuffed bytes of each restart interval (one range without restart markers), without
  /// their RST markers.
  let intervals: [Range<Int>]
  /// Checkpoints of this scan found ahead (`JPEGScanIndex`), which the splice jumps to rather
  /// than decoding the MCUs before them (`use`).
  private(set) var index: JPEGScanIndex? = nil

  /// A segment (marker, length, data) cut to its first `bytes` bytes of data, its length set
  /// to match: JFIF's and Adobe's fixed fields, without what may follow them (a JFIF thumbnail's
  /// pixels, anything a writer appended).
  private static func fixedPart(of segment: UnsafeBufferPointer<UInt8>, bytes: Int) -> [UInt8] {
    var out = Array(segment.prefix(4 + bytes))
    let length = out.count - 2
    (out[2], out[3]) = (UInt8(length >> 8), UInt8(length & 0xFF))
    return out
  }

  /// The blocks in one MCU, every component's.
  var blocksPerMCU: Int { components.reduce(0) { $0 + $1.blocksPerMCU } }
  var mcuCount: Int { mcusAcross * mcusDown }

  /// Reads the header and finds the scan's restart intervals and its end.
  ///
  /// nil for a file this cannot splice: progressive, arithmetic-coded, lossless, 12-bit, two or
  /// four components, several scans, a scan whose components come in another order than the
  /// frame's, or anything but an end-of-image marker after the scan.
  ///
  /// - Throws: `CodecError` for damaged data: `.notAnImage` without SOI, `.truncated` when the
  ///   file ends before the scan does, `.corruptData` for bad segments, tables or restart markers.
  ///
  /// - Complexity: O(file size), a `memchr` over the entropy-coded data.
  init?(_ jpeg: UnsafeBufferPointer<UInt8>) throws(CodecError) {
    self.jpeg = jpeg
    let n = jpeg.count
    guard n >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw .notAnImage }
    var dcTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
    var acTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
    // Every table made, freed when the splice goes (a table a later one replaces too).
    var storage: [JPEGHuffmanStorage] = []
    var frame: [(id: UInt8, h: Int, v: Int)] = []
    var width = 0
    var height = 0
    var restart = 0
    var tables: [UInt8] = []
    var jfif: [UInt8] = []
    var adobe: [UInt8] = []
    var i = 2
    var scanComponents: [Component] = []
    segments: while true {
      guard i < n, jpeg[i] == 0xFF else {
        if i >= n { throw .truncated(.jpeg) }
        throw .corruptData(.jpeg, "no marker where a segment should start")
      }
      while i < n, jpeg[i] == 0xFF { i += 1 }
      guard i + 2 < n else { throw .truncated(.jpeg) }
      let marker = jpeg[i]
      if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
        i += 1
        continue
      }
      let length = Int(jpeg[i + 1]) << 8 | Int(jpeg[i + 2])
      let start = i + 3
      let end = i + 1 + length
      guard length >= 2 else { throw .corruptData(.jpeg, "bad segment length") }
      guard end <= n else { throw .truncated(.jpeg) }
      let segment = UnsafeBufferPointer(rebasing: jpeg[(i - 1)..<end])
      switch marker {
      case 0xC0, 0xC1:
        guard frame.isEmpty else { throw .corruptData(.jpeg, "two frame headers") }
        guard length >= 8 else { throw .corruptData(.jpeg, "short frame header") }
        guard jpeg[start] == 8 else { return nil }
        height = Int(jpeg[start + 1]) << 8 | Int(jpeg[start + 2])
        width = Int(jpeg[start + 3]) << 8 | Int(jpeg[start + 4])
        let count = Int(jpeg[start + 5])
        guard count >= 1, length >= 8 + 3 * count else { throw .corruptData(.jpeg, "bad frame header") }
        for c in 0..<count {
          let o = start + 6 + 3 * c
          frame.append((jpeg[o], Int(jpeg[o + 1] >> 4), Int(jpeg[o + 1] & 15)))
        }
        guard count == 1 || count == 3, width > 0, height > 0 else { return nil }
        guard frame.allSatisfy({ (1...4).contains($0.h) && (1...4).contains($0.v) }) else {
          throw .corruptData(.jpeg, "bad sampling factors")
        }
        tables += segment
      case 0xC2...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
        return nil  // progressive, lossless, hierarchical or arithmetic-coded
      case 0xC8, 0xCC:
        return nil  // arithmetic coding conditioning, reserved
      case 0xC4:
        var o = start
        while o < end {
          let kind = jpeg[o]
          guard kind >> 4 <= 1, kind & 15 <= 3, o + 17 <= end else {
            throw .corruptData(.jpeg, "bad Huffman table")
          }
          let counts = (0..<16).map { Int(jpeg[o + 1 + $0]) }
          let total = counts.reduce(0, +)
          guard total <= 256, o + 17 + total <= end else { throw .corruptData(.jpeg, "bad Huffman table") }
          let symbols = Array(jpeg[(o + 17)..<(o + 17 + total)])
          let table = try JPEGHuffmanTable(counts: counts, symbols: symbols, isDC: kind >> 4 == 0)
          storage.append(JPEGHuffmanStorage(table))
          if kind >> 4 == 0 { dcTables[Int(kind & 15)] = table } else { acTables[Int(kind & 15)] = table }
          // A later table of the same slot replaces it: the scan uses the last one defined.
          o += 17 + total
        }
        tables += segment
      case 0xDB:
        tables += segment
      case 0xDD:
        guard length == 4 else { throw .corruptData(.jpeg, "bad restart interval segment") }
        restart = Int(jpeg[start]) << 8 | Int(jpeg[start + 1])
        tables += segment
      case 0xE0 where jfif.isEmpty && length >= 7 && jpeg[start..<(start + 5)].elementsEqual("JFIF\0".utf8):
        jfif = Self.fixedPart(of: segment, bytes: 14)
        // No JFIF thumbnail: its width and height (the last two bytes) are 0.
        if jfif.count == 18 { (jfif[16], jfif[17]) = (0, 0) }
      case 0xEE where adobe.isEmpty && length >= 7 && jpeg[start..<(start + 5)].elementsEqual("Adobe".utf8):
        adobe = Self.fixedPart(of: segment, bytes: 12)
      case 0xE0...0xEF, 0xFE:
        break  // metadata: the caller's replaces it
      case 0xDA:
        guard !frame.isEmpty else { throw .corruptData(.jpeg, "scan before the frame header") }
        let count = Int(jpeg[start])
        guard length == 6 + 2 * count else { throw .corruptData(.jpeg, "bad scan header") }
        // One scan of every component, in frame order; baseline's spectral selection.
        guard count == frame.count else { return nil }
        let single = count == 1
        for c in 0..<count {
          let o = start + 1 + 2 * c
          guard jpeg[o] == frame[c].id else { return nil }
          guard let dc = dcTables[Int(jpeg[o + 1] >> 4) & 3], let ac = acTables[Int(jpeg[o + 1] & 15) & 3],
            jpeg[o + 1] >> 4 <= 3, jpeg[o + 1] & 15 <= 3
          else { throw .corruptData(.jpeg, "a scan whose Huffman table is not defined") }
          scanComponents.append(
            Component(
              h: frame[c].h, v: frame[c].v, blocksPerMCU: single ? 1 : frame[c].h * frame[c].v, dc: dc, ac: ac
            ))
        }
        let o = start + 1 + 2 * count
        guard jpeg[o] == 0, jpeg[o + 1] == 63, jpeg[o + 2] == 0 else { return nil }
        guard scanComponents.reduce(0, { $0 + $1.blocksPerMCU }) <= 10 else {
          throw .corruptData(.jpeg, "more than 10 blocks in an MCU")
        }
        tables += segment
        i = end
        break segments
      default:
        return nil  // DNL, DHP, EXP, JPGn: not what this splices
      }
      i = end
    }
    components = scanComponents
    huffmanTables = storage
    let hmax = frame.map(\.h).max() ?? 1
    let vmax = frame.map(\.v).max() ?? 1
    if frame.count == 1 {
      // A single-component scan's MCU is one block of that component's own sampling.
      mcuWidth = 8
      mcuHeight = 8
      mcusAcross = (width * frame[0].h + 8 * hmax - 1) / (8 * hmax)
      mcusDown = (height * frame[0].v + 8 * vmax - 1) / (8 * vmax)
    } else {
      mcuWidth = 8 * hmax
      mcuHeight = 8 * vmax
      mcusAcross = (width + mcuWidth - 1) / mcuWidth
      mcusDown = (height + mcuHeight - 1) / mcuHeight
    }
    restartInterval = restart
    self.tables = tables
    self.jfif = jfif
    self.adobe = adobe

    // The entropy-coded data: up to the first marker that is not RSTn (FF 00 is a stuffed FF).
    var intervals: [Range<Int>] = []
    var intervalStart = i
    var j = i
    guard let base = jpeg.baseAddress else { throw .truncated(.jpeg) }
    while true {
      guard j < n, let hit = memchr(base + j, 0xFF, n - j) else { throw .truncated(.jpeg) }
      let ff = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
      var k = ff + 1
      while k < n, jpeg[k] == 0xFF { k += 1 }  // fill bytes before a marker
      guard k < n else { throw .truncated(.jpeg) }
      let marker = jpeg[k]
      if marker == 0x00 && k == ff + 1 {
        j = k + 1
        continue
      }
      guard marker != 0x00 else { throw .corruptData(.jpeg, "fill bytes inside the entropy-coded data") }
      intervals.append(intervalStart..<ff)
      guard (0xD0...0xD7).contains(marker) else {
        guard marker == 0xD9 else { return nil }  // another scan, DNL, ...
        break
      }
      guard restart > 0 else {
        throw .corruptData(.jpeg, "a restart marker in a scan without restart interval")
      }
      guard Int(marker - 0xD0) == (intervals.count - 1) & 7 else {
        throw .corruptData(.jpeg, "restart markers out of sequence")
      }
      intervalStart = k + 1
      j = k + 1
    }
    let total = mcusAcross * mcusDown
    let expected = restart > 0 ? (total + restart - 1) / restart : 1
    guard intervals.count == expected else {
      throw .corruptData(
        .jpeg,
        "the scan has \(intervals.count) restart intervals, not the \(expected) its restart interval makes")
    }
    self.intervals = intervals
  }

  /// The file with the MCUs `replaced` holds in place of the original's: SOI, the original's
  /// JFIF segment (if any), `metadataSegments`, the original's Adobe segment (if any), its DQT,
  /// SOF, DHT, DRI and SOS segments, the new entropy-coded data, EOI.
  ///
  /// - Parameter replaced: MCU index (raster order) -> that MCU's blocks, component by component,
  ///   each component's blocks in raster order within the MCU, each block 64 coefficients in
  ///   natural order (libjpeg's JBLOCK), quantised with the file's tables. Each MCU at most once.
  /// - Returns: nil when the file's Huffman tables cannot code a replaced block (optimised
  ///   tables hold only the symbols their file uses) or a coefficient is out of baseline's range.
  /// - Throws: `.corruptData` when the entropy-coded data that must be decoded is damaged.
  ///
  /// - Complexity: O(file size) for the copies, plus decoding the scan up to the MCU after the
  ///   last replaced one (the restart intervals holding replaced MCUs, with restart markers).
  func splice(_ replaced: [(mcu: Int, blocks: [Int16])], metadataSegments: [UInt8]) throws(CodecError)
    -> [UInt8]?
  {
    let sorted = replaced.sorted { $0.mcu < $1.mcu }
    return try splice(mcus: sorted.map(\.mcu), metadataSegments: metadataSegments) { sorted[$0].blocks }
  }

  /// As `splice(_:metadataSegments:)`, with the replaced MCUs' indices `mcus` (ascending) known
  /// ahead and their blocks asked for one at a time, in order, as the splice reaches them:
  /// `blocks(k)` gives MCU `mcus[k]`'s (it may wait for them to be made, on another thread, while
  /// the splice decodes the data before them), or nil to give up (the splice then returns nil).
  func splice(mcus replaced: [Int], metadataSegments: [UInt8], blocks: (Int) -> [Int16]?) throws(CodecError)
    -> [UInt8]?
  {
    for (k, m) in replaced.enumerated() {
      precondition((0..<mcuCount).contains(m), "MCU \(m) is not in the image")
      precondition(k == 0 || replaced[k - 1] < m, "the MCUs are in order, each once")
    }
    var out: [UInt8] = []
    out.reserveCapacity(jpeg.count + metadataSegments.count + replaced.count * blocksPerMCU * 64 + 1024)
    out += [0xFF, 0xD8]
    out += jfif
    out += metadataSegments
    out += adobe
    out += tables
    let mcusPerInterval = restartInterval > 0 ? restartInterval : mcuCount
    var next = 0
    for (index, range) in intervals.enumerated() {
      if index > 0 { out += [0xFF, 0xD0 + UInt8((index - 1) & 7)] }
      let first = index * mcusPerInterval
      let mcus = first..<min(first + mcusPerInterval, mcuCount)
      var end = next
      while end < replaced.count, replaced[end] < mcus.upperBound { end += 1 }
      if end == next {
        out += UnsafeBufferPointer(rebasing: jpeg[range])
        continue
      }
      guard
        try spliceInterval(
          range, mcus: mcus, replaced[next..<end], blocks: blocks, exactEnd: restartInterval > 0, into: &out)
      else { return nil }
      next = end
    }
    out += [0xFF, 0xD9]
    return out
  }

  /// Splices one restart interval (the whole scan without restart markers) that holds replaced
  /// MCUs, appending its stuffed bytes to `out`. With `exactEnd`, every MCU of the interval is
  /// decoded, so that it ends exactly where its last MCU does; otherwise decoding stops after the
  /// MCU after the last replaced one when the original's last byte shows where to end.
  private func spliceInterval(
    _ range: Range<Int>, mcus: Range<Int>, _ replaced: ArraySlice<Int>, blocks: (Int) -> [Int16]?,
    exactEnd: Bool,
    into out: inout [UInt8]
  ) throws(CodecError) -> Bool {
    let source = Self.unstuff(UnsafeBufferPointer(rebasing: jpeg[range]))
    defer { source.deallocate() }
    let sourceBytes = source.count - JPEGBitReader.padding
    var reader = JPEGBitReader(bytes: UnsafePointer(source.baseAddress!), limit: sourceBytes * 8)
    var writer = JPEGBitWriter(capacity: sourceBytes + replaced.count * (blocksPerMCU * 256 + 64) + 64)
    defer { writer.deallocate() }
    let bytes = reader.bytes

    let count = components.count
    let componentList = UnsafeMutableBufferPointer<Component>.allocate(capacity: count)
    _ = componentList.initialize(from: components)
    defer { componentList.deallocate() }
    var predictors = [Int](repeating: 0, count: count)
    var written = [Int](repeating: 0, count: count)
    var copied = 0
    var afterRun = false
    var r = replaced.startIndex
    let last = replaced[replaced.index(before: replaced.endIndex)]
    let stop = exactEnd ? mcus.upperBound : min(last + 2, mcus.upperBound)
    var m = mcus.lowerBound

    func checkPosition(_ reader: JPEGBitReader) throws(CodecError) {
      guard reader.position <= reader.limit else {
        throw .corruptData(.jpeg, "the entropy-coded data ends before the last MCU")
      }
    }
    while m < stop {
      if r < replaced.endIndex && replaced[r] == m {
        try checkPosition(reader)
        writer.copyBits(bytes, from: copied, to: reader.position)
        if !afterRun { written = predictors }
        for c in 0..<count {
          for _ in 0..<components[c].blocksPerMCU {
            try checkPosition(reader)
            predictors[c] += try Self.readDC(components[c].dc, &reader)
            try Self.skipAC(components[c].ac, &reader)
          }
        }
        copied = reader.position
        guard let coefficients = blocks(r), coefficients.count == blocksPerMCU * 64 else { return false }
        let ok = coefficients.withUnsafeBufferPointer { blocks -> Bool in
          var block = blocks.baseAddress!
          for c in 0..<count {
            for _ in 0..<components[c].blocksPerMCU {
              guard
                Self.putBlock(
                  block, predictor: &written[c], dc: components[c].dc, ac: components[c].ac, &writer)
              else { return false }
              block += 64
            }
          }
          return true
        }
        guard ok else { return false }
        afterRun = true
        r += 1
      } else if afterRun {
        // The first block of each component predicts its DC from the replaced MCU before it.
        for c in 0..<count {
          for b in 0..<components[c].blocksPerMCU {
            try checkPosition(reader)
            let start = reader.position
            predictors[c] += try Self.readDC(components[c].dc, &reader)
            if b == 0 {
              writer.copyBits(bytes, from: copied, to: start)
              guard Self.putDC(predictors[c] - written[c], components[c].dc, &writer) else { return false }
              copied = reader.position
            }
            try Self.skipAC(components[c].ac, &reader)
          }
        }
        afterRun = false
      } else {
        if let (mcu, position) = index?.checkpoint(
          after: m, upTo: r < replaced.endIndex ? replaced[r] : stop - 1, in: mcus, predictors: &predictors)
        {
          (m, reader.position) = (mcu, position)
          continue
        }
        try skipMCU(UnsafeBufferPointer(componentList), &reader, &predictors)
      }
      m += 1
    }
    try checkPosition(reader)

    if m < mcus.upperBound {
      // Decoding stopped early: the rest is copied up to the original's last byte. When it moves
      // by a fraction of a byte, the original's padding (1-bits, at most 7) would come before
      // ours; that is harmless only when both make less than a byte (a whole byte of padding is
      // data a decoder reads as junk), which the original's trailing 1-bits may tell.
      let shift = (writer.bitCount - copied) & 7
      let trailingOnes = sourceBytes > 0 ? (~bytes[sourceBytes - 1]).trailingZeroBitCount : 0
      if shift == 0 || trailingOnes < shift {
        writer.copyBits(bytes, from: copied, to: reader.limit)
        writer.padWithOnes()
        Self.stuff(writer, into: &out)
        return true
      }
      while m < mcus.upperBound {
        if let (mcu, position) = index?.checkpoint(
          after: m, upTo: mcus.upperBound - 1, in: mcus, predictors: &predictors)
        {
          (m, reader.position) = (mcu, position)
          continue
        }
        try skipMCU(UnsafeBufferPointer(componentList), &reader, &predictors)
        m += 1
      }
      try checkPosition(reader)
    }
    writer.copyBits(bytes, from: copied, to: reader.position)
    writer.padWithOnes()
    Self.stuff(writer, into: &out)
    return true
  }

  /// Where the scan's last MCU ends and how many bits of data it has (unstuffed), for a file
  /// without restart markers: a decoder reads everything after that end (fewer than 8 bits, when
  /// the file is well made) as padding.
  func scanBits() throws(CodecError) -> (end: Int, total: Int) {
    precondition(restartInterval == 0, "a scan with restart markers ends at each interval")
    let source = Self.unstuff(UnsafeBufferPointer(rebasing: jpeg[intervals[0]]))
    defer { source.deallocate() }
    var reader = JPEGBitReader(
      bytes: UnsafePointer(source.baseAddress!), limit: (source.count - JPEGBitReader.padding) * 8)
    var predictors = [Int](repeating: 0, count: components.count)
    try components.withUnsafeBufferPointer { list throws(CodecError) in
      for _ in 0..<mcuCount { try skipMCU(list, &reader, &predictors) }
    }
    return (reader.position, reader.limit)
  }

  /// Makes the splice jump to `index`'s checkpoints; an index of other bytes is not used.
  mutating func use(_ index: JPEGScanIndex?) {
    self.index = index.flatMap { $0.covers(jpeg) ? $0 : nil }
  }

  /// Decodes one MCU, keeping only its DC predictors.
  @inline(__always)
  func skipMCU(
    _ components: UnsafeBufferPointer<Component>, _ reader: inout JPEGBitReader, _ predictors: inout [Int]
  ) throws(CodecError) {
    for c in 0..<components.count {
      let component = components[c]
      for _ in 0..<component.blocksPerMCU {
        guard reader.position <= reader.limit else {
          throw .corruptData(.jpeg, "the entropy-coded data ends before the last MCU")
        }
        predictors[c] += try Self.readDC(component.dc, &reader)
        try Self.skipAC(component.ac, &reader)
      }
    }
  }

  /// The bytes of `stuffed` without the 00 after each FF, followed by `JPEGBitReader.padding`
  /// zero bytes. Every FF in `stuffed` is followed by 00 (`init` cut the intervals at markers).
  static func unstuff(_ stuffed: UnsafeBufferPointer<UInt8>) -> UnsafeMutableBufferPointer<UInt8> {
    let out = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stuffed.count + JPEGBitReader.padding)
    guard let base = stuffed.baseAddress, let target = out.baseAddress else {
      out.initialize(repeating: 0)
      return out
    }
    let n = stuffed.count
    var i = 0
    var o = 0
    while i < n {
      let hit = memchr(base + i, 0xFF, n - i)
      let stop = hit.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1 } ?? n
      (target + o).initialize(from: base + i, count: stop - i)
      o += stop - i
      i = stop + (hit == nil ? 0 : 1)  // skip the stuffed 00
    }
    (target + o).initialize(repeating: 0, count: out.count - o)
    return UnsafeMutableBufferPointer(rebasing: out[0..<(o + JPEGBitReader.padding)])
  }

  /// Appends the writer's bytes to `out` with a 00 after each FF.
  static func stuff(_ writer: JPEGBitWriter, into out: inout [UInt8]) {
    let base = UnsafePointer(writer.bytes)
    let n = writer.count
    var i = 0
    while i < n {
      let hit = memchr(base + i, 0xFF, n - i)
      let stop = hit.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1 } ?? n
      out.append(contentsOf: UnsafeBufferPointer(start: base + i, count: stop - i))
      if hit != nil { out.append(0) }
      i = stop
    }
  }
}
