#if canImport(Glibc)
  import Glibc
#endif

/// One Huffman table of a JPEG (a DHT entry), ready to decode and encode with.
///
/// Decoding looks the next `lookupBits` bits up in one table (code length and symbol); longer
/// codes are found by length from the canonical codes' largest value per length, as in the JPEG
/// standard's Annex F. Encoding is a code and a length per symbol; a symbol the table lacks has
/// length 0 (optimised tables hold only the symbols their file uses).
struct JPEGHuffmanTable {
  static let lookupBits = 9

  /// `lookupBits` bits -> code length << 8 | symbol; 0 when the code is longer.
  let lookup: UnsafeMutablePointer<UInt16>
  /// Per code length 1...16 (index 0 unused; 17 a sentinel): the largest code of that length
  /// (-1 when none) and what turns a code of that length into its index in `symbols`.
  let maxCode: UnsafeMutablePointer<Int32>
  let valueOffset: UnsafeMutablePointer<Int32>
  let symbols: UnsafeMutablePointer<UInt8>
  /// Per symbol: its code, and its length (0 when the table cannot code it).
  let codes: UnsafeMutablePointer<UInt16>
  let lengths: UnsafeMutablePointer<UInt8>

  /// The table from a DHT entry's 16 counts and its symbols; its memory is freed by `deallocate`
  /// (`JPEGHuffmanStorage` does). A plain value of pointers, so that the decoding loops touch no
  /// reference count.
  ///
  /// - Throws: `.corruptData` when the counts overflow the code space, or a DC table holds a
  ///   symbol over 15 (libjpeg refuses both).
  init(counts: [Int], symbols values: [UInt8], isDC: Bool) throws(CodecError) {
    self.init()
    do { try build(counts: counts, symbols: values, isDC: isDC) } catch {
      deallocate()
      throw error
    }
  }

  private init() {
    lookup = .allocate(capacity: 1 << Self.lookupBits)
    lookup.initialize(repeating: 0, count: 1 << Self.lookupBits)
    maxCode = .allocate(capacity: 18)
    maxCode.initialize(repeating: -1, count: 18)
    valueOffset = .allocate(capacity: 18)
    valueOffset.initialize(repeating: 0, count: 18)
    symbols = .allocate(capacity: 256)
    symbols.initialize(repeating: 0, count: 256)
    codes = .allocate(capacity: 256)
    codes.initialize(repeating: 0, count: 256)
    lengths = .allocate(capacity: 256)
    lengths.initialize(repeating: 0, count: 256)
    maxCode[17] = Int32.max
  }

  private func build(counts: [Int], symbols values: [UInt8], isDC: Bool) throws(CodecError) {
    var code = 0
    var index = 0
    for length in 1...16 {
      let count = counts[length - 1]
      if count > 0 {
        valueOffset[length] = Int32(index - code)
        for _ in 0..<count {
          // The all-ones code of each length is reserved: a table that reaches it is bad.
          guard code < (1 << length) - 1 else {
            throw .corruptData(.jpeg, "bad Huffman table")
          }
          let symbol = values[index]
          if isDC && symbol > 15 { throw .corruptData(.jpeg, "a DC Huffman table with a symbol over 15") }
          symbols[index] = symbol
          // A symbol listed twice keeps its first (shortest) code.
          if lengths[Int(symbol)] == 0 {
            codes[Int(symbol)] = UInt16(code)
            lengths[Int(symbol)] = UInt8(length)
          }
          if length <= Self.lookupBits {
            let shift = Self.lookupBits - length
            for low in 0..<(1 << shift) {
              lookup[code << shift | low] = UInt16(length << 8) | UInt16(symbol)
            }
          }
          code += 1
          index += 1
        }
        maxCode[length] = Int32(code - 1)
      }
      code <<= 1
    }
  }

  func deallocate() {
    lookup.deallocate()
    maxCode.deallocate()
    valueOffset.deallocate()
    symbols.deallocate()
    codes.deallocate()
    lengths.deallocate()
  }

