/// The parts of an ONNX model (onnx.proto3) that CenterFace needs, read from the file's bytes.
///
/// Only the fields below are decoded; every other field is skipped by its wire type. Everything
/// read is bounded by `ONNXLimits`.
struct ONNXModel {
  var irVersion: Int64 = 0
  /// (domain, version) of each operator set imported; "" is the default ONNX domain.
  var opsets: [(domain: String, version: Int64)] = []
  var graph = ONNXGraph()
}

struct ONNXGraph {
  var nodes: [ONNXNode] = []
  var initializers: [ONNXTensor] = []
  var inputs: [ONNXValueInfo] = []
  var outputs: [ONNXValueInfo] = []
}

struct ONNXNode {
  var name = ""
  var opType = ""
  var domain = ""
  var inputs: [String] = []
  var outputs: [String] = []
  var attributes: [ONNXAttribute] = []
}

struct ONNXAttribute {
  enum Value: Equatable {
    case int(Int64)
    case float(Float)
    case ints([Int64])
    case floats([Float])
    case string([UInt8])
    /// A tensor, graph or any other kind this reader does not decode (AttributeProto's type).
    case other(Int64)
  }
  var name = ""
  var value = Value.other(0)
}

struct ONNXTensor {
  var name = ""
  /// TensorProto.DataType: 1 is FLOAT, 7 is INT64.
  var dataType: Int32 = 0
  var dims: [Int] = []
  /// The values, for FLOAT tensors stored in the file (raw_data or float_data); nil otherwise.
  var floats: [Float]? = nil
  /// True when the values live in another file (data_location EXTERNAL).
  var isExternal = false

  var elementCount: Int { dims.reduce(1, *) }
}

struct ONNXValueInfo {
  enum Dimension: Equatable {
    case value(Int64)
    case parameter(String)
    case unknown
  }
  var name = ""
  /// The tensor element type (1 is FLOAT), nil when the type is not a tensor or is missing.
  var elementType: Int32? = nil
  /// nil when no shape is given.
  var shape: [Dimension]? = nil
}

/// What the reader accepts from a file, at most. CenterFace's own file is far inside each one.
enum ONNXLimits {
  static let fileBytes = 64 << 20
  static let nodes = 4096
  static let initializers = 4096
  static let graphValues = 4096
  static let namesPerNode = 16
  static let attributesPerNode = 32
  static let arrayAttributeLength = 64
  static let stringBytes = 4096
  static let dims = 8
  static let dimValue = 1 << 24
  /// Floats in one tensor, and in all of them together.
  static let tensorElements = 16 << 20
}

extension ONNXModel {
  /// Parses a ModelProto.
  ///
  /// - Throws: `.tooLarge` past `ONNXLimits`, `.truncated` and `.malformed` for broken protobuf,
  ///   `.notONNX` when there is no graph or no IR version.
  init(bytes: [UInt8]) throws(CenterFaceError) {
    guard bytes.count <= ONNXLimits.fileBytes else {
      throw .tooLarge("\(bytes.count) bytes (at most \(ONNXLimits.fileBytes))")
    }
    guard !bytes.isEmpty else { throw .notONNX("the file is empty") }
    var reader = ProtobufReader(bytes, range: 0..<bytes.count)
    var sawGraph = false
    var sawIR = false
    var floatTotal = 0
    do throws(CenterFaceError) {
      while let (number, value) = try reader.next() {
        switch number {
        case 1:
          irVersion = try value.int64(field: "ir_version")
          sawIR = true
        case 7:
          guard !sawGraph else { throw CenterFaceError.unexpectedGraph("more than one graph") }
          graph = try ONNXGraph(bytes, range: value.range(field: "graph"), floatTotal: &floatTotal)
          sawGraph = true
        case 8:
          opsets.append(try Self.opset(bytes, range: value.range(field: "opset_import")))
          guard opsets.count <= 64 else { throw CenterFaceError.tooLarge("more than 64 operator sets") }
        default: break
        }
      }
    } catch .malformed(let why) where !sawGraph {
      // Bytes that are not protobuf at all (a JPEG, a text file) fail before any graph.
      throw .notONNX("not a protobuf ModelProto (\(why))")
    } catch .truncated where !sawGraph && !sawIR {
      throw .notONNX("not a protobuf ModelProto")
    }
    guard sawIR else { throw .notONNX("no ir_version") }
    guard sawGraph else { throw .notONNX("no graph") }
  }

