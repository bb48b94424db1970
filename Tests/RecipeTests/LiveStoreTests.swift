import Codecs
import Foundation
import PhotoCore
import Synchronization
import Testing

@testable import Recipe

/// The store with the real codecs and filters, through the public `EditStore` API.
@Suite struct LiveStoreTests {
  let folder = TempFolder()

  /// Debian's opencv-data cascade (installed by `make test`), loaded once.
  static let cascade: HaarCascade? = {
    let path = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
    return try? HaarCascade(xml: Array(bytes))
  }()

  func settings() -> StoreSettings {
    StoreSettings(
      context: FilterContext(cascade: {
        guard let cascade = Self.cascade else { throw CascadeError("opencv-data is not installed") }
        return cascade
      }))
  }

  func parse(_ word: String) throws -> PendingOperation {
    try Filters.parse(word, readFile: { try EditStore.readFile($0) })
  }

  func copy(_ fixturePath: String, as name: String) -> String {
    folder.write(name, Array(FileManager.default.contents(atPath: fixture(fixturePath))!))
    return folder.file(name)
  }

  @Test func jpegCycleWithRealFilters() throws {
    let photo = copy("jpeg/testorig.jpg", as: "t.jpg")
    let original = folder.read("t.jpg")!
    _ = try EditStore.apply([try parse("sepia:intensity=0.8")], to: photo, output: nil, settings: settings())
    _ = try EditStore.apply([try parse("vignette")], to: photo, output: nil, settings: settings())
    let render = folder.read("t.jpg")!
    let decoded = try ImageCodec.decode(render)
    #expect(decoded.format == .jpeg)
    #expect((decoded.image.width, decoded.image.height) == (227, 149))
    _ = try EditStore.undo(photo, settings: settings())
    _ = try EditStore.redo(photo, settings: settings())
    #expect(folder.read("t.jpg") == render)
    let show = try EditStore.show(photo)
    #expect(show.fields["current"] == .bool(true))
    #expect(show.lines.contains("1. sepia v1 intensity=0.8"))
    _ = try EditStore.revert(photo, settings: settings())
    #expect(folder.read("t.jpg") == original)
    #expect(folder.names() == ["t.jpg"])
  }

