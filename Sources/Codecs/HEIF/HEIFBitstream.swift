/// What the coded pictures libheif hands a decoder say about their own size, read from the
/// bitstream itself before the decoder sees it: an HEVC sequence parameter set (ITU-T H.265
/// 7.3.2.2) or an AV1 sequence header (AV1 specification 5.5). A file's boxes (`ispe`) may say
/// 128x128 while its parameter sets say 20000x20000, and the decoder allocates what the
/// parameter sets say; `HEIFDecodeGuard` refuses the decode before it does.
///
/// No C here: these are pure readers of untrusted bytes, bounded by their input.
struct CodedPictureDemand: Equatable {
  /// The bytes of the largest picture's planes (luma and chroma, 1 byte a sample at 8 bits, 2
  /// above), times the pictures the data codes (a still image codes one).
  var planeBytes: Int

  /// The demand of the HEVC data libheif gives libde265: the `hvcC` parameter sets and the
  /// item's NAL units, each after a 4-byte big-endian length. Nil when the data is not such a
  /// sequence or a parameter set cannot be read (the decode is refused: libde265 could still
  /// allocate from it).
  static func hevc(_ data: UnsafeRawBufferPointer) -> CodedPictureDemand? {
    var largest = 0
    var pictures = 0
    var offset = 0
    while offset < data.count {
      guard data.count - offset >= 4 else { return nil }
      let length =
        Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8
        | Int(data[offset + 3])
      offset += 4
      guard length >= 2, length <= data.count - offset else { return nil }
      let unit = UnsafeRawBufferPointer(rebasing: data[offset..<offset + length])
      offset += length
      let type = Int(unit[0] >> 1) & 0x3f
      switch type {
      case 33:
        guard let bytes = HEVCParameterSet.planeBytes(unit) else { return nil }
        largest = max(largest, bytes)
      case 0...31:
        // A picture's first slice segment: `first_slice_segment_in_pic_flag`, the slice
        // header's first bit, after the 2-byte NAL header.
        if unit.count > 2, unit[2] & 0x80 != 0 { pictures += 1 }
      default: break
      }
    }
    return CodedPictureDemand(planeBytes: saturating(largest, max(pictures, 1)))
  }

  /// The demand of the AV1 data libheif gives dav1d or aom: the `av1C` configuration OBUs and
  /// the item's OBUs. Nil when an OBU or a sequence header cannot be read.
  static func av1(_ data: UnsafeRawBufferPointer) -> CodedPictureDemand? {
    var largest = 0
    var frames = 0
    var offset = 0
    while offset < data.count {
      let header = data[offset]
      guard header & 0x80 == 0 else { return nil }
      let type = Int(header >> 3) & 0x0f
      let hasExtension = header & 0x04 != 0
      let hasSize = header & 0x02 != 0
      offset += hasExtension ? 2 : 1
      guard offset <= data.count else { return nil }
      var size = data.count - offset
      if hasSize {
        guard let (value, used) = leb128(data, at: offset) else { return nil }
        offset += used
        guard value <= data.count - offset else { return nil }
        size = value
      }
      let payload = UnsafeRawBufferPointer(rebasing: data[offset..<offset + size])
      offset += size
      switch type {
      case 1:
        guard let bytes = AV1SequenceHeader.planeBytes(payload) else { return nil }
        largest = max(largest, bytes)
      case 3, 6: frames += 1  // OBU_FRAME_HEADER, OBU_FRAME
      default: break
      }
    }
    return CodedPictureDemand(planeBytes: saturating(largest, max(frames, 1)))
  }

  /// An unsigned LEB128 of at most 8 bytes at `offset`, and the bytes it took.
  private static func leb128(_ data: UnsafeRawBufferPointer, at offset: Int) -> (Int, Int)? {
    var value = 0
    for index in 0..<8 {
      guard offset + index < data.count else { return nil }
      let byte = data[offset + index]
      value |= Int(byte & 0x7f) << (7 * index)
      if byte & 0x80 == 0 { return (value, index + 1) }
    }
    return nil
  }

  /// The planes' bytes of a `width` × `height` picture: luma plus `chroma` (the 4:2:0, 4:2:2,
  /// 4:4:4 or no chroma planes, in quarters of the luma plane), 2 bytes a sample above 8 bits.
  static func planeBytes(width: Int, height: Int, chromaQuarters: Int, bitDepth: Int) -> Int {
    let luma = saturating(width, height)
    let samples = saturating(luma, plus: saturating(luma, chromaQuarters) / 4)
    return saturating(samples, bitDepth > 8 ? 2 : 1)
  }
}