  private static func opset(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) -> (String, Int64) {
    var reader = ProtobufReader(bytes, range: range)
    var domain = ""
    var version: Int64 = 0
    while let (number, value) = try reader.next() {
      switch number {
      case 1: domain = try string(bytes, value, field: "opset domain")
      case 2: version = try value.int64(field: "opset version")
      default: break
      }
    }
    return (domain, version)
  }
}

/// A UTF-8 string field of at most `ONNXLimits.stringBytes` bytes (invalid UTF-8 is replaced).
func string(_ bytes: [UInt8], _ value: ProtobufReader.Value, field: String) throws(CenterFaceError) -> String
{
  let r = try value.range(field: field)
  guard r.count <= ONNXLimits.stringBytes else { throw .tooLarge("\(field) of \(r.count) bytes") }
  return String(decoding: bytes[r], as: UTF8.self)
}

extension ONNXGraph {
  init(_ bytes: [UInt8], range: Range<Int>, floatTotal: inout Int) throws(CenterFaceError) {
    var reader = ProtobufReader(bytes, range: range)
    while let (number, value) = try reader.next() {
      switch number {
      case 1:
        guard nodes.count < ONNXLimits.nodes else { throw .tooLarge("more than \(ONNXLimits.nodes) nodes") }
        nodes.append(try ONNXNode(bytes, range: value.range(field: "node")))
      case 5:
        guard initializers.count < ONNXLimits.initializers else {
          throw .tooLarge("more than \(ONNXLimits.initializers) initializers")
        }
        let tensor = try ONNXTensor(bytes, range: value.range(field: "initializer"))
        floatTotal += tensor.floats?.count ?? 0
        guard floatTotal <= ONNXLimits.tensorElements else {
          throw .tooLarge("more than \(ONNXLimits.tensorElements) parameters")
        }
        initializers.append(tensor)
      case 11, 12:
        guard inputs.count + outputs.count < ONNXLimits.graphValues else {
          throw .tooLarge("more than \(ONNXLimits.graphValues) graph inputs and outputs")
        }
        let info = try ONNXValueInfo(bytes, range: value.range(field: "value info"))
        if number == 11 { inputs.append(info) } else { outputs.append(info) }
      case 15:
        throw .unexpectedGraph("sparse initializers")
      default: break
      }
    }
  }
}

extension ONNXNode {
  init(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) {
    var reader = ProtobufReader(bytes, range: range)
    while let (number, value) = try reader.next() {
      switch number {
      case 1, 2:
        guard inputs.count + outputs.count < ONNXLimits.namesPerNode else {
          throw .tooLarge("a node with more than \(ONNXLimits.namesPerNode) inputs and outputs")
        }
        let name = try string(bytes, value, field: "node input")
        if number == 1 { inputs.append(name) } else { outputs.append(name) }
      case 3: name = try string(bytes, value, field: "node name")
      case 4: opType = try string(bytes, value, field: "op_type")
      case 7: domain = try string(bytes, value, field: "node domain")
      case 5:
        guard attributes.count < ONNXLimits.attributesPerNode else {
          throw .tooLarge("a node with more than \(ONNXLimits.attributesPerNode) attributes")
        }
        attributes.append(try ONNXAttribute(bytes, range: value.range(field: "attribute")))
      default: break
      }
    }
  }
}

