import Foundation
import Testing

@testable import PhotoEditCLI

/// The detector each faceblur step used, and CenterFace's scores with `review --scores`.
@Suite struct ReviewDetectorTests {
  @Test func thePageNamesEachStepsDetectorAndCenterFacesScores() throws {
    let f = try ReviewFixture(blurred: ["groundtruth/ultralytics-bus.jpg"], unedited: [])
    // The astronaut at 256 px (CenterFace is slow in debug builds), blurred by CenterFace.
    let small = f.path("astronaut.png")
    let made = runCLI([
      "render", fixtures.appendingPathComponent("faces/astronaut.png").path, "-o", small, "--max-size", "256",
    ])
    try #require(made.status == 0, "\(made.err)")
    let blurred = runCLI(["apply", "--filter", "faceblur:detector=centerface", small])
    try #require(blurred.status == 0, "CenterFace (make model fetches it): \(blurred.err)")

    // Without --scores: the detector is named, no score is given.
    #expect(f.review().status == 0)
    var page = PageMarkup(f.html)
    let bus = try #require(page.sections.first { $0.name == "ultralytics-bus.jpg" }?.markup)
    var astronaut = try #require(page.sections.first { $0.name == "astronaut.png" }?.markup)
    #expect(PageMarkup.attribute("data-detector", in: bus) == "haar")
    #expect(PageMarkup.attribute("data-detector", in: astronaut) == "centerface")
    #expect(astronaut.contains("Step 1 faceblur (centerface): 1 face found"))
    #expect(bus.contains("Smallest face searched: 24 px."))
    #expect(astronaut.contains("Smallest face searched: 20 px."))
    #expect(!f.html.contains("data-score"))

    // With --scores: each CenterFace face gets the score detect gives it; Haar faces none.
    let r = f.review(["--scores"])
    #expect(r.status == 0, "\(r.err)")
    let detect = runCLI(["detect", "--detector", "centerface", "--json", small])
    let line = try JSONSerialization.jsonObject(with: Data(detect.out.utf8)) as! [String: Any]
    let score = try #require(((line["faces"] as? [[String: Any]])?.first?["score"]) as? Double)
    #expect(score >= 0.3 && score < 1)  // at least the default threshold
    page = PageMarkup(f.html)
    astronaut = try #require(page.sections.first { $0.name == "astronaut.png" }?.markup)
    let shown = try #require(PageMarkup.attribute("data-score", in: astronaut).flatMap(Double.init))
    #expect(abs(shown - score) < 1e-9)
    #expect(astronaut.contains("score \(ValueText.number((score * 100).rounded() / 100))"))
    let busAfter = try #require(page.sections.first { $0.name == "ultralytics-bus.jpg" }?.markup)
    #expect(PageMarkup.attribute("data-score", in: busAfter) == nil)
    #expect(busAfter.contains("no scores: the haar detector gives none"))
  }
}