  /// The code length and symbol at the top of `word` (the next bits, most significant first), or
  /// nil when no code matches.
  @inline(__always)
  func decode(_ word: UInt64) -> (length: Int, symbol: Int)? {
    let entry = lookup[Int(truncatingIfNeeded: word >> UInt64(64 - Self.lookupBits))]
    if entry != 0 { return (Int(entry >> 8), Int(entry & 0xFF)) }
    var length = Self.lookupBits + 1
    while length <= 16 {
      let code = Int32(truncatingIfNeeded: word >> UInt64(64 - length))
      if code <= maxCode[length] { return (length, Int(symbols[Int(code + valueOffset[length])])) }
      length += 1
    }
    return nil
  }
}

/// Owns a `JPEGHuffmanTable`'s memory.
final class JPEGHuffmanStorage {
  let table: JPEGHuffmanTable
  init(_ table: JPEGHuffmanTable) { self.table = table }
  deinit { table.deallocate() }
}

/// The zigzag order: `naturalOrder[k]` is the natural (row-major) index of the k-th coefficient
/// in a scan.
let jpegNaturalOrder: [Int] = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7,
  14, 21,
  28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60,
  61,
  54, 47, 55, 62, 63,
]

/// Bits read, most significant first, from unstuffed entropy-coded bytes that are followed by
/// at least `JPEGBitReader.padding` readable bytes (so a peek never needs a bounds check; callers
/// check `position` against `limit` once per block, and a block reads at most 248 bytes).
struct JPEGBitReader {
  static let padding = 512
  let bytes: UnsafePointer<UInt8>
  /// The bits of real data.
  let limit: Int
  var position = 0

  /// The next 57 or more bits, at the top of the word.
  @inline(__always)
  func peek() -> UInt64 {
    UnsafeRawPointer(bytes + (position >> 3)).loadUnaligned(as: UInt64.self).bigEndian << UInt64(position & 7)
  }
}

/// Bits written most significant first into unstuffed bytes, with a capacity fixed up front.
struct JPEGBitWriter {
  let bytes: UnsafeMutablePointer<UInt8>
  let capacity: Int
  /// Whole bytes written.
  var count = 0
  /// Bits not yet written: the low `pending` bits of `accumulator`.
  var accumulator: UInt64 = 0
  var pending = 0

  init(capacity: Int) {
    self.capacity = capacity + 8
    bytes = .allocate(capacity: self.capacity)
  }

  func deallocate() { bytes.deallocate() }

  /// The bits written so far.
  var bitCount: Int { count * 8 + pending }

  /// Writes the low `n` bits of `value` (n <= 32; the bits above them must be 0).
  @inline(__always)
  mutating func put(_ value: UInt64, _ n: Int) {
    accumulator = accumulator << UInt64(n) | value
    pending += n
    if pending >= 32 {
      pending -= 32
      let word = UInt32(truncatingIfNeeded: accumulator >> UInt64(pending))
      UnsafeMutableRawPointer(bytes + count).storeBytes(of: word.bigEndian, as: UInt32.self)
      count += 4
    }
  }

  /// Writes the pending whole bytes.
  @inline(__always)
  mutating func flushBytes() {
    while pending >= 8 {
      pending -= 8
      bytes[count] = UInt8(truncatingIfNeeded: accumulator >> UInt64(pending))
      count += 1
    }
  }

  /// Pads to a whole byte with 1-bits, as JPEG encoders end a scan or a restart interval.
  mutating func padWithOnes() {
    let n = (8 - pending % 8) % 8
    if n > 0 { put((1 << UInt64(n)) - 1, n) }
    flushBytes()
  }

  /// Copies bits `from ..< to` of `source`, at whatever bit position the writer is.
  mutating func copyBits(_ source: UnsafePointer<UInt8>, from: Int, to: Int) {
    var a = from
    guard to > a else { return }
    // The bits up to `a`'s next byte boundary.
    let head = min((8 - (a & 7)) & 7, to - a)
    if head > 0 {
      let byte = UInt64(source[a >> 3]) & ((1 << UInt64(8 - (a & 7))) - 1)
      put(byte >> UInt64(8 - (a & 7) - head), head)
      a += head
    }
    if pending % 8 == 0 {
      flushBytes()
      let n = (to - a) >> 3
      (bytes + count).update(from: source + (a >> 3), count: n)
      count += n
      a += n * 8
    } else {
      while to - a >= 32 {
        let word = UnsafeRawPointer(source + (a >> 3)).loadUnaligned(as: UInt32.self).bigEndian
        put(UInt64(word), 32)
        a += 32
      }
      while to - a >= 8 {
        put(UInt64(source[a >> 3]), 8)
        a += 8
      }
    }
    let tail = to - a
    if tail > 0 { put(UInt64(source[a >> 3]) >> UInt64(8 - tail), tail) }
  }
}

