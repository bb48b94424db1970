extension Image {
  /// Renders `kernels` over the whole image, in order: the planner's one-band case (the band is
  /// the whole image; each kernel splits its work over all cores). A step that is not a
  /// transform renders in place; a transform makes a new image of its output size.
  ///
  /// - Throws: what a kernel that renders whole images throws (`FilterError`).
  /// - Complexity: O(width × height) per kernel.
  public mutating func render(_ kernels: [any StepKernel]) throws(FilterError) {
    for kernel in kernels {
      precondition(kernel.inputSize == ImageSize(width, height), "the kernel was prepared for another size")
      if kernel.rendersInPlace {
        var failure: FilterError? = nil
        withPixels { all in
          do throws(FilterError) { try kernel.render(all, into: all) } catch { failure = error }
        }
        if let failure { throw failure }
      } else {
        self = withReadOnlyPixels { input in
          Image(size: kernel.outputSize) { output in
            // Transforms never throw.
            try? kernel.render(input, into: output)
          }
        }
      }
    }
  }
}
