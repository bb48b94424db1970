import Testing

@testable import PhotoCore

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
}
