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
}
