import Foundation
import PhotoCore
import TestSupport
import Testing

@testable import PhotoEditCLI
@testable import Store

/// A pointwise filter the page has never heard of, as a new filter would be (the docs' `invert`).
struct NegateForTest: Filter {
  static let name = "negate-for-test"
  static let summary = "Inverts the colours (a test's filter)."
  static let version = 1
  struct Parameters: ParameterSet {
    init() {}
    static let fields: [ParameterField<Self>] = []
  }
  static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize) -> [any StepKernel] {
    [
      PointwiseKernel(size: input) { pixels, _, _, count in
        for i in 0..<count * 4 where i % 4 != 3 { pixels[i] = 255 - pixels[i] }
      }
    ]
  }
}

/// A filter that needs the whole image: its geometry is unknown to the page.
struct WholeForTest: Filter {
  static let name = "whole-for-test"
  static let summary = "Renders the whole image at once (a test's filter)."
  static let version = 1
  struct Parameters: ParameterSet {
    init() {}
    static let fields: [ParameterField<Self>] = []
  }
  static func render(_ p: Parameters, _ derived: NoDerivedState, on image: inout Image) throws(FilterError) {}
}

/// The review page maps the reviewed step's face boxes through the steps after it from each
/// step's own geometry (its kernels' `StepCapability`), never from a list of filter names.
@Suite struct ReviewBoxMappingTests {
  typealias T = ReviewItem.Transform
  let size = ImageSize(640, 425)
  let box = Box(fractionX: 0.1, y: 0.2, width: 0.3, height: 0.25)

  func rotate(_ angle: RotateFilter.Angle) -> Step {
    var p = RotateFilter.Parameters()
    p.angle = angle
    return Step(RotateFilter.self, parameters: p)
  }

  func flip(_ direction: FlipFilter.Direction) -> Step {
    var p = FlipFilter.Parameters()
    p.direction = direction
    return Step(FlipFilter.self, parameters: p)
  }

  func close(_ a: T?, _ b: T) -> Bool {
    guard let a else { return false }
    return [a.a - b.a, a.b - b.b, a.c - b.c, a.d - b.d, a.e - b.e, a.f - b.f].allSatisfy { abs($0) < 1e-12 }
  }

  @Test func aNewPointwiseFilterKeepsTheBoxesWhereTheyAre() {
    let t = ReviewItem.transform(through: [Step(NegateForTest.self, parameters: .init())], size: size)
    #expect(t == .identity)
    let mapped = t!.map(box)
    #expect(abs(mapped.x - 0.1) < 1e-12 && abs(mapped.y - 0.2) < 1e-12)
    #expect(abs(mapped.width - 0.3) < 1e-12 && abs(mapped.height - 0.25) < 1e-12)
  }

  /// On the page itself: a photo whose faceblur step is followed by a filter the page has never
  /// heard of has its six faces' boxes drawn on the render when that filter keeps pixels in place
  /// (a pointwise one), and none on the render when its geometry is unknown (a whole-image one);
  /// the original view draws them either way.
  @Test(arguments: [(NegateForTest.name, 6), (WholeForTest.name, 0)])
  func theReviewPageDrawsTheBoxesThroughANewFilter(filter: String, drawnOnRender: Int) throws {
    let folder = try TemporaryFolder()
    folder.write(
      "g.jpg", Array(FileManager.default.contents(atPath: fixturePath("groundtruth/opencv-group1.jpg"))!))
    var settings = StoreSettings()
    settings.registry = Filters.all + [NegateForTest.self, WholeForTest.self]
    let store = EditStore(settings: settings)
    let photo = folder.path("g.jpg")
    _ = try store.apply(
      [
        try Filters.request("faceblur", values: [:]),
        try Filters.request(filter, values: [:], in: settings.registry),
      ],
      to: photo, output: nil)
    let preview = try store.preview(photo, maxSize: 400) { [ReviewItem.reviewedStep($0) ?? 1] }
    let item = ReviewItem(
      index: 0, photo: ReviewSelection.Photo(path: photo, name: "g.jpg"), preview: preview,
      files: (render: "r.jpg", other: "o.jpg"), originals: true)
    #expect(item.faces.count == 6)
    let html = ReviewPage(
      items: [item], previewsURL: "p", previewsName: "p/", folder: folder.url.path, originals: true,
      title: "t"
    ).html()
    func boxes(_ kind: String) -> Int {
      let figure = html.components(separatedBy: "<figure class=\"view\" data-kind=\"\(kind)\"")
      guard figure.count > 1 else { return -1 }
      return figure[1].components(separatedBy: "</figure>")[0].components(separatedBy: "data-box=").count - 1
    }
    #expect(boxes("render") == drawnOnRender)
    #expect(boxes("original") == 6)
  }

  /// Turns and mirrors, from their pixel transforms, are the maps of fractions they always were.
  @Test func turnsAndMirrorsMapAsTheyDid() {
    let cases: [(Step, T)] = [
      (rotate(.quarter), T(a: 0, b: 1, c: -1, d: 0, e: 1, f: 0)),
      (rotate(.half), T(a: -1, b: 0, c: 0, d: -1, e: 1, f: 1)),
      (rotate(.threeQuarters), T(a: 0, b: -1, c: 1, d: 0, e: 0, f: 1)),
      (flip(.horizontal), T(a: -1, b: 0, c: 0, d: 1, e: 1, f: 0)),
      (flip(.vertical), T(a: 1, b: 0, c: 0, d: -1, e: 0, f: 1)),
    ]
    for (step, expected) in cases {
      #expect(close(ReviewItem.transform(through: [step], size: size), expected), "\(step.filter)")
    }
    // A chain, with the new filter between: a quarter turn then a mirror is a transpose.
    let chain = ReviewItem.transform(
      through: [rotate(.quarter), Step(NegateForTest.self, parameters: .init()), flip(.horizontal)],
      size: size)
    #expect(close(chain, T(a: 0, b: 1, c: 1, d: 0, e: 0, f: 0)))
    let mapped = chain!.map(box)
    #expect(abs(mapped.x - 0.2) < 1e-12 && abs(mapped.y - 0.1) < 1e-12)
  }

  /// A crop cuts boxes and a whole-image step's geometry is unknown: no box is drawn then.
  @Test func cropsAndWholeImageStepsDrawNoBox() {
    var crop = CropFilter.Parameters()
    (crop.x, crop.y, crop.width, crop.height) = (
      .fraction(0.1), .fraction(0.1), .fraction(0.5), .fraction(0.5)
    )
    #expect(ReviewItem.transform(through: [Step(CropFilter.self, parameters: crop)], size: size) == nil)
    #expect(ReviewItem.transform(through: [Step(WholeForTest.self, parameters: .init())], size: size) == nil)
  }
}
