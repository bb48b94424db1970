import Dispatch
import Synchronization

/// Runs a `RenderPlan`: pixels from a source (a decoder, or an image in memory), through the
/// kernels, to a sink (an encoder), a band of output rows at a time.
///
/// From a decoder, the source is decoded in passes:
/// - When the bands' source rectangles move down the image and each is a few bands high (no
///   transform, a crop, a left-right mirror, local steps of modest reach), one pass slides down
///   it: the calling thread decodes into a window of a few slots of rows, and as soon as a band's rows are there, a worker copies them out (or
///   takes the slot itself, when no other band needs it), runs the kernels and hands the band to
///   the sink, which frees the slots. The decode, the kernels and the encode overlap.
/// - Otherwise (a quarter turn reads columns, a top-bottom mirror reads from the bottom), the
///   bands are grouped so that the part of the source a group needs fits `budget` bytes, and
///   each group is one pass over that part: decoded, then its bands run on all cores.
///
/// The output is the same whatever the path, the number of cores or the order the bands finish
/// in: each band is computed from the same source pixels by the same kernels.
public enum Planner {
  /// Runs `kernels` one after the other on `tile`, which holds `rects[0]` of the first kernel's
  /// input; kernel i renders `rects[i + 1]` of its output (in place, in a view of its input,
  /// when it can). Returns the last kernel's output.
  public static func chain(_ kernels: [any StepKernel], on tile: PixelBuffer, rects: [PixelRect])
    throws(FilterError) -> PixelBuffer
  {
    var tile = tile
    for (i, kernel) in kernels.enumerated() {
      let output = kernel.rendersInPlace ? tile.view(rects[i + 1]) : PixelBuffer(rect: rects[i + 1])
      try kernel.render(tile, into: output)
      tile = output
    }
    return tile
  }

  /// How much of the source a grouped pass may hold, by default: 24 MiB.
  public static let defaultBudget = 24 << 20
  /// The window's size limit in slots, whatever the core count.
  static let maximumSlots = 8

  /// Renders `plan` from `source` to `sink`; returns the decoder's harmless warnings.
  ///
  /// - Throws: what the source, a kernel or the sink throws; the first error stops the work.
  public static func run(
    _ plan: RenderPlan, from source: any PixelSource, to sink: any PixelSink, budget: Int = defaultBudget
  ) throws -> [String] {
    precondition(
      source.size == plan.inputSize && sink.bandHeight == plan.bandHeight, "a plan for this source and sink")
    let runner = BandRunner(plan: plan, sink: sink)
    // A band's source spans at most a few slots of the window (the window holds `maximumSlots`).
    if plan.slidesDown(maxRows: (maximumSlots / 2 - 1) * plan.bandHeight) {
      return try slide(plan, source, runner)
    }
    var warnings: [String] = []
    let groups = self.groups(plan, budget: budget)
    for (index, group) in groups.enumerated() {
      let region = group.reduce(PixelRect.empty) { $0.union(plan.sourceRect($1)) }
      let held = PixelBuffer(rect: region)
      let pass = try source.startPass(
        rows: region.rows, columns: region.columns, toEnd: index == groups.count - 1)
      try pass.read(into: held.base, stride: held.stride, count: region.height)
      warnings = try pass.finish()
      try runner.run(group, from: held)
    }
    return warnings
  }

  /// Renders `plan` from `image` (the plan's source, whose pixels the bands may change in place)
  /// to `sink`.
  public static func run(_ plan: RenderPlan, from image: inout Image, to sink: any PixelSink) throws {
    precondition(ImageSize(image.width, image.height) == plan.inputSize && sink.bandHeight == plan.bandHeight)
    let runner = BandRunner(plan: plan, sink: sink)
    try image.withPixels { try runner.run(Array(plan.bands.indices), from: $0) }
  }

  /// Consecutive bands grouped so that each group's source rectangle fits `budget` bytes (a
  /// band whose own rectangle does not is a group by itself).
  public static func groups(_ plan: RenderPlan, budget: Int) -> [[Int]] {
    var groups: [[Int]] = []
    var current: [Int] = []
    var region = PixelRect.empty
    for k in plan.bands.indices {
      let grown = region.union(plan.sourceRect(k))
      if !current.isEmpty && grown.area * 4 > budget {
        groups.append(current)
        (current, region) = ([k], plan.sourceRect(k))
      } else {
        current.append(k)
        region = grown
      }
    }
    if !current.isEmpty { groups.append(current) }
    return groups
  }