extension ONNXAttribute {
  init(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) {
    var reader = ProtobufReader(bytes, range: range)
    var type: Int64? = nil
    var f: Float? = nil
    var i: Int64? = nil
    var s: [UInt8]? = nil
    var ints: [Int64] = []
    var floats: [Float] = []
    var sawOther = false
    while let (number, value) = try reader.next() {
      switch number {
      case 1: name = try string(bytes, value, field: "attribute name")
      case 20: type = try value.int64(field: "attribute type")
      case 2: f = try value.float(field: "attribute f")
      case 3: i = try value.int64(field: "attribute i")
      case 4:
        let r = try value.range(field: "attribute s")
        guard r.count <= ONNXLimits.stringBytes else {
          throw .tooLarge("attribute string of \(r.count) bytes")
        }
        s = Array(bytes[r])
      case 7:
        try appendFloats(
          bytes, value, to: &floats, limit: ONNXLimits.arrayAttributeLength, field: "attribute floats")
      case 8:
        try appendVarints(
          bytes, value, to: &ints, limit: ONNXLimits.arrayAttributeLength, field: "attribute ints")
      case 5, 6, 9, 10, 11, 14, 15, 22, 23: sawOther = true
      default: break
      }
    }
    // AttributeProto.type: FLOAT 1, INT 2, STRING 3, FLOATS 6, INTS 7. Old writers leave it out.
    switch type {
    case 1?: self.value = .float(f ?? 0)
    case 2?: self.value = .int(i ?? 0)
    case 3?: self.value = .string(s ?? [])
    case 6?: self.value = .floats(floats)
    case 7?: self.value = .ints(ints)
    case let t?: self.value = .other(t)
    case nil:
      if sawOther {
        self.value = .other(0)
      } else if let i {
        self.value = .int(i)
      } else if let f {
        self.value = .float(f)
      } else if let s {
        self.value = .string(s)
      } else if !floats.isEmpty {
        self.value = .floats(floats)
      } else {
        self.value = .ints(ints)
      }
    }
  }
}

extension ONNXTensor {
  init(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) {
    var reader = ProtobufReader(bytes, range: range)
    var raw: Range<Int>? = nil
    var floatData: [Float] = []
    var dims64: [Int64] = []
    while let (number, value) = try reader.next() {
      switch number {
      case 1: try appendVarints(bytes, value, to: &dims64, limit: ONNXLimits.dims, field: "tensor dims")
      case 2:
        let t = try value.int64(field: "tensor data_type")
        guard t >= 0 && t <= 64 else { throw .malformed("tensor data_type \(t)") }
        dataType = Int32(t)
      case 4:
        try appendFloats(bytes, value, to: &floatData, limit: ONNXLimits.tensorElements, field: "float_data")
      case 8: name = try string(bytes, value, field: "tensor name")
      case 9: raw = try value.range(field: "raw_data")
      case 14: isExternal = try value.int64(field: "data_location") == 1
      case 3: throw .unexpectedGraph("a segmented tensor")
      default: break
      }
    }
    var count = 1
    for d in dims64 {
      guard d >= 0 && d <= Int64(ONNXLimits.dimValue) else {
        throw .tooLarge("tensor \(name) has dimension \(d)")
      }
      let (product, overflow) = count.multipliedReportingOverflow(by: Int(d))
      guard !overflow && product <= ONNXLimits.tensorElements else {
        throw .tooLarge("tensor \(name) has more than \(ONNXLimits.tensorElements) elements")
      }
      count = product
    }
    dims = dims64.map { Int($0) }
    guard dataType == 1, !isExternal else { return }
    if let raw {
      guard floatData.isEmpty else { throw .malformed("tensor \(name) has both raw_data and float_data") }
      guard raw.count == count * 4 else {
        throw .unexpectedGraph("tensor \(name) has \(raw.count) bytes of raw_data for \(count) floats")
      }
      var values = [Float](repeating: 0, count: count)
      for j in 0..<count {
        values[j] = Float(bitPattern: ProtobufReader.fixed32(bytes, at: raw.lowerBound + 4 * j))
      }
      floats = values
    } else {
      guard floatData.count == count else {
        throw .unexpectedGraph("tensor \(name) has \(floatData.count) floats for dims \(dims)")
      }
      floats = floatData
    }
  }
}

