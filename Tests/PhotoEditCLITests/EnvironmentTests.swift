import Foundation
import Testing

/// TurboJPEG reads TJ_OPTIMIZE, TJ_RESTART, TJ_ARITHMETIC and TJ_PROGRESSIVE from the
/// environment. With any of them set, the banded JPEG encoder cannot join its bands: photoedit
/// must still write a good render of the same pixels (through the real binary, whose streaming
/// pipeline reads the environment once).
@Suite struct EnvironmentTests {
  @Test(arguments: ["TJ_OPTIMIZE", "TJ_RESTART", "TJ_PROGRESSIVE"])
  func turboJPEGSettingsStillGiveTheSamePixels(variable: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("jpeg/xmp_test.jpg", as: "in.jpg")  // baseline, many bands
    let plain = try launch(["apply", "--filter", "sepia", "-o", folder.path("plain.jpg"), photo])
    let tuned = try launch(
      ["apply", "--filter", "sepia", "-o", folder.path("tuned.jpg"), photo], environment: [variable: "1"])
    #expect(plain.status == 0 && tuned.status == 0, "\(plain.err)\(tuned.err)")
    for name in ["plain", "tuned"] {
      let export = try launch(["render", folder.path("\(name).jpg"), "-o", folder.path("\(name).png")])
      #expect(export.status == 0, "\(export.err)")
    }
    let (a, b) = (
      FileManager.default.contents(atPath: folder.path("plain.png")),
      FileManager.default.contents(atPath: folder.path("tuned.png"))
    )
    #expect(a != nil && a == b, "\(variable)=1 changed the pixels")
  }
}
