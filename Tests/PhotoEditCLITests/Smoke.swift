import Testing
@testable import PhotoEditCLI

@Suite struct PhotoEditCLISmoke {
  @Test func moduleLoads() { #expect(Bool(true)) }
}