  @Test func recipeOfOneSidecarAppliesToAnotherPhoto() throws {
    let first = copy("jpeg/testorig.jpg", as: "a.jpg")
    let second = copy("photos/chelsea.png", as: "b.png")
    _ = try EditStore.apply(
      [try parse("sepia:intensity=0.5"), try parse("flip:direction=horizontal")], to: first, output: nil,
      settings: settings())
    let recipe = try EditStore.recipe(from: first + ".photoedit.json")
    #expect(recipe.map(\.filter) == ["sepia", "flip"])
    _ = try EditStore.apply(recipe, to: second, output: nil, settings: settings())
    let data = try Store(settings: settings()).loadSidecar(PhotoPaths(second))!.data
    #expect(data.operations.map(\.filter) == ["sepia", "flip"])
    #expect(data.render?.format == "png")
    #expect(throws: StoreError.isSidecar(photo: first)) {
      try EditStore.apply(recipe, to: first + ".photoedit.json", output: nil, settings: settings())
    }
  }

  @Test(arguments: ["house-look.json", "profile-picture.json", "redact.json"])
  func sampleRecipeFilesApply(name: String) throws {
    let recipe = try EditStore.recipe(from: fixture("recipes/\(name)"))
    #expect(!recipe.isEmpty)
    let photo = copy("jpeg/testorig.jpg", as: "r.jpg")
    let report = try EditStore.apply(recipe, to: photo, output: nil, settings: settings())
    #expect(report.fields["operations"] == .number(Double(recipe.count)))
    #expect(try EditStore.show(photo).fields["current"] == .bool(true))
  }

  @Test func transparentRenderIsFlattenedForJPEGAndKeptForPNG() throws {
    let photo = copy("png/basn6a08.png", as: "alpha.png")
    _ = try EditStore.apply(
      [try parse("sepia")], to: photo, output: folder.file("out.jpg"), settings: settings())
    let jpeg = try ImageCodec.decode(folder.read("out.jpg")!)
    #expect(jpeg.image.isOpaque)
    _ = try EditStore.apply(
      [try parse("sepia")], to: photo, output: folder.file("out.png"), settings: settings())
    #expect(!(try ImageCodec.decode(folder.read("out.png")!)).image.isOpaque)
    #expect(
      folder.read("alpha.png") == Array(FileManager.default.contents(atPath: fixture("png/basn6a08.png"))!))
  }

  /// `revert` on an -o output puts the original's bytes there, unless the output's name says
  /// another format: then the unedited original is encoded as the name says, never JPEG bytes
  /// under a .png name.
  @Test func revertingAnOutputOfAnotherFormatEncodesTheOriginalAsItsNameSays() throws {
    let photo = copy("jpeg/testorig.jpg", as: "in.jpg")
    let original = folder.read("in.jpg")!
    for name in ["out.png", "same.jpeg"] {
      _ = try EditStore.apply(
        [try parse("sepia")], to: photo, output: folder.file(name), settings: settings())
      let report = try EditStore.revert(folder.file(name), settings: settings())
      #expect(!folder.exists(name + ".photoedit.json"))
      let reverted = folder.read(name)!
      if name == "out.png" {
        #expect(report.fields["converted"] == .string("png"))
        #expect(try ImageCodec.format(of: reverted) == .png)
        #expect(try ImageCodec.decode(reverted).image == (try ImageCodec.decode(original)).image)
        #expect(report.lines.last?.contains("re-encoded as PNG") == true)
      } else {
        #expect(report.fields["converted"] == nil)
        #expect(reverted == original)
      }
    }
    #expect(folder.read("in.jpg") == original)
  }

  @Test func previewExportUsesMaxSize() throws {
    let photo = copy("jpeg/xmp_test.jpg", as: "big.jpg")
    let report = try EditStore.render(
      photo, output: folder.file("small.jpg"), maxSize: 300, settings: settings())
    let small = try ImageCodec.decode(folder.read("small.jpg")!)
    #expect(max(small.image.width, small.image.height) == 300)
    #expect(report.fields["width"] == .number(Double(small.image.width)))
    #expect(!folder.exists("small.jpg.photoedit.json"))
    #expect(throws: StoreError.notEdited) {
      try EditStore.render(photo, output: nil, maxSize: nil, settings: settings())
    }
  }

  /// Faceblur's detector gets a DCT-scaled copy of at least a megapixel, only on photos over
  /// 2 MP, only for the recipe's first operation.
  @Test func reducedSourceGoesToTheFirstFaceblurOfLargePhotosOnly() throws {
    var options = EncodeOptions()
    options.quality = 80
    let large = Image(width: 2400, height: 1200, fill: RGBA(90, 120, 150))
    folder.write("large.jpg", try ImageCodec.encode(large, as: .jpeg, options: options))
    folder.write(
      "small.jpg", try ImageCodec.encode(Image(width: 1000, height: 800), as: .jpeg, options: options))
    let seen = Mutex<[String: (Int, Int)?]>([:])
    func probe(_ label: String, filter: String) -> NewStep {
      NewStep(filter: filter) { image, context throws(StoreError) in
        seen.withLock {
          _ = $0.updateValue(context.reducedSource.map { ($0.width, $0.height) }, forKey: label)
        }
        return Operation(filter: "sepia", version: 1, parameters: ["intensity": .number(0)])
      }
    }
    var store = Store(settings: settings())
    store.settings.dryRun = true
    _ = try store.apply(
      [probe("first", filter: "faceblur"), probe("second", filter: "faceblur")], to: folder.file("large.jpg"),
      output: nil)
    _ = try store.apply([probe("sepia", filter: "sepia")], to: folder.file("large.jpg"), output: nil)
    _ = try store.apply([probe("small", filter: "faceblur")], to: folder.file("small.jpg"), output: nil)
    let result = seen.withLock { $0 }
    let reduced = try #require(result["first"] ?? nil)
    #expect(reduced.0 * reduced.1 >= 1_000_000)
    #expect(reduced.0 < 2400)
    #expect(result.keys.sorted() == ["first", "second", "sepia", "small"])
    #expect(result["second"]! == nil)
    #expect(result["sepia"]! == nil)
    #expect(result["small"]! == nil)
  }

  @Test func corruptOriginalIsBadDataAndNothingChanges() throws {
    let photo = copy("bad/skimage-truncated.jpg", as: "bad.jpg")
    let error = #expect(throws: StoreError.self) {
      try EditStore.apply([try parse("sepia")], to: photo, output: nil, settings: settings())
    }
    #expect(error?.status == 65)
    #expect(folder.names() == ["bad.jpg"])
  }
}
