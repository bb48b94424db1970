/// A step made ready for an image of one size (darktable's `commit_params`): what the planner
/// needs to know about its geometry, and the code that renders any rectangle of its output.
///
/// The planner asks, for a rectangle of the step's output, which rectangle of its input it needs
/// (`inputRect(for:)`, as `vips_region_prepare` and darktable's `modify_roi_in` do), provides
/// those pixels, and calls `render`. Every output pixel must come out exactly as rendering the
/// whole image in one go would make it, whatever the rectangle.
public protocol StepKernel: Sendable {
  /// The size of the image entering the step, in pixels.
  var inputSize: ImageSize { get }
  /// The size of the step's output, in pixels.
  var outputSize: ImageSize { get }
  /// What kind of step it is (see `StepCapability`).
  var capability: StepCapability { get }
  /// The rectangle of the input (inside the input image) that `render` needs to make the pixels
  /// of `output` (inside the output image).
  func inputRect(for output: PixelRect) -> PixelRect
  /// Makes the pixels of `output.rect` from `input`, which holds (at least) `inputRect(for:
  /// output.rect)` of the image entering the step.
  ///
  /// For a step that is not a transform, `output` views `input`'s memory (the planner renders in
  /// place): the kernel may read and write any pixel of `input`, and only `output.rect` must be
  /// right afterwards. A transform writes every pixel of `output` from `input`.
  ///
  /// - Throws: only a step that renders the whole image at once can fail here (a filter's
  ///   `render(_:_:on:)`); prepared kernels are checked in `prepare`.
  func render(_ input: PixelBuffer, into output: PixelBuffer) throws(FilterError)
  /// Whether the output can have transparent pixels, knowing the input's.
  func opacity(given input: Opacity) -> Opacity
}

extension StepKernel {
  public func opacity(given input: Opacity) -> Opacity { input == .opaque ? .opaque : .unknown }
  /// True when the step renders in place (anything but a transform).
  public var rendersInPlace: Bool {
    if case .transform = capability { return false }
    return true
  }
}

/// What a step does to the pixels' places, for the planner's routes.
public enum StepCapability: Sendable, Equatable {
  /// Every output pixel depends only on the input pixel at the same place (and on where it is):
  /// sepia, vignette. It may change every pixel.
  case pointwise
  /// Output pixels depend on input pixels at most `reach` pixels away (in x and in y), and only
  /// the pixels inside `footprint` (rectangles of the image, clipped to it) can change: pixelate's
  /// blocks, faceblur's circles, brush strokes. Every other pixel keeps its bytes.
  case local(reach: Int, footprint: [PixelRect])
  /// The pixels are moved, never changed: a crop, a rotation, a flip.
  case transform(PixelTransform)
  /// The step needs the whole image at once.
  case whole

  /// True for `.local`.
  public var isLocal: Bool {
    if case .local = self { return true }
    return false
  }
}

/// Whether an image has transparent pixels.
public enum Opacity: Sendable, Equatable {
  /// Every alpha is 255.
  case opaque
  /// Some alpha is below 255.
  case transparent
  /// Not known without looking at every pixel.
  case unknown
}