  /// One pass down the source through a window of slots (see the type's discussion).
  private static func slide(_ plan: RenderPlan, _ source: any PixelSource, _ runner: BandRunner) throws
    -> [String]
  {
    let region = plan.bands.indices.reduce(PixelRect.empty) { $0.union(plan.sourceRect($1)) }
    let slotRows = plan.bandHeight
    let slotCount = (region.height + slotRows - 1) / slotRows
    @Sendable func slotRect(_ s: Int) -> PixelRect {
      PixelRect(
        x: region.x, y: region.y + s * slotRows, width: region.width,
        height: Swift.min(slotRows, region.maxY - region.y - s * slotRows))
    }
    // The slots each band reads, and how many bands read each slot.
    let slots: [ClosedRange<Int>?] = plan.bands.indices.map { k in
      let r = plan.sourceRect(k)
      guard !r.isEmpty else { return nil }
      return ((r.y - region.y) / slotRows)...((r.maxY - 1 - region.y) / slotRows)
    }
    var readers = [Int](repeating: 0, count: Swift.max(slotCount, 1))
    for range in slots.compactMap({ $0 }) { for s in range { readers[s] += 1 } }
    let span = slots.compactMap { $0?.count }.max() ?? 1
    let rowBytes = region.width * 4
    let window = SlotWindow(
      slots: Swift.min(
        slotCount, Swift.max(span + 1, Swift.min(span + 2 * Parallel.workerCount, maximumSlots))),
      bytesPerSlot: slotRows * rowBytes)
    let users = Mutex(readers)
    // A band takes its slot itself when it alone reads it, whole; otherwise it copies its rows
    // out and lets the slots go.
    let exclusive: [Int?] = plan.bands.indices.map { k in
      guard let range = slots[k], range.count == 1, readers[range.lowerBound] == 1,
        plan.sourceRect(k) == slotRect(range.lowerBound)
      else { return nil }
      return range.lowerBound
    }
    let ready = plan.bands.indices.map { _ in DispatchSemaphore(value: 0) }
    let next = Atomic<Int>(0)
    let decoded = Atomic<Int>(0)  // slots decoded so far
    let finished = DispatchSemaphore(value: 0)

    @Sendable func release(_ range: ClosedRange<Int>) {
      let freed = users.withLock { users -> [Int] in
        var freed: [Int] = []
        for s in range {
          users[s] -= 1
          if users[s] == 0 { freed.append(s) }
        }
        return freed
      }
      for s in freed { window.release(s) }
    }
    @Sendable func process(_ k: Int) {
      var took = false
      runner.process(k) { () -> PixelBuffer in
        took = true
        if let s = exclusive[k] {
          return PixelBuffer(viewing: window.slot(s), stride: rowBytes, rect: slotRect(s))
        }
        let need = plan.sourceRect(k)
        let tile = PixelBuffer(rect: need)
        if let range = slots[k] {
          for s in range {
            let slot = PixelBuffer(viewing: window.slot(s), stride: rowBytes, rect: slotRect(s))
            tile.copy(need.intersection(slot.rect), from: slot)
          }
          release(range)
        }
        return tile
      }
      // A band skipped after a failure still lets its slots go, so the decoder never waits.
      if let s = exclusive[k] {
        release(s...s)
      } else if !took, let range = slots[k] {
        release(range)
      }
      finished.signal()
    }
    @Sendable func isReady(_ k: Int) -> Bool {
      (slots[k]?.upperBound ?? -1) < decoded.load(ordering: .acquiring)
    }
    // The helpers take bands in order, waiting until each is decoded.
    @Sendable func help() {
      while true {
        let k = next.add(1, ordering: .relaxed).oldValue
        guard k < plan.bands.count else { return }
        ready[k].wait()
        process(k)
      }
    }
    // The decoding thread takes a band only when it is decoded already.
    func claimReady() -> Int? {
      var k = next.load(ordering: .relaxed)
      while k < plan.bands.count && isReady(k) {
        let (exchanged, original) = next.compareExchange(expected: k, desired: k + 1, ordering: .relaxed)
        if exchanged { return k }
        k = original
      }
      return nil
    }
    for _ in 0..<Swift.min(Swift.max(1, Parallel.workerCount - 1), maximumSlots) {
      DispatchQueue.global().async { help() }
    }

    // While this thread decodes, the other cores take bands. When the window is full, this
    // thread runs a decoded band itself rather than wait, so the pipeline never depends on a
    // helper having started (with every core busy in a batch, one may start late: it then finds
    // no band left, and touches nothing). At the end it takes what is left, and waits for the
    // bands, never for the helpers.
    var signalled = 0
    var warnings: [String] = []
    var failure: (any Error)? = nil
    do {
      let pass = try source.startPass(rows: region.rows, columns: region.columns, toEnd: true)
      for s in 0..<slotCount {
        while !window.tryAcquire(s) {
          if let j = claimReady() {
            process(j)
          } else {
            window.acquire(s)
            break
          }
        }
        if runner.hasFailed { break }
        try pass.read(into: window.slot(s), stride: rowBytes, count: slotRect(s).height)
        decoded.store(s + 1, ordering: .releasing)
        while signalled < plan.bands.count && isReady(signalled) {
          ready[signalled].signal()
          signalled += 1
        }
        if readers[s] == 0 { window.release(s) }
      }
      if !runner.hasFailed { warnings = try pass.finish() }
    } catch {
      failure = error
      runner.fail(error)
    }
    if failure != nil || runner.hasFailed {
      decoded.store(Int.max, ordering: .releasing)  // every band is "ready": they are only counted off
    }
    while signalled < plan.bands.count {
      ready[signalled].signal()
      signalled += 1
    }
    while let k = claimReady() { process(k) }
    for _ in plan.bands.indices { finished.wait() }
    try runner.check()
    return warnings
  }
}

