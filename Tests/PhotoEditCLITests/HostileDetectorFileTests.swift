import Foundation
import Testing

/// Detector files an attacker wrote (issue 35): a Haar cascade with a degenerate window and a
/// CenterFace model whose weights say "face" everywhere. Each is refused (65) with one line
/// naming the file, through the real binary, and never traps or runs for hours.
@Suite struct HostileDetectorFileTests {
  /// A cascade of `width` × `height` whose one stage accepts every window.
  static func acceptingCascade(width: Int, height: Int) -> String {
    "<opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>"
      + "<height>\(height)</height><width>\(width)</width><stages><_><stageThreshold>-1.</stageThreshold>"
      + "<weakClassifiers><_><internalNodes>0 -1 0 1.</internalNodes><leafValues>1. 1.</leafValues></_>"
      + "</weakClassifiers></_></stages><features><_><rects><_>0 0 1 1 -1.</_></rects></_></features>"
      + "</cascade></opencv_storage>"
  }

  /// Finding: a 1x1 window whose stage accepts everything trapped `detect` (SIGILL).
  @Test(arguments: [(1, 1), (24, 1), (2, 2)])
  func aDegenerateCascadeIsRefusedNamingIt(width: Int, height: Int) throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("photos/coffee.png", as: "p.png")
    let cascade = folder.path("window.xml")
    try Self.acceptingCascade(width: width, height: height).write(
      toFile: cascade, atomically: false, encoding: .utf8)
    for arguments in [
      ["detect", "--detector", "haar", "--cascade", cascade, photo],
      ["apply", "-f", "faceblur:detector=haar", "--cascade", cascade, photo],
    ] {
      let run = try launch(arguments, deadline: 120)
      #expect(run.status == 65, "\(arguments): \(run.err)")
      #expect(
        run.err.hasPrefix(
          "photoedit: face cascade \(cascade) is not usable: cascade window \(width)x\(height) is not a usable size (3 to 1000 pixels a side"
        ), "\(run.err)")
      #expect(run.err.split(separator: "\n").count == 1, "\(run.err)")
    }
    #expect(folder.names() == ["p.png", "window.xml"])
  }

  /// Finding: a model with CenterFace's structure whose heatmap bias makes every cell a face
  /// candidate made the overlap removal quadratic (28 s for 1.8 MP, over 90 s for 15.9 MP, hours
  /// in all). It is refused (65) naming the model file, and the photo is left as it was. The
  /// deadline is generous: only a hang reaches it.
  @Test func aModelThatSaysFaceEverywhereIsRefusedNamingIt() throws {
    let folder = try TemporaryFolder()
    let model = folder.path("poisoned.onnx")
    folder.write("poisoned.onnx", try PoisonedModel.bytes())
    let large = try folder.copy("photos/seeding_by_Clements_Engelhardt.jpg", as: "large.jpg")  // 15.9 MP
    let medium = folder.path("medium.jpg")  // 1.8 MP
    #expect(try launch(["render", large, "-o", medium, "--max-size", "1800"]).status == 0)
    let before = [folder.read("large.jpg"), folder.read("medium.jpg")]
    // One candidate per 64 pixels, at least 100,000: 5312 x 2988 / 64 = 248,004.
    for (photo, limit) in [(medium, 100_000), (large, 248_004)] {
      for arguments in [
        ["detect", "--model", model, photo], ["apply", "-f", "faceblur", "--model", model, photo],
      ] {
        let run = try launch(arguments, deadline: 600)
        #expect(run.status == 65, "\(arguments): \(run.err)")
        #expect(
          run.err.hasPrefix(
            "photoedit: \(photo): the CenterFace model \(model) finds more than \(limit) face candidates in this image"
          ),
          "\(run.err)")
        #expect(run.err.split(separator: "\n").count == 1, "\(run.err)")
      }
    }
    #expect([folder.read("large.jpg"), folder.read("medium.jpg")] == before)
    #expect(folder.names() == ["large.jpg", "medium.jpg", "poisoned.onnx"])
  }
}