/// A big-endian bit reader over one NAL unit's or OBU's payload; `nil` from every read past its
/// end. `emulationPrevention` drops HEVC's 0x03 after two zero bytes.
private struct BitReader {
  private var bytes: [UInt8]
  private var position = 0

  init(_ data: UnsafeRawBufferPointer, emulationPrevention: Bool) {
    guard emulationPrevention else {
      bytes = Array(data)
      return
    }
    // A parameter set is small: 1 KB of it holds every field read here.
    var out: [UInt8] = []
    out.reserveCapacity(min(data.count, 1024))
    var zeros = 0
    for byte in data.prefix(1024) {
      if zeros >= 2, byte == 3 {
        zeros = 0
        continue
      }
      zeros = byte == 0 ? zeros + 1 : 0
      out.append(byte)
    }
    bytes = out
  }

  mutating func bits(_ count: Int) -> Int? {
    guard count <= 32, position + count <= bytes.count * 8 else { return nil }
    var value = 0
    for _ in 0..<count {
      value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
      position += 1
    }
    return value
  }

  mutating func skip(_ count: Int) -> Bool {
    guard count >= 0, position + count <= bytes.count * 8 else { return false }
    position += count
    return true
  }

  /// An Exp-Golomb ue(v) of at most 31 leading zeros.
  mutating func unsignedExpGolomb() -> Int? {
    var zeros = 0
    while true {
      guard let bit = bits(1) else { return nil }
      if bit == 1 { break }
      zeros += 1
      guard zeros <= 31 else { return nil }
    }
    guard let rest = bits(zeros) else { return nil }
    return (1 << zeros) - 1 + rest
  }
}

/// HEVC's sequence parameter set, read as far as the picture size, chroma format and bit depth.
private enum HEVCParameterSet {
  static func planeBytes(_ unit: UnsafeRawBufferPointer) -> Int? {
    var reader = BitReader(unit, emulationPrevention: true)
    guard reader.skip(16),  // NAL unit header
      reader.skip(4),  // sps_video_parameter_set_id
      let subLayers = reader.bits(3),  // sps_max_sub_layers_minus1
      reader.skip(1),  // sps_temporal_id_nesting_flag
      reader.skip(96)  // general profile, tier and level
    else { return nil }
    var profilePresent: [Bool] = []
    var levelPresent: [Bool] = []
    for _ in 0..<subLayers {
      guard let profile = reader.bits(1), let level = reader.bits(1) else { return nil }
      profilePresent.append(profile == 1)
      levelPresent.append(level == 1)
    }
    if subLayers > 0 { guard reader.skip(2 * (8 - subLayers)) else { return nil } }
    for index in 0..<subLayers {
      if profilePresent[index] { guard reader.skip(88) else { return nil } }
      if levelPresent[index] { guard reader.skip(8) else { return nil } }
    }
    guard reader.unsignedExpGolomb() != nil,  // sps_seq_parameter_set_id
      let chromaFormat = reader.unsignedExpGolomb(), chromaFormat <= 3
    else { return nil }
    if chromaFormat == 3 { guard reader.skip(1) else { return nil } }  // separate_colour_plane_flag
    guard let width = reader.unsignedExpGolomb(), let height = reader.unsignedExpGolomb(),
      let window = reader.bits(1)
    else { return nil }
    if window == 1 {
      for _ in 0..<4 { guard reader.unsignedExpGolomb() != nil else { return nil } }
    }
    guard let lumaDepth = reader.unsignedExpGolomb(), let chromaDepth = reader.unsignedExpGolomb(),
      lumaDepth <= 8, chromaDepth <= 8
    else { return nil }
    let chromaQuarters = [0, 2, 4, 8][chromaFormat]
    return CodedPictureDemand.planeBytes(
      width: width, height: height, chromaQuarters: chromaQuarters,
      bitDepth: 8 + max(lumaDepth, chromaDepth))
  }
}

