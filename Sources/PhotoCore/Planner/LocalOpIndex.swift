/// The operations of a local step filed by place, so that a small rectangle of its output is made
/// by the few operations near it, not by walking all of them.
///
/// `LocalKernel` works back from the last operation to the first over every operation, for every
/// rectangle it renders: faceblur's check renders a region around each face, so a step with n
/// faces cost O(n²) (a model that finds 15,000 faces in a 0.24 MP photo: 86 s). An operation
/// whose footprint misses the rectangle at its turn changes nothing and needs nothing beyond it
/// (``LocalOp``), so the operations that matter are those whose footprints meet the final
/// rectangle. ``kernel(for:)`` finds them from a grid of the footprints, works back over them,
/// and looks again while the rectangle grows; the kernel it returns renders the rectangle exactly
/// as the whole step does.
struct LocalOpIndex {
  let kernel: LocalKernel
  /// The side of the grid's cells, in pixels.
  let cell: Int
  let columns: Int, rows: Int
  /// The operations whose footprint meets each cell, ascending.
  private var cells: [[Int32]]

  /// Files `kernel`'s operations in a grid of cells of `cell` pixels.
  init(_ kernel: LocalKernel, cell: Int = 64) {
    precondition(cell > 0, "the cells must have a size")
    self.kernel = kernel
    self.cell = cell
    columns = (kernel.inputSize.width + cell - 1) / cell
    rows = (kernel.inputSize.height + cell - 1) / cell
    cells = [[Int32]](repeating: [], count: columns * rows)
    for (k, op) in kernel.ops.enumerated() {
      let f = op.footprint.intersection(PixelRect(kernel.inputSize))
      guard !f.isEmpty else { continue }
      for row in (f.y / cell)...((f.maxY - 1) / cell) {
        for column in (f.x / cell)...((f.maxX - 1) / cell) { cells[row * columns + column].append(Int32(k)) }
      }
    }
  }

  /// The operations whose footprints meet `rect`, ascending.
  private func operations(meeting rect: PixelRect) -> [Int] {
    let r = rect.intersection(PixelRect(kernel.inputSize))
    guard !r.isEmpty else { return [] }
    var found = Set<Int32>()
    for row in (r.y / cell)...((r.maxY - 1) / cell) {
      for column in (r.x / cell)...((r.maxX - 1) / cell) {
        for k in cells[row * columns + column] where kernel.ops[Int(k)].footprint.intersects(r) {
          found.insert(k)
        }
      }
    }
    return found.map(Int.init).sorted()
  }

  /// A kernel that renders `output` as the whole step does, from the operations that take part
  /// in it.
  ///
  /// - Complexity: O(m log m) for the m operations that take part, and the cells they cover.
  func kernel(for output: PixelRect) -> LocalKernel {
    LocalKernel(size: kernel.inputSize, ops: operations(for: output).map { kernel.ops[$0] })
  }

  /// The operations that take part in making `output` (indices into the kernel's, ascending):
  /// every other operation can change without changing a byte of `output` (faceblur's check
  /// searches a passed face's region again only when one of these changed).
  ///
  /// - Complexity: as ``kernel(for:)``.
  func operations(for output: PixelRect) -> [Int] {
    let all = PixelRect(kernel.inputSize)
    var reach = output
    while true {
      let taking = operations(meeting: reach)
      // Working back over these alone: when the rectangles stay inside `reach`, no other
      // operation meets any of them, so these give the whole chain's rectangles.
      var r = output
      for k in taking.reversed() { r = kernel.ops[k].dependency(of: r).intersection(all).union(r) }
      if reach.contains(r) { return taking }
      reach = reach.union(r)
    }
  }
}
