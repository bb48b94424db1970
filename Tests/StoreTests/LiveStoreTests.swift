import Codecs
import Foundation
import PhotoCore
import Synchronization
import Testing

@testable import Recipe
@testable import Store

/// The store with the real codecs and filters, through the public `EditStore` API.
@Suite struct LiveStoreTests {
  let folder = try! TemporaryFolder()

  /// Debian's opencv-data cascade (installed by `make test`), loaded once.
  static let cascade: HaarCascade? = {
    let path = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
    return try? HaarCascade(xml: Array(bytes))
  }()

  func settings() -> StoreSettings { StoreSettings() }

  func request(_ filter: String, _ values: [String: ParameterValue] = [:]) throws -> StepRequest {
    try Filters.request(filter, values: values)
  }

  func copy(_ relative: String, as name: String) -> String {
    folder.write(name, Array(FileManager.default.contents(atPath: fixturePath(relative))!))
    return folder.path(name)
  }

  @Test func jpegCycleWithRealFilters() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    let original = folder.read("t.jpg")!
    _ = try EditStore(settings: settings()).apply(
      [try request("sepia", ["intensity": .number(0.8)])], to: photo, output: nil)
    _ = try EditStore(settings: settings()).apply([try request("vignette")], to: photo, output: nil)
    let render = folder.read("t.jpg")!
    let decoded = try ImageCodec.decode(render)
    #expect(decoded.format == .jpeg)
    #expect((decoded.image.width, decoded.image.height) == (227, 149))
    _ = try EditStore(settings: settings()).undo(photo)
    _ = try EditStore(settings: settings()).redo(photo)
    #expect(folder.read("t.jpg") == render)
    let show = try EditStore().show(photo)
    #expect(show.state == .edited)
    #expect(show.data?.steps.first?.typed(SepiaFilter.self)?.parameters.intensity == 0.8)
    _ = try EditStore(settings: settings()).revert(photo)
    #expect(folder.read("t.jpg") == original)
    #expect(folder.names() == ["t.jpg"])
  }

  @Test func recipeOfOneSidecarAppliesToAnotherPhoto() throws {
    let first = copy("jpeg/testorig.jpg", as: "a.jpg")
    let second = copy("photos/chelsea.png", as: "b.png")
    _ = try EditStore(settings: settings()).apply(
      [
        try request("sepia", ["intensity": .number(0.5)]),
        try request("flip", ["direction": .choice("horizontal")]),
      ], to: first, output: nil)
    let recipe = try EditStore.recipe(from: first + ".photoedit.json")
    #expect(recipe.map(\.filter) == ["sepia", "flip"])
    _ = try EditStore(settings: settings()).apply(recipe, to: second, output: nil)
    let data = try EditStore(settings: settings()).loadSidecar(PhotoPaths(second))!.data
    #expect(data.steps.map(\.filter) == ["sepia", "flip"])
    #expect(data.render?.format == .png)
    #expect(throws: StoreError.isSidecar(photo: first)) {
      try EditStore(settings: settings()).apply(recipe, to: first + ".photoedit.json", output: nil)
    }
  }

  @Test(arguments: ["house-look.json", "profile-picture.json", "redact.json"])
  func sampleRecipeFilesApply(name: String) throws {
    let recipe = try EditStore.recipe(from: fixturePath("recipes/\(name)"))
    #expect(!recipe.isEmpty)
    let photo = copy("jpeg/testorig.jpg", as: "r.jpg")
    let report = try EditStore(settings: settings()).apply(recipe, to: photo, output: nil)
    #expect(report.stepCount == recipe.count)
    #expect(try EditStore().show(photo).state == .edited)
  }

  @Test func transparentRenderIsFlattenedForJPEGAndKeptForPNG() throws {
    let photo = copy("png/basn6a08.png", as: "alpha.png")
    _ = try EditStore(settings: settings()).apply(
      [try request("sepia")], to: photo, output: folder.path("out.jpg"))
    let jpeg = try ImageCodec.decode(folder.read("out.jpg")!)
    #expect(jpeg.image.isOpaque)
    _ = try EditStore(settings: settings()).apply(
      [try request("sepia")], to: photo, output: folder.path("out.png"))
    #expect(!(try ImageCodec.decode(folder.read("out.png")!)).image.isOpaque)
    #expect(
      folder.read("alpha.png")
        == Array(FileManager.default.contents(atPath: fixturePath("png/basn6a08.png"))!))
  }

  /// `revert` on an -o output puts the original's bytes there, unless the output's name says
  /// another format: then the unedited original is encoded as the name says, never JPEG bytes
  /// under a .png name.
  @Test func revertingAnOutputOfAnotherFormatEncodesTheOriginalAsItsNameSays() throws {
    let photo = copy("jpeg/testorig.jpg", as: "in.jpg")
    let original = folder.read("in.jpg")!
    for name in ["out.png", "same.jpeg"] {
      _ = try EditStore(settings: settings()).apply(
        [try request("sepia")], to: photo, output: folder.path(name))
      let report = try EditStore(settings: settings()).revert(folder.path(name))
      #expect(!folder.exists(name + ".photoedit.json"))
      let reverted = folder.read(name)!
      if name == "out.png" {
        #expect(report.conversion?.written == .png && report.conversion?.original == .jpeg)
        #expect(try ImageCodec.format(of: reverted) == .png)
        #expect(try ImageCodec.decode(reverted).image == (try ImageCodec.decode(original)).image)
      } else {
        #expect(report.conversion == nil)
        #expect(reverted == original)
      }
    }
    #expect(folder.read("in.jpg") == original)
  }

  /// A preview made after a local step reuses the preview before it, resampling again only
  /// where the step changed pixels: the render's preview has the bytes it has when no earlier
  /// preview is made, whichever steps come before.
  @Test(arguments: [["faceblur"], ["sepia", "faceblur"], ["faceblur", "pixelate"], ["faceblur", "flip"]])
  func previewsAfterLocalStepsAreTheWholeResamples(filters: [String]) throws {
    let photo = copy("photos/seeding_by_Clements_Engelhardt.jpg", as: "s.jpg")
    let requests = try filters.map { name in
      let box: [String: ParameterValue] = [
        "x": .length(.pixels(40)), "y": .length(.pixels(30)), "width": .length(.pixels(90)),
        "height": .length(.pixels(60)),
      ]
      // Haar finds 3 (false) faces on these dandelions, CenterFace none: the test needs faces.
      return try request(name, name == "pixelate" ? box : name == "faceblur" ? ["detector": .choice("haar")] : [:])
    }
    _ = try EditStore().apply(requests, to: photo, output: nil)
    let alone = try EditStore().preview(photo, maxSize: 300)
    let withEarlier = try EditStore().preview(photo, maxSize: 300) { steps in Set(1...steps.count) }
    #expect(withEarlier.entering.keys.sorted() == Array(1...filters.count))
    let render = try #require(alone.render)
    #expect(max(render.width, render.height) == 300)
    // Compared as Booleans: a failure would otherwise print both JPEGs' bytes.
    let same = withEarlier.render == render
    #expect(same, "the render's preview depends on whether earlier previews were made")
    // The original's preview differs from the render's where the faces are.
    let differs = withEarlier.entering[1]?.jpeg != render.jpeg
    #expect(differs, "the original's preview is the render's")
  }

  @Test func previewExportUsesMaxSize() throws {
    let photo = copy("jpeg/xmp_test.jpg", as: "big.jpg")
    let report = try EditStore(settings: settings()).export(
      photo, to: folder.path("small.jpg"), maxSize: 300)
    let small = try ImageCodec.decode(folder.read("small.jpg")!)
    #expect(max(small.image.width, small.image.height) == 300)
    #expect(report.width == small.image.width)
    #expect(!folder.exists("small.jpg.photoedit.json"))
    #expect(throws: StoreError.notEdited) {
      try EditStore(settings: settings()).render(photo)
    }
  }

  /// A step that needs the pixels sees the whole image entering it, at full size, however large
  /// the photo: no detector searches a reduced copy unless its own settings ask for it.
  @Test func stepsThatNeedPixelsSeeTheFullSizeImage() throws {
    var options = EncodeOptions()
    options.quality = 80
    let large = Image(width: 2400, height: 1200, fill: RGBA(90, 120, 150))
    folder.write("large.jpg", try ImageCodec.encode(large, as: .jpeg, options: options))
    ProbeFilter.seen.withLock { $0 = [] }
    var store = EditStore(settings: settings())
    store.settings.registry = Filters.all + [ProbeFilter.self]
    store.settings.dryRun = true
    let probe = try Filters.request("probe", values: [:], in: store.settings.registry)
    _ = try store.apply([probe, probe], to: folder.path("large.jpg"), output: nil)
    #expect(ProbeFilter.seen.withLock { $0 } == [ImageSize(2400, 1200), ImageSize(2400, 1200)])
  }

  @Test func corruptOriginalIsBadDataAndNothingChanges() throws {
    let photo = copy("bad/skimage-truncated.jpg", as: "bad.jpg")
    let error = #expect(throws: StoreError.self) {
      try EditStore(settings: settings()).apply([try request("sepia")], to: photo, output: nil)
    }
    guard case .codec? = error else {
      Issue.record("expected a codec error, got \(String(describing: error))")
      return
    }
    #expect(folder.names() == ["bad.jpg"])
  }
}

/// Records the size of the pixels it is given when a step is made.
struct ProbeFilter: Filter {
  static let name = "probe", summary = "records", version = 1
  static func requirements(for parameters: Parameters) -> FilterRequirements { .pixels }
  static let seen = Mutex<[ImageSize]>([])
  struct Parameters: ParameterSet { static let fields: [ParameterField<Self>] = [] }
  static func resolve(_ p: inout Parameters, in context: ResolveContext) throws(FilterError) -> NoDerivedState
  {
    let image = context.image!
    seen.withLock { $0.append(ImageSize(image.width, image.height)) }
    return NoDerivedState()
  }
  static func render(_ p: Parameters, _ d: NoDerivedState, on image: inout Image) throws(FilterError) {}
}
