import Foundation
import PhotoCore
import TestSupport
import Testing

@testable import CenterFace

/// Finding (issue 35): a CenterFace model with the real structure and weights that say "face"
/// everywhere made the overlap removal quadratic (28 s for 1.8 MP, over 90 s for 15.9 MP). The
/// candidates are now bounded before the removal, the removal looks only near each box, and a
/// model past either bound is refused.
@Suite struct PoisonedModelTests {
  /// The greedy removal the slow, obvious way: every candidate against every kept one.
  static func reference(_ candidates: [Candidate], iou: Double) -> [Candidate] {
    let ordered = candidates.sorted { ($0.score, -$0.row, -$0.column) > ($1.score, -$1.row, -$1.column) }
    var kept: [Candidate] = []
    for c in ordered {
      let dropped = kept.contains { k in
        let w = min(c.x2, k.x2) - max(c.x1, k.x1)
        let h = min(c.y2, k.y2) - max(c.y1, k.y1)
        guard w > 0, h > 0 else { return false }
        return w * h / (c.area + k.area - w * h) >= iou
      }
      if !dropped { kept.append(c) }
    }
    return kept
  }

  /// Candidates of every size from under a pixel to the whole image and shapes from 1:12 to 12:1,
  /// in clusters (as real faces give) and scattered.
  static func candidates(_ count: Int, seed: UInt64) -> [Candidate] {
    var rng = SplitMix(seed: seed)
    func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
    var out: [Candidate] = []
    var centre = (x: 500.0, y: 400.0)
    for i in 0..<count {
      if i % 7 == 0 { centre = (unit() * 1000, unit() * 800) }
      let side = pow(2, unit() * 11 - 1)  // 0.5 to 1024 px
      let aspect = pow(12, unit() * 2 - 1)
      let (w, h) = (side * aspect.squareRoot(), side / aspect.squareRoot())
      let (cx, cy) = (centre.x + (unit() - 0.5) * side, centre.y + (unit() - 0.5) * side)
      let x1 = min(max(cx - w / 2, 0), 1000)
      let y1 = min(max(cy - h / 2, 0), 800)
      let x2 = min(max(cx + w / 2, 0), 1000)
      let y2 = min(max(cy + h / 2, 0), 800)
      guard x2 > x1, y2 > y1 else { continue }
      out.append(
        Candidate(
          score: Float(Int(unit() * 50)) / 50, row: Int(cy / 4), column: Int(cx / 4), x1: x1, y1: y1, x2: x2,
          y2: y2, landmarks: []))
    }
    return out
  }

  @Test(arguments: [(1, 0.3), (2, 0.3), (3, 0.05), (4, 0.5), (5, 1.0), (6, 1.0 / 3.0)])
  func theOverlapRemovalIsTheGreedyOne(seed: UInt64, iou: Double) throws {
    let all = Self.candidates(3000, seed: seed)
    #expect(try #require(suppress(all, iou: iou)) == Self.reference(all, iou: iou))
  }

  /// Long thin boxes crossing each other all survive, and each one meets many: such a removal
  /// stops at its bound (here a small one) rather than running on.
  @Test func theOverlapRemovalStopsAtItsBound() throws {
    var crossing: [Candidate] = []
    for k in 0..<400 {
      let at = Double(k) * 2
      crossing.append(
        Candidate(score: 0.9, row: k, column: 0, x1: 0, y1: at, x2: 800, y2: at + 1, landmarks: []))
      crossing.append(
        Candidate(score: 0.8, row: 0, column: k, x1: at, y1: 0, x2: at + 1, y2: 800, landmarks: []))
    }
    #expect(suppress(crossing, iou: 0.3, workLimit: 10_000) == nil)
    #expect(try #require(suppress(crossing, iou: 0.3)) == Self.reference(crossing, iou: 0.3))
  }

  /// Every cell of a 1.9 MP image a candidate: more than the limit, refused as soon as the count
  /// passes it.
  @Test func aModelThatFindsFacesEverywhereIsRefused() throws {
    let poisoned = try CenterFaceModel(onnx: PoisonedModel.bytes())
    let image = noiseImage(width: 1600, height: 1200, seed: 3)
    #expect(CenterFaceModel.candidateLimit(width: 1600, height: 1200) == 100_000)
    #expect(throws: DetectionError.tooManyFaceCandidates(model: "", limit: 100_000)) {
      try poisoned.faces(in: image, options: CenterFaceOptions())
    }
    let detector = CenterFaceDetector(model: poisoned, checksum: "", path: "/models/poisoned.onnx")
    #expect(throws: DetectionError.tooManyFaceCandidates(model: "/models/poisoned.onnx", limit: 100_000)) {
      try detector.faces(in: image, options: DetectionOptions())
    }
  }

  /// Below the limit, every cell's face survives (none overlaps another), and the removal that
  /// was quadratic in them ends; the faces are the greedy removal's.
  @Test func aModelThatFindsFacesEverywhereInASmallImageEnds() throws {
    let poisoned = try CenterFaceModel(onnx: PoisonedModel.bytes())
    let image = noiseImage(width: 1000, height: 800, seed: 4)
    let faces = try poisoned.faces(in: image, options: CenterFaceOptions())
    #expect(faces.count == 250 * 200)
    let small = noiseImage(width: 200, height: 160, seed: 5)
    let sampler = InputSampler(small, scaledWidth: 200, scaledHeight: 160)
    let found = try #require(
      poisoned.candidates(sampler: sampler, threshold: 0.45, margin: 128, maxTilePixels: 8_000_000))
    #expect(found.count == 50 * 40)
    #expect(suppress(found, iou: 0.3) == Self.reference(found, iou: 0.3))
  }
}
