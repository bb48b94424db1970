/// Why a CenterFace model file was refused. Each case carries the fact; `description` reads as
/// one line.
public enum CenterFaceError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The bytes are not an ONNX model (no graph, or not protobuf at all).
  case notONNX(String)
  /// The file ends inside a field.
  case truncated
  /// A protobuf field that cannot be read (a bad wire type, an overlong varint, a bad size).
  case malformed(String)
  /// A size or count past what this reader accepts from a file (the file is untrusted).
  case tooLarge(String)
  /// A node whose operator the engine does not run.
  case unsupportedOperator(String)
  /// Anything else that is not the graph the engine runs: shapes, attributes, wiring, versions.
  case unexpectedGraph(String)

  public var description: String {
    switch self {
    case .notONNX(let why): "not an ONNX model: \(why)"
    case .truncated: "truncated ONNX file"
    case .malformed(let why): "malformed ONNX file: \(why)"
    case .tooLarge(let why): "ONNX file too large for CenterFace: \(why)"
    case .unsupportedOperator(let op):
      "unsupported ONNX operator \(op) (CenterFace runs Conv, ConvTranspose, BatchNormalization, Relu, Add, Sigmoid)"
    case .unexpectedGraph(let why): "not a CenterFace graph: \(why)"
    }
  }
}