extension JPEGSplice {
  /// The number of bits of `value`'s magnitude (JPEG's "size" category).
  @inline(__always)
  static func magnitudeBits(_ value: Int) -> Int {
    let magnitude = value < 0 ? -value : value
    return magnitude == 0 ? 0 : Int.bitWidth - magnitude.leadingZeroBitCount
  }

  /// Writes a DC difference with `table`. False when the table cannot code it (or it is out of
  /// the range of 8-bit JPEGs).
  @inline(__always)
  static func putDC(_ diff: Int, _ table: JPEGHuffmanTable, _ writer: inout JPEGBitWriter) -> Bool {
    let size = magnitudeBits(diff)
    guard size <= 11 else { return false }
    let length = Int(table.lengths[size])
    guard length > 0 else { return false }
    writer.put(UInt64(table.codes[size]), length)
    if size > 0 {
      let bits = diff < 0 ? diff - 1 : diff
      writer.put(UInt64(truncatingIfNeeded: bits) & ((1 << UInt64(size)) - 1), size)
    }
    return true
  }

  /// Writes one block (64 coefficients in natural order) as libjpeg's baseline Huffman encoder
  /// does: its DC difference from `predictor` (which becomes its DC), then run/size symbols in
  /// zigzag order, ZRL for runs of 16 zeros before a nonzero coefficient, EOB after the last.
  /// False when a table cannot code a symbol.
  static func putBlock(
    _ block: UnsafePointer<Int16>, predictor: inout Int, dc: JPEGHuffmanTable, ac: JPEGHuffmanTable,
    _ writer: inout JPEGBitWriter
  ) -> Bool {
    let value = Int(block[0])
    guard putDC(value - predictor, dc, &writer) else { return false }
    predictor = value
    var run = 0
    for k in 1..<64 {
      let v = Int(block[jpegNaturalOrder[k]])
      if v == 0 {
        run += 1
        continue
      }
      while run > 15 {
        let length = Int(ac.lengths[0xF0])
        guard length > 0 else { return false }
        writer.put(UInt64(ac.codes[0xF0]), length)
        run -= 16
      }
      let size = magnitudeBits(v)
      guard size <= 10 else { return false }
      let symbol = run << 4 | size
      let length = Int(ac.lengths[symbol])
      guard length > 0 else { return false }
      writer.put(UInt64(ac.codes[symbol]), length)
      let bits = v < 0 ? v - 1 : v
      writer.put(UInt64(truncatingIfNeeded: bits) & ((1 << UInt64(size)) - 1), size)
      run = 0
    }
    if run > 0 {
      let length = Int(ac.lengths[0])
      guard length > 0 else { return false }
      writer.put(UInt64(ac.codes[0]), length)
    }
    return true
  }

  /// Reads one DC difference. Throws on a code no table entry matches.
  @inline(__always)
  static func readDC(_ table: JPEGHuffmanTable, _ reader: inout JPEGBitReader) throws(CodecError) -> Int {
    let word = reader.peek()
    guard let code = table.decode(word) else { throw badCode }
    let (length, size) = (code.length, code.symbol)
    reader.position += length + size
    guard size > 0 else { return 0 }
    let bits = Int(truncatingIfNeeded: (word << UInt64(length)) >> UInt64(64 - size))
    return bits < 1 << (size - 1) ? bits - (1 << size) + 1 : bits
  }

  /// Skips one block's AC coefficients, as libjpeg reads them (a run past the 63rd coefficient
  /// ends the block).
  @inline(__always)
  static func skipAC(_ table: JPEGHuffmanTable, _ reader: inout JPEGBitReader) throws(CodecError) {
    var k = 1
    while k < 64 {
      guard let code = table.decode(reader.peek()) else { throw badCode }
      let symbol = code.symbol
      let size = symbol & 15
      reader.position += code.length + size
      if size != 0 {
        k += (symbol >> 4) + 1
      } else if symbol == 0xF0 {
        k += 16
      } else {
        break
      }
    }
  }

  static var badCode: CodecError { .corruptData(.jpeg, "bad Huffman code in the entropy-coded data") }
}
