import Testing
@testable import Codecs

@Suite struct CodecsSmoke {
  @Test func moduleLoads() { #expect(Bool(true)) }
}
