import Testing
@testable import PhotoCore

@Suite struct FaceDetectionSmoke {
  @Test func moduleLoads() { #expect(Bool(true)) }
}
