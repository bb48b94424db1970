import Codecs
import Foundation
import PhotoCore
import Testing

@testable import PhotoEditCLI

@Suite struct FiltersCommandTests {
  @Test func jsonListsEveryFilterWithItsParameters() throws {
    let r = runCLI(["filters", "--json"])
    #expect(r.status == 0)
    let filters = try jsonLines(r.out)
    let names = filters.compactMap { $0["name"] as? String }
    for expected in ["sepia", "vignette", "pixelate", "crop", "brush", "rotate", "flip", "faceblur"] {
      #expect(names.contains(expected), "\(expected)")
    }
    let sepia = try #require(filters.first { $0["name"] as? String == "sepia" })
    let parameters = try #require(sepia["parameters"] as? [[String: Any]])
    #expect(parameters.first?["name"] as? String == "intensity")
  }

  @Test func helpApplyShowsTheCatalogue() {
    let r = runCLI(["help", "apply"])
    #expect(r.status == 0)
    #expect(r.out.contains("faceblur"))
    #expect(r.out.contains("intensity"))
  }
}
