import Testing
@testable import Recipe

@Suite struct RecipeSmoke {
  @Test func moduleLoads() { #expect(Bool(true)) }
}
