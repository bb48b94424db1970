import Foundation
import Testing

@testable import PhotoCore

// The worked example of docs/contributing.md ("Adding a filter"), compiled here and run against a
// registry that holds it. The test below checks that the document shows exactly this code.

// BEGIN EXAMPLE
/// `invert`: turns the image into its negative, blended by `amount`.
public struct InvertFilter: Filter {
  public static let name = "invert"
  public static let summary = "Inverts the colours."
  public static let version = 1

  public struct Parameters: ParameterSet {
    /// 0...1, default 1: 0 leaves the image unchanged.
    public var amount = 1.0
    public init() {}
    public static let fields: [ParameterField<Self>] = [
      .number("amount", \.amount, 0...1, help: "0 leaves the image unchanged")
    ]
  }

  /// Pointwise: every pixel on its own, so the planner runs it on any band of a photo.
  public static func prepare(_ p: Parameters, _ derived: NoDerivedState, input: ImageSize)
    -> [any StepKernel]
  {
    let amount = p.amount
    return [
      PointwiseKernel(size: input) { pixels, x, y, count in
        for i in 0..<count * 4 where i % 4 != 3 {
          let v = Double(pixels[i])
          pixels[i] = UInt8((v + amount * (255 - 2 * v)).rounded())
        }
      }
    ]
  }
}
// END EXAMPLE

@Suite struct DocumentedExampleTests {
  @Test func invertExampleWorks() throws {
    let registry: [any Filter.Type] = Filters.all + [InvertFilter.self]
    let step = try Filters.step(filter: "invert", version: 1, parameters: [:], derived: [:], in: registry)
    #expect(step.stored.object?["parameters"] == .object(["amount": .number(1)]))
    var image = Image(width: 1, height: 1, fill: RGBA(0, 100, 255, 7))
    try step.render(on: &image)
    #expect(image[0, 0] == RGBA(255, 155, 0, 7))
    let half = try Filters.request("invert", values: ["amount": .number(0.5)], in: registry)
    #expect(half.values.first?.value == .number(0.5))
  }

  /// The planner sees a pointwise step, and a band rendered on its own has the whole image's pixels.
  @Test func invertExampleIsPointwise() throws {
    let registry: [any Filter.Type] = Filters.all + [InvertFilter.self]
    let step = try Filters.step(
      filter: "invert", version: 1, parameters: ["amount": .number(0.3)], derived: [:], in: registry)
    let size = ImageSize(5, 7)
    let kernels = try step.kernels(input: size)
    #expect(kernels.map(\.capability) == [.pointwise])
    var whole = noiseImage(width: 5, height: 7, seed: 3, opaque: false)
    var banded = whole
    try step.render(on: &whole)
    let band = PixelRect(x: 0, y: 2, width: 5, height: 3)
    #expect(kernels[0].inputRect(for: band) == band)
    try banded.withPixels { all in try kernels[0].render(all, into: all.view(band)) }
    for y in 0..<7 {
      for x in 0..<5 where band.contains(x: x, y: y) { #expect(banded[x, y] == whole[x, y]) }
    }
  }

  /// The document shows the code compiled above, to the character.
  @Test func documentShowsThisCode() throws {
    let source = try String(contentsOfFile: #filePath, encoding: .utf8)
    let start = try #require(source.range(of: "// BEGIN EXAMPLE\n"))
    let end = try #require(source.range(of: "// END EXAMPLE"))
    let code = String(source[start.upperBound..<end.lowerBound])
    let doc = try String(
      contentsOf: fixtures.deletingLastPathComponent().appendingPathComponent("docs/contributing.md"),
      encoding: .utf8)
    #expect(doc.contains("```swift\n" + code + "```"))
  }
}