extension ONNXValueInfo {
  init(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) {
    var reader = ProtobufReader(bytes, range: range)
    while let (number, value) = try reader.next() {
      switch number {
      case 1: name = try string(bytes, value, field: "value name")
      case 2: try readType(bytes, range: value.range(field: "type"))
      default: break
      }
    }
  }

  /// TypeProto → tensor_type (1) → elem_type (1), shape (2) → dim (1) → dim_value (1) / dim_param (2).
  private mutating func readType(_ bytes: [UInt8], range: Range<Int>) throws(CenterFaceError) {
    var type = ProtobufReader(bytes, range: range)
    while let (number, value) = try type.next() {
      guard number == 1 else { continue }
      var tensor = ProtobufReader(bytes, range: try value.range(field: "tensor_type"))
      while let (number, value) = try tensor.next() {
        if number == 1 {
          let t = try value.int64(field: "elem_type")
          guard t >= 0 && t <= 64 else { throw .malformed("elem_type \(t)") }
          elementType = Int32(t)
        } else if number == 2 {
          var dims: [Dimension] = []
          var shape = ProtobufReader(bytes, range: try value.range(field: "shape"))
          while let (number, value) = try shape.next() {
            guard number == 1 else { continue }
            guard dims.count < ONNXLimits.dims else {
              throw .tooLarge("a shape of more than \(ONNXLimits.dims) dimensions")
            }
            var dimension = Dimension.unknown
            var dim = ProtobufReader(bytes, range: try value.range(field: "dim"))
            while let (number, value) = try dim.next() {
              if number == 1 {
                dimension = .value(try value.int64(field: "dim_value"))
              } else if number == 2 {
                dimension = .parameter(try string(bytes, value, field: "dim_param"))
              }
            }
            dims.append(dimension)
          }
          self.shape = dims
        }
      }
    }
  }
}

/// Appends a repeated varint field, packed (length-delimited) or one value per field.
private func appendVarints(
  _ bytes: [UInt8], _ value: ProtobufReader.Value, to array: inout [Int64], limit: Int, field: String
) throws(CenterFaceError) {
  switch value {
  case .varint(let v):
    array.append(Int64(bitPattern: v))
  case .bytes(let r):
    var reader = ProtobufReader(bytes, range: r)
    while !reader.isAtEnd {
      array.append(Int64(bitPattern: try reader.varint()))
      guard array.count <= limit else { throw .tooLarge("\(field) longer than \(limit)") }
    }
  default: throw .malformed("\(field) has the wrong wire type")
  }
  guard array.count <= limit else { throw .tooLarge("\(field) longer than \(limit)") }
}

/// Appends a repeated float field, packed (length-delimited) or one value per field.
private func appendFloats(
  _ bytes: [UInt8], _ value: ProtobufReader.Value, to array: inout [Float], limit: Int, field: String
) throws(CenterFaceError) {
  switch value {
  case .fixed32(let v):
    array.append(Float(bitPattern: v))
  case .bytes(let r):
    guard r.count % 4 == 0 else { throw .malformed("\(field) of \(r.count) bytes") }
    guard array.count + r.count / 4 <= limit else { throw .tooLarge("\(field) longer than \(limit)") }
    array.reserveCapacity(array.count + r.count / 4)
    var offset = r.lowerBound
    while offset < r.upperBound {
      array.append(Float(bitPattern: ProtobufReader.fixed32(bytes, at: offset)))
      offset += 4
    }
  default: throw .malformed("\(field) has the wrong wire type")
  }
  guard array.count <= limit else { throw .tooLarge("\(field) longer than \(limit)") }
}
