import CenterFaceKernels
import CenterFaceKernelsAVX2
import CenterFaceKernelsAVX512

/// Each kernel call goes to the build the model was packed for.
extension CenterFaceKernel {
  func packConvolutionWeights(_ w: [Float], outputChannels n: Int, taps: Int, inputChannels k: Int) -> [Float]
  {
    switch self {
    case .baseline: BaselineKernels.packConvolutionWeights(w, outputChannels: n, taps: taps, inputChannels: k)
    case .avx2: AVX2Kernels.packConvolutionWeights(w, outputChannels: n, taps: taps, inputChannels: k)
    case .avx512: AVX512Kernels.packConvolutionWeights(w, outputChannels: n, taps: taps, inputChannels: k)
    }
  }

  func convolve(_ job: ConvolutionJob, rows: Range<Int>) {
    switch self {
    case .baseline: BaselineKernels.convolve(job, rows: rows)
    case .avx2: AVX2Kernels.convolve(job, rows: rows)
    case .avx512: AVX512Kernels.convolve(job, rows: rows)
    }
  }

  func depthwise(_ job: DepthwiseJob, rows: Range<Int>) {
    switch self {
    case .baseline: BaselineKernels.depthwise(job, rows: rows)
    case .avx2: AVX2Kernels.depthwise(job, rows: rows)
    case .avx512:
      // AVX-512's depthwise kernels take 16 channels at a time; AVX2's do the same operations
      // on 8.
      if job.pixelStride % 16 == 0 {
        AVX512Kernels.depthwise(job, rows: rows)
      } else {
        AVX2Kernels.depthwise(job, rows: rows)
      }
    }
  }

  func depthwiseRow(
    _ job: DepthwiseJob, above: UnsafePointer<Float>, middle: UnsafePointer<Float>,
    below: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>
  ) {
    switch self {
    case .baseline:
      BaselineKernels.depthwiseRow(job, above: above, middle: middle, below: below, output: output)
    case .avx2: AVX2Kernels.depthwiseRow(job, above: above, middle: middle, below: below, output: output)
    case .avx512:
      if job.pixelStride % 16 == 0 {
        AVX512Kernels.depthwiseRow(job, above: above, middle: middle, below: below, output: output)
      } else {
        AVX2Kernels.depthwiseRow(job, above: above, middle: middle, below: below, output: output)
      }
    }
  }
}
