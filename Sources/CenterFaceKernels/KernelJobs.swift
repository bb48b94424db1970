// The arguments of CenterFace's convolution kernels, shared by every build of the kernels
// (`BaselineKernels` in this module, `AVX2Kernels` in CenterFaceKernelsAVX2).
//
// Activations are channels-last: pixel (x, y) of a W-wide map starts at float
// `(y * W + x) * pixelStride`, and its channels follow one another. `pixelStride` is the channel
// count rounded up to a multiple of 8 (4 for the 3-channel network input); the padding channels
// hold zeros, and every kernel writes zeros there, so a buffer can be reused without clearing.

/// A convolution computed as a sum over taps of small matrix products (an "implicit GEMM").
///
/// Output position (gx, gy) of the `gridWidth` × `gridHeight` grid reads, for each tap (kx, ky)
/// of the `kernelSize` × `kernelSize` window, input pixel
/// (gx × stride − padding + kx, gy × stride − padding + ky) (zeros outside the input), and
/// writes output pixel ((gx − outputColumnBase) × outputStep + outputOffsetX,
/// (gy − outputRowBase) × outputStep + outputOffsetY). Only grid columns
/// `firstColumn..<gridWidth` are computed.
/// With `outputStep` 2 and the four offsets, four 1×1 jobs make a 2×2, stride-2 transposed
/// convolution.
///
/// Each output channel is `bias + Σ_tap Σ_k input[k] × weight`, summed in tap order then channel
/// order; then ReLU (when `relu`), then `+ residual` (when `residual` is set, read at the output
/// pixel). The order of the sums never depends on how rows are split between threads.
public struct ConvolutionJob {
  public var input: UnsafePointer<Float>
  public var inputWidth: Int
  public var inputHeight: Int
  public var inputPixelStride: Int
  /// Channels read per tap (K), at most `inputPixelStride`.
  public var inputChannels: Int
  /// 1 or 3.
  public var kernelSize: Int
  public var stride: Int
  public var padding: Int
  public var gridWidth: Int
  public var gridHeight: Int
  public var output: UnsafeMutablePointer<Float>
  public var outputWidth: Int
  public var outputPixelStride: Int
  public var outputStep: Int
  public var outputOffsetX: Int
  public var outputOffsetY: Int
  /// The grid row written to output row 0 (one row of a map computed into a row buffer).
  public var outputRowBase: Int = 0
  /// The first grid column computed (a piece of a row computed into a row buffer).
  public var firstColumn: Int = 0
  /// The grid column written to output column 0 (may be negative).
  public var outputColumnBase: Int = 0
  /// Output channels written, a multiple of 8, at most `outputPixelStride`.
  public var outputChannels: Int
  /// Packed by the same build's `packConvolutionWeights`.
  public var weights: UnsafePointer<Float>
  /// `outputChannels` values.
  public var bias: UnsafePointer<Float>
  public var relu: Bool
  public var residual: UnsafePointer<Float>?
  public var residualPixelStride: Int
  /// At least `inputChannels` zeros (`kernelSize × inputPixelStride` with `rowTaps`): what a
  /// tap outside the input reads.
  public var zeros: UnsafePointer<Float>
  /// One tap per window row, whose `kernelSize` pixels are read as `kernelSize ×
  /// inputPixelStride` channels side by side: the weights are packed for `kernelSize` taps of
  /// `kernelSize × inputPixelStride` channels (zeros for the padding channels). Each output is the same sum in the same order, with exact
  /// zero terms for the padding channels; the inner loop runs `kernelSize` times longer.
  public var rowTaps = false

  public init(
    input: UnsafePointer<Float>, inputWidth: Int, inputHeight: Int, inputPixelStride: Int,
    inputChannels: Int, kernelSize: Int, stride: Int, padding: Int, gridWidth: Int, gridHeight: Int,
    output: UnsafeMutablePointer<Float>, outputWidth: Int, outputPixelStride: Int, outputStep: Int,
    outputOffsetX: Int, outputOffsetY: Int, outputChannels: Int, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, relu: Bool, residual: UnsafePointer<Float>?, residualPixelStride: Int,
    zeros: UnsafePointer<Float>, outputRowBase: Int = 0, firstColumn: Int = 0, outputColumnBase: Int = 0,
    rowTaps: Bool = false
  ) {
    self.rowTaps = rowTaps
    self.outputRowBase = outputRowBase
    self.firstColumn = firstColumn
    self.outputColumnBase = outputColumnBase
    self.input = input
    self.inputWidth = inputWidth
    self.inputHeight = inputHeight
    self.inputPixelStride = inputPixelStride
    self.inputChannels = inputChannels
    self.kernelSize = kernelSize
    self.stride = stride
    self.padding = padding
    self.gridWidth = gridWidth
    self.gridHeight = gridHeight
    self.output = output
    self.outputWidth = outputWidth
    self.outputPixelStride = outputPixelStride
    self.outputStep = outputStep
    self.outputOffsetX = outputOffsetX
    self.outputOffsetY = outputOffsetY
    self.outputChannels = outputChannels
    self.weights = weights
    self.bias = bias
    self.relu = relu
    self.residual = residual
    self.residualPixelStride = residualPixelStride
    self.zeros = zeros
  }
}

/// A 3×3 depthwise convolution (one filter per channel), padding 1, stride 1 or 2, then ReLU when
/// `relu`. Each output is `bias + Σ_tap input × weight` in tap order (row by row).
public struct DepthwiseJob {
  public var input: UnsafePointer<Float>
  public var inputWidth: Int
  public var inputHeight: Int
  /// Channels per pixel, a multiple of 8, for the input and the output alike.
  public var pixelStride: Int
  public var stride: Int
  public var output: UnsafeMutablePointer<Float>
  public var outputWidth: Int
  public var outputHeight: Int
  /// 9 × `pixelStride` values: tap (kx, ky)'s weights at `(ky * 3 + kx) * pixelStride`.
  public var weights: UnsafePointer<Float>
  public var bias: UnsafePointer<Float>
  public var relu: Bool

  public init(
    input: UnsafePointer<Float>, inputWidth: Int, inputHeight: Int, pixelStride: Int, stride: Int,
    output: UnsafeMutablePointer<Float>, outputWidth: Int, outputHeight: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, relu: Bool
  ) {
    self.input = input
    self.inputWidth = inputWidth
    self.inputHeight = inputHeight
    self.pixelStride = pixelStride
    self.stride = stride
    self.output = output
    self.outputWidth = outputWidth
    self.outputHeight = outputHeight
    self.weights = weights
    self.bias = bias
    self.relu = relu
  }
}
