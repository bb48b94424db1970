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

  public static func render(_ p: Parameters, _ derived: NoDerivedState, on image: inout Image)
    throws(FilterError)
  {
    for i in image.bytes.indices where i % 4 != 3 {
      let v = Double(image.bytes[i])
      image.bytes[i] = UInt8((v + p.amount * (255 - 2 * v)).rounded())
    }
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