/// AV1's sequence header OBU (5.5.1), read as far as the largest frame size and the colour
/// configuration (bit depth, monochrome, subsampling).
private enum AV1SequenceHeader {
  static func planeBytes(_ payload: UnsafeRawBufferPointer) -> Int? {
    var reader = BitReader(payload, emulationPrevention: false)
    guard let profile = reader.bits(3), profile <= 2, reader.skip(1),  // still_picture
      let reduced = reader.bits(1)
    else { return nil }
    if reduced == 1 {
      guard reader.skip(5) else { return nil }  // seq_level_idx[0]
    } else {
      guard let timing = reader.bits(1) else { return nil }
      var decoderModel = 0
      var delayLength = 0
      if timing == 1 {
        guard reader.skip(64), let equal = reader.bits(1) else { return nil }
        // num_ticks_per_picture_minus_1, a uvlc(): Exp-Golomb's form (4.10.3).
        if equal == 1 { guard reader.unsignedExpGolomb() != nil else { return nil } }
        guard let model = reader.bits(1) else { return nil }
        decoderModel = model
        if model == 1 {
          guard let length = reader.bits(5), reader.skip(32 + 5 + 5) else { return nil }
          delayLength = length + 1
        }
      }
      guard let displayDelay = reader.bits(1), let points = reader.bits(5) else { return nil }
      for _ in 0...points {
        guard reader.skip(12), let level = reader.bits(5) else { return nil }
        if level > 7 { guard reader.skip(1) else { return nil } }
        if decoderModel == 1 {
          guard let present = reader.bits(1) else { return nil }
          if present == 1 { guard reader.skip(2 * delayLength + 1) else { return nil } }
        }
        if displayDelay == 1 {
          guard let present = reader.bits(1) else { return nil }
          if present == 1 { guard reader.skip(4) else { return nil } }
        }
      }
    }
    guard let widthBits = reader.bits(4), let heightBits = reader.bits(4),
      let width = reader.bits(widthBits + 1), let height = reader.bits(heightBits + 1)
    else { return nil }
    if reduced == 0 {
      guard let frameIDs = reader.bits(1) else { return nil }
      if frameIDs == 1 { guard reader.skip(7) else { return nil } }
    }
    guard reader.skip(3) else { return nil }  // 128x128 superblock, filter intra, intra edge
    if reduced == 0 {
      guard reader.skip(4), let orderHint = reader.bits(1) else { return nil }
      if orderHint == 1 { guard reader.skip(2) else { return nil } }
      guard let choose = reader.bits(1) else { return nil }
      var force = 2
      if choose == 0 {
        guard let value = reader.bits(1) else { return nil }
        force = value
      }
      if force > 0 {
        guard let chooseMV = reader.bits(1) else { return nil }
        if chooseMV == 0 { guard reader.skip(1) else { return nil } }
      }
      if orderHint == 1 { guard reader.skip(3) else { return nil } }
    }
    guard reader.skip(3), let high = reader.bits(1) else { return nil }  // superres, cdef, restoration
    var bitDepth = high == 1 ? 10 : 8
    if profile == 2, high == 1 {
      guard let twelve = reader.bits(1) else { return nil }
      bitDepth = twelve == 1 ? 12 : 10
    }
    var monochrome = 0
    if profile != 1 {
      guard let value = reader.bits(1) else { return nil }
      monochrome = value
    }
    var (primaries, transfer, matrix) = (2, 2, 2)
    guard let described = reader.bits(1) else { return nil }
    if described == 1 {
      guard let p = reader.bits(8), let t = reader.bits(8), let m = reader.bits(8) else { return nil }
      (primaries, transfer, matrix) = (p, t, m)
    }
    var chromaQuarters: Int
    if monochrome == 1 {
      chromaQuarters = 0
    } else if primaries == 1, transfer == 13, matrix == 0 {
      chromaQuarters = 8  // sRGB, identity matrix: 4:4:4
    } else {
      guard reader.skip(1) else { return nil }  // color_range
      switch profile {
      case 0: chromaQuarters = 2
      case 1: chromaQuarters = 8
      default:
        if bitDepth == 12 {
          guard let x = reader.bits(1) else { return nil }
          var y = 0
          if x == 1 {
            guard let value = reader.bits(1) else { return nil }
            y = value
          }
          chromaQuarters = x == 1 ? (y == 1 ? 2 : 4) : 8
        } else {
          chromaQuarters = 4
        }
      }
    }
    return CodedPictureDemand.planeBytes(
      width: width + 1, height: height + 1, chromaQuarters: chromaQuarters, bitDepth: bitDepth)
  }
}
