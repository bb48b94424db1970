import Dispatch
import Synchronization

/// Where every `JPEGScanIndex.stride`-th MCU of a baseline JPEG's scan starts in its
/// entropy-coded data, with the DC predictors there, found on another core while the caller does
/// other work (faceblur's decode and face search), so that a later splice jumps over the MCUs
/// before each replaced run instead of decoding them after the search, on the critical path.
///
/// The walk is the splice's own (`JPEGSplice.skipMCU` over each restart interval's unstuffed
/// bytes, made as `spliceInterval` makes them), so a checkpoint is exactly where the splice's own
/// decoding would be. Checkpoints are published as they are found and a splice uses those it finds
/// published, never waiting for more. Damaged data ends the walk: the splice then decodes on from
/// the last checkpoint before the damage and reports it itself, as it does without an index.
///
/// The index keeps `bytes` alive; a splice uses it only for the same bytes (`JPEGSplice.use`).
public final class JPEGScanIndex: @unchecked Sendable {
  /// MCUs from one checkpoint to the next.
  static let stride = 8
  let bytes: [UInt8]
  private let componentCount: Int
  private let capacity: Int
  /// Checkpoint k is MCU k · stride: `positions[k]`, the bit in its restart interval's unstuffed
  /// data where it starts, and `predictors[k · componentCount + c]`, component c's DC predictor
  /// there. Written by the walk before `published` counts it, read only below `published`.
  private let positions: UnsafeMutablePointer<Int>
  private let predictors: UnsafeMutablePointer<Int>
  private let published = Atomic<Int>(0)
  private let cancelled = Atomic<Bool>(false)

  /// An index of `bytes` with nothing published yet; nil when they are not a JPEG that
  /// `JPEGSplice` takes.
  init?(_ bytes: [UInt8]) {
    guard let splice = bytes.withUnsafeBufferPointer({ try? JPEGSplice($0) }) else { return nil }
    self.bytes = bytes
    componentCount = splice.components.count
    capacity = (splice.mcuCount + Self.stride - 1) / Self.stride
    positions = .allocate(capacity: capacity)
    predictors = .allocate(capacity: capacity * componentCount)
  }

  deinit {
    positions.deallocate()
    predictors.deallocate()
  }

  /// Starts walking the scan of `bytes` on another thread; nil when they are not a JPEG that
  /// `JPEGSplice` takes (the walk would be of no use). The walk ends by itself at the scan's end,
  /// at damaged data, or soon after `cancel`.
  public static func start(_ bytes: [UInt8]) -> JPEGScanIndex? {
    guard let index = JPEGScanIndex(bytes) else { return nil }
    DispatchQueue.global().async { index.walk() }
    return index
  }

  /// Stops the walk at its next checkpoint (what it published stays valid).
  public func cancel() { cancelled.store(true, ordering: .relaxed) }

  /// True when this index is of `other`'s bytes.
  func covers(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.withUnsafeBufferPointer { $0.baseAddress == other.baseAddress && $0.count == other.count }
  }

  /// Walks the scan, publishing checkpoints as it goes, until the scan or damaged data ends it,
  /// `cancel` is called, or `limit` checkpoints are published.
  func walk(limit: Int = .max) {
    bytes.withUnsafeBufferPointer { data in
      // The splice's own reading of the header; its tables live as long as it does.
      guard let splice = try? JPEGSplice(data) else { return }
      let perInterval = splice.restartInterval > 0 ? splice.restartInterval : splice.mcuCount
      splice.components.withUnsafeBufferPointer { components in
        var predictorsHere = [Int](repeating: 0, count: componentCount)
        for (i, range) in splice.intervals.enumerated() {
          let source = JPEGSplice.unstuff(UnsafeBufferPointer(rebasing: data[range]))
          defer { source.deallocate() }
          var reader = JPEGBitReader(
            bytes: UnsafePointer(source.baseAddress!), limit: (source.count - JPEGBitReader.padding) * 8)
          for c in 0..<componentCount { predictorsHere[c] = 0 }
          let first = i * perInterval
          for m in first..<min(first + perInterval, splice.mcuCount) {
            if m % Self.stride == 0 {
              let k = m / Self.stride
              guard k < limit, !cancelled.load(ordering: .relaxed) else { return }
              positions[k] = reader.position
              for c in 0..<componentCount { predictors[k * componentCount + c] = predictorsHere[c] }
              published.store(k + 1, ordering: .releasing)
            }
            do { try splice.skipMCU(components, &reader, &predictorsHere) } catch { return }
          }
        }
      }
    }
  }

  /// The last published checkpoint in `after + 1 ... upTo` that lies in the restart interval
  /// `interval` (MCUs): its MCU, and where it starts, its DC predictors copied into `predictors`.
  func checkpoint(after m: Int, upTo target: Int, in interval: Range<Int>, predictors out: inout [Int])
    -> (mcu: Int, position: Int)?
  {
    let k = min(target / Self.stride, published.load(ordering: .acquiring) - 1)
    guard k >= 0 else { return nil }
    let mcu = k * Self.stride
    guard mcu > m, interval.contains(mcu) else { return nil }
    for c in 0..<componentCount { out[c] = predictors[k * componentCount + c] }
    return (mcu, positions[k])
  }
}