/// Runs bands: the kernels on a band's source pixels, then the sink; the first failure stops the
/// others (they are only counted off).
final class BandRunner: @unchecked Sendable {
  let plan: RenderPlan
  let sink: any PixelSink
  private let turns: [DispatchSemaphore]
  private let failure = Mutex<(any Error)?>(nil)
  private let failed = Atomic<Bool>(false)

  init(plan: RenderPlan, sink: any PixelSink) {
    (self.plan, self.sink) = (plan, sink)
    // Semaphores start at 0 and are signalled: libdispatch traps when one is freed below the
    // value it was made with.
    turns = sink.needsOrder ? plan.bands.indices.map { _ in DispatchSemaphore(value: 0) } : []
    turns.first?.signal()
  }

  var hasFailed: Bool { failed.load(ordering: .acquiring) }

  func fail(_ error: any Error) {
    failure.withLock { if $0 == nil { $0 = error } }
    failed.store(true, ordering: .releasing)
  }

  func check() throws {
    if let error = failure.withLock({ $0 }) { throw error }
  }

  /// Runs band `k` on the source pixels `take` gives (called only when the band is not
  /// skipped), and writes it; waits for its turn when the sink needs order.
  func process(_ k: Int, take: () -> PixelBuffer) {
    if !hasFailed {
      do {
        let tile = try Planner.chain(plan.kernels, on: take(), rects: plan.bands[k])
        if !turns.isEmpty { turns[k].wait() }
        if !hasFailed { try sink.write(band: k, tile) }
      } catch {
        fail(error)
      }
    }
    if !turns.isEmpty && k + 1 < turns.count { turns[k + 1].signal() }
  }

  /// Runs `bands` on all cores from `held`, which holds their source rectangles. A band whose
  /// first kernel would change pixels another band needs works on a copy.
  func run(_ bands: [Int], from held: PixelBuffer) throws {
    let inPlace = plan.kernels.first?.rendersInPlace ?? true
    let shared: Set<Int> =
      inPlace
      ? Set(
        bands.filter { k in
          bands.contains { j in j != k && plan.sourceRect(j).intersects(plan.sourceRect(k)) }
        }) : []
    Parallel.forEach(bands.count) { i in
      let k = bands[i]
      self.process(k) {
        let need = self.plan.sourceRect(k)
        if !shared.contains(k) { return held.view(need) }
        let copy = PixelBuffer(rect: need)
        copy.copy(need, from: held)
        return copy
      }
    }
    try check()
  }
}

/// A few band-sized buffers that slots of rows take in turn: slot s uses buffer s mod `count`,
/// and the decoder waits (or works) until slot s - count has released it.
final class SlotWindow: @unchecked Sendable {
  private let memory: UnsafeMutablePointer<UInt8>
  private let bytesPerSlot: Int
  private let free: [DispatchSemaphore]

  init(slots: Int, bytesPerSlot: Int) {
    self.bytesPerSlot = bytesPerSlot
    memory = .allocate(capacity: Swift.max(1, slots * bytesPerSlot))
    free = (0..<Swift.max(1, slots)).map { _ in DispatchSemaphore(value: 0) }
    for semaphore in free { semaphore.signal() }
  }

  deinit { memory.deallocate() }

  /// The bytes the window holds.
  var byteCount: Int { free.count * bytesPerSlot }

  /// The first byte of slot s's buffer.
  func slot(_ s: Int) -> UnsafeMutablePointer<UInt8> { memory + (s % free.count) * bytesPerSlot }

  /// Takes slot s's buffer if it is free now.
  func tryAcquire(_ s: Int) -> Bool { free[s % free.count].wait(timeout: .now()) == .success }
  /// Takes slot s's buffer, waiting until slot s - count releases it.
  func acquire(_ s: Int) { free[s % free.count].wait() }
  /// Gives slot s's buffer back.
  func release(_ s: Int) { free[s % free.count].signal() }
}
