import Foundation
import PhotoCore
import Testing

@testable import Codecs

@Suite struct ConcurrencyTests {
  @Test func concurrentDecodesAndEncodesMatchSerialOnes() async throws {
    let paths = [
      "jpeg/testorig.jpg", "jpeg/video-001.cmyk.jpeg", "png/ibasn6a16.png", "faces/hopper_orientation_7.jpg",
      "jpeg/testimgari.jpg", "photos/chelsea.png",
    ]
    let inputs = try paths.map { try fixture($0) }
    let serial = try inputs.map { try ImageCodec.encode(ImageCodec.decode($0).image, as: .jpeg) }
    let parallel = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
      for _ in 0..<3 {
        for (k, input) in inputs.enumerated() {
          group.addTask { (k, try ImageCodec.encode(ImageCodec.decode(input).image, as: .jpeg)) }
        }
      }
      var results: [(Int, [UInt8])] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(parallel.count == inputs.count * 3)
    for (k, bytes) in parallel { #expect(bytes == serial[k], "\(paths[k])") }
  }

  @Test func pngIgnoresTheDCTScale() throws {
    var options = DecodeOptions()
    options.minimumLongestSide = 10
    let decoded = try ImageCodec.decode(try fixture("photos/coffee.png"), options: options)
    #expect(decoded.image.width == 600 && decoded.image.height == 400)
  }
}
