/// Where each tensor of one run lives: an offset into one buffer. Two tensors alive at the same
/// step (from the step that makes one to the last step that reads it, both included, so that a
/// step never writes over what it reads) get disjoint floats; the others may share. Tensors are
/// placed largest first, each at the lowest offset clear of the tensors already placed that are
/// alive with it.
///
/// The buffer comes close to the most floats alive at once (`NetworkPlan.floatsPerInputPixel`
/// for CenterFace); a pool of freed buffers reused by size held 40% more at 24 MP (a
/// quarter-size tensor kept in the freed first one, three times its size, while another of its
/// size was made).
struct TensorLayout: Equatable {
  /// Each value's offset in floats; nil for a value the run does not keep in the buffer (the
  /// input when it is given or streamed, values never computed).
  var offsets: [Int?]
  /// The buffer's size in floats.
  var floats: Int

  /// Offsets are multiples of this many floats (64 bytes).
  static let alignment = 16

  /// - Parameter placesInput: whether the input (value `plan.input`) is in the buffer too,
  ///   alive until its last reader.
  init(_ plan: NetworkPlan, width: Int, height: Int, placesInput: Bool) {
    let count = plan.values.count
    var start = [Int](repeating: -2, count: count)
    if placesInput { start[plan.input] = -1 }
    for (i, step) in plan.steps.enumerated() { start[step.output] = i }
    func end(_ v: Int) -> Int { max(start[v], min(plan.lastUse[v], plan.steps.count)) }
    func size(_ v: Int) -> Int {
      let (w, h) = plan.size(of: v, width: width, height: height)
      let n = w * h * plan.values[v].pixelStride
      return (n + Self.alignment - 1) / Self.alignment * Self.alignment
    }
    let order = (0..<count).filter { start[$0] > -2 }.sorted { (size($0), -$0) > (size($1), -$1) }
    // Kept in order of offset, so that the tensors alive with one come out in that order too:
    // O(values²) in all, whatever a model's shape (at most 4,096 nodes).
    var placed: [(offset: Int, size: Int, value: Int)] = []
    offsets = [Int?](repeating: nil, count: count)
    floats = 0
    for v in order {
      let n = size(v)
      var offset = 0
      for p in placed where start[p.value] <= end(v) && start[v] <= end(p.value) {
        if offset + n <= p.offset { break }
        offset = max(offset, p.offset + p.size)
      }
      let at = placed.firstIndex { $0.offset > offset } ?? placed.count
      placed.insert((offset, n, v), at: at)
      offsets[v] = offset
      floats = max(floats, offset + n)
    }
  }
}
