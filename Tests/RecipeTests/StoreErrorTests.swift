import Testing

@testable import Recipe

@Suite struct StoreErrorTests {
  @Test func statusesFollowDesign() {
    #expect(StoreError.missing(path: "a").status == 66)
    #expect(StoreError.newerFormat(found: 2, supported: 1).status == 65)
    #expect(StoreError.renderModified.status == 73)
    #expect(StoreError.busy.status == 73)
  }
}
