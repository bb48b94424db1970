import Testing
@testable import PhotoCore

@Suite struct PhotoCoreSmoke {
  @Test func moduleLoads() { #expect(Bool(true)) }
}
