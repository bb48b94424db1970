import Foundation

/// The real CenterFace model with weights an attacker changed (issue 35): the structure is
/// untouched, so every check of the file passes, but the biases of its heatmap and size heads
/// are set. A heatmap bias of 20 makes every cell a face candidate (the sigmoid of 20 is 1); a
/// size bias of −8 makes each candidate's box about 0.001 px, so that none overlaps another and
/// every one survives the overlap removal.
public enum PoisonedModel {
  /// Where the tests find the real model: `$PHOTOEDIT_CENTERFACE`, else the cache that
  /// `make model` fills.
  public static let realModelPath: String = {
    let env = ProcessInfo.processInfo.environment
    if let path = env["PHOTOEDIT_CENTERFACE"], !path.isEmpty { return path }
    let cache = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
    return cache + "/photoedit/centerface.onnx"
  }()

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// The real model's bytes with the heatmap head's bias set to `heatmapBias` and the size
  /// head's to `sizeBias`.
  public static func bytes(heatmapBias: Float = 20, sizeBias: Float = -8) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: realModelPath) else {
      throw Failure(description: "\(realModelPath) is missing: run `make model`")
    }
    var bytes = [UInt8](data)
    var graph = Message(bytes: bytes, range: 0..<bytes.count)
    guard let graphRange = graph.fields().first(where: { $0.number == 7 })?.range else {
      throw Failure(description: "no graph")
    }
    graph = Message(bytes: bytes, range: graphRange)
    var nodes: [(op: String, inputs: [String], outputs: [String])] = []
    var biases: [String: Range<Int>] = [:]
    var outputs: [String] = []
    for field in graph.fields() {
      let inner = Message(bytes: bytes, range: field.range)
      switch field.number {
      case 1:
        var node = (op: "", inputs: [String](), outputs: [String]())
        for f in inner.fields() {
          if f.number == 1 { node.inputs.append(inner.string(f.range)) }
          if f.number == 2 { node.outputs.append(inner.string(f.range)) }
          if f.number == 4 { node.op = inner.string(f.range) }
        }
        nodes.append(node)
      case 5:
        let fields = inner.fields()
        if let name = fields.first(where: { $0.number == 8 }),
          let raw = fields.first(where: { $0.number == 9 })
        {
          biases[inner.string(name.range)] = raw.range
        }
      case 12:
        if let name = inner.fields().first(where: { $0.number == 1 }) {
          outputs.append(inner.string(name.range))
        }
      default: break
      }
    }
    func producer(_ value: String) -> (op: String, inputs: [String], outputs: [String])? {
      nodes.first { $0.outputs.contains(value) }
    }
    guard let sigmoid = nodes.first(where: { $0.op == "Sigmoid" }), let heat = producer(sigmoid.inputs[0]),
      outputs.count == 4, let size = producer(outputs[1]), heat.inputs.count == 3, size.inputs.count == 3,
      let heatRange = biases[heat.inputs[2]], let sizeRange = biases[size.inputs[2]]
    else { throw Failure(description: "not the CenterFace graph this test knows") }
    for (range, value) in [(heatRange, heatmapBias), (sizeRange, sizeBias)] {
      for at in stride(from: range.lowerBound, to: range.upperBound, by: 4) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.replaceSubrange(at..<(at + 4), with: $0) }
      }
    }
    return bytes
  }

  /// Protobuf's wire format, as far as finding fields needs.
  private struct Message {
    let bytes: [UInt8]
    let range: Range<Int>

    /// Every field: its number and, for a length-delimited one, the range of its bytes.
    func fields() -> [(number: Int, range: Range<Int>)] {
      var out: [(Int, Range<Int>)] = []
      var i = range.lowerBound
      func varint() -> Int {
        var (v, shift) = (0, 0)
        while i < range.upperBound {
          let b = bytes[i]
          i += 1
          v |= Int(b & 0x7F) << shift
          shift += 7
          if b < 0x80 { break }
        }
        return v
      }
      while i < range.upperBound {
        let key = varint()
        switch key & 7 {
        case 0: _ = varint()
        case 1: i += 8
        case 5: i += 4
        case 2:
          let n = varint()
          out.append((key >> 3, i..<min(i + n, range.upperBound)))
          i += n
        default: return out
        }
      }
      return out
    }

    func string(_ r: Range<Int>) -> String { String(decoding: bytes[r], as: UTF8.self) }
  }
}
