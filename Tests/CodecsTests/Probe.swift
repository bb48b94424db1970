import Foundation
import PhotoCore
import Testing
@testable import Codecs

@Suite struct Probe {
  @Test func probe() throws {
    for folder in ["bad", "jpeg", "faces", "png", "photos"] {
      for name in fixtureNames(in: folder, suffix: "g") {
        let bytes = try fixture("\(folder)/\(name)")
        do {
          let d = try ImageCodec.decode(bytes)
          print("OK \(folder)/\(name) \(d.image.width)x\(d.image.height) o\(d.orientation) \(String(describing: d.subsampling)) exif \(d.metadata.exif?.count ?? -1) icc \(d.metadata.icc?.count ?? -1) xmp \(d.metadata.xmp?.count ?? -1) ps \(d.metadata.photoshop?.count ?? -1) com \(d.metadata.comments.count) png \(d.metadata.pngChunks.map(\.type)) w \(d.warnings)")
        } catch {
          print("ERR \(folder)/\(name): \(error)")
        }
      }
    }
  }
}
