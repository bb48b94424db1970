import Foundation
import Testing

/// Finding (issue 35): a brush `size` below about 1/8192 px trapped (SIGILL) from the command
/// line, a planted sidecar and a `--recipe` file, and one such sidecar ended a whole `apply -r`
/// batch (no summary, locks and temporary files left) and the whole `review`. Each source is now
/// a range error: 64 on the command line, 65 from a file, naming it; a batch goes on past it.
/// Run through the real binary, so that a trap would show as a signal, not a crashed test run.
@Suite struct TinyBrushTests {
  static let range = "(allowed: >= 0.01 px, or 0.0001%...1000% of the shorter side"

  /// Three unedited photos in `folder/`, the second edited with a brush whose stored size is then
  /// replaced by `size`, as an attacker would plant it.
  static func batch(plantedSize size: String) throws -> TemporaryFolder {
    let root = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: root.path("folder"), withIntermediateDirectories: false)
    for n in 1...3 { try root.copy("faces/hopper.jpg", as: "folder/\(n).jpg") }
    #expect(
      runCLI(["apply", "-f", "brush:size=3,points=10:10/20:20", root.path("folder/2.jpg")]).status == 0)
    let sidecar = root.path("folder/2.jpg.photoedit.json")
    let text = try String(contentsOfFile: sidecar, encoding: .utf8)
    #expect(text.contains("\"size\" : 0.0234375"))
    try text.replacingOccurrences(of: "\"size\" : 0.0234375", with: "\"size\" : \(size)")
      .write(toFile: sidecar, atomically: false, encoding: .utf8)
    return root
  }

  @Test(arguments: ["0", "1e-30", "0.0001", "5e-324", "1e-320", "-1", "1e-10%", "0.00001%"])
  func fromTheCommandLineItIsAUsageError(size: String) throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "p.jpg")
    let before = folder.read("p.jpg")
    let run = try launch(["apply", "-f", "brush:size=\(size),points=10:10/20:20", photo], deadline: 60)
    #expect(run.status == 64, "\(run.err)")
    let first = run.err.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first.hasPrefix("photoedit: error: brush: size="), "\(run.err)")
    #expect(first.contains("is out of range \(Self.range))"), "\(run.err)")
    #expect(folder.names() == ["p.jpg"])
    #expect(folder.read("p.jpg") == before)
  }

  /// A percentage within the range that is less than 0.01 px of this photo is refused for it.
  @Test func aPercentageTooSmallForThePhotoIsBadData() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "p.jpg")
    let run = try launch(["apply", "-f", "brush:size=0.001%,points=10:10/20:20", photo], deadline: 60)
    #expect(run.status == 65, "\(run.err)")
    #expect(run.err.contains("\(photo): brush: size=0.001% is out of range"), "\(run.err)")
    #expect(run.err.contains("the image is 128x128"), "\(run.err)")
    #expect(folder.names() == ["p.jpg"])
  }

  @Test(arguments: ["1e-12", "0", "5e-324", "-0.5", "1e-5"])
  func fromAPlantedSidecarItIsBadDataAndTheBatchGoesOn(size: String) throws {
    let root = try Self.batch(plantedSize: size)
    let bad = root.path("folder/2.jpg")
    let render = try launch(["render", bad], deadline: 60)
    #expect(render.status == 65, "\(render.err)")
    #expect(render.err.hasPrefix("photoedit: \(bad): step 1: brush: size="), "\(render.err)")
    #expect(render.err.contains("is out of range"), "\(render.err)")

    let run = try launch(["apply", "-f", "sepia", "-r", root.path("folder")], deadline: 120)
    #expect(run.status == 1, "\(run.err)")
    #expect(run.err.contains("photoedit: \(bad): step 1: brush: size="), "\(run.err)")
    #expect(run.err.contains("3 files: 2 done, 0 current, 1 failed"), "\(run.err)")
    for n in [1, 3] {
      #expect(run.out.contains("\(n).jpg: applied sepia"), "\(run.out)")
      #expect(root.exists("folder/\(n).jpg.photoedit.json"))
    }
    #expect(root.names().count == 1)
    let names = try FileManager.default.contentsOfDirectory(atPath: root.path("folder")).sorted()
    #expect(
      names == [
        "1.jpg", "1.jpg.original", "1.jpg.photoedit.json", "2.jpg", "2.jpg.original", "2.jpg.photoedit.json",
        "3.jpg", "3.jpg.original", "3.jpg.photoedit.json",
      ], "\(names)")
  }

  /// The review page shows the other photos; the one that cannot be previewed is named.
  @Test func reviewGoesOnPastIt() throws {
    let root = try Self.batch(plantedSize: "1e-5")
    let run = try launch(["review", root.path("folder"), "-o", root.path("page.html")], deadline: 120)
    #expect(run.status == 1, "\(run.err)")
    #expect(run.err.contains("photoedit: \(root.path("folder/2.jpg")): step 1: brush: size="), "\(run.err)")
    #expect(run.err.contains("1 of 3 photos could not be previewed"), "\(run.err)")
    let page = try String(contentsOfFile: root.path("page.html"), encoding: .utf8)
    #expect(page.contains("data-photo=\"1.jpg\"") && page.contains("data-photo=\"3.jpg\""))
  }

  @Test func fromARecipeFileItIsBadDataNamingTheFile() throws {
    let root = try Self.batch(plantedSize: "1e-12")
    let recipe = root.path("recipe.json")
    try FileManager.default.copyItem(atPath: root.path("folder/2.jpg.photoedit.json"), toPath: recipe)
    let run = try launch(
      ["apply", "--recipe", recipe, root.path("folder/1.jpg"), root.path("folder/3.jpg")], deadline: 60)
    #expect(run.status == 65, "\(run.err)")
    #expect(run.err.hasPrefix("photoedit: \(recipe): step 1: brush: size="), "\(run.err)")
    #expect(!root.exists("folder/1.jpg.photoedit.json") && !root.exists("folder/3.jpg.photoedit.json"))
  }

  /// Strokes that fit some photos of a batch and not another fail that photo only, named with
  /// the strokes file; the others are done, and the run exits 1.
  @Test func strokesOutsideOnePhotoFailThatPhotoOnly() throws {
    let folder = try TemporaryFolder()
    let big = try folder.copy("photos/coffee.png", as: "big.png")  // 600x400
    let small = try folder.copy("faces/hopper.jpg", as: "small.jpg")  // 128x128
    let other = try folder.copy("faces/astronaut.png", as: "other.png")  // 512x512
    let strokes = folder.path("s.json")
    try "[[[10, 20], [300, 40]]]".write(toFile: strokes, atomically: false, encoding: .utf8)
    let before = folder.read("small.jpg")
    let run = try launch(["apply", "-f", "brush:strokes=\(strokes)", big, small, other], deadline: 120)
    #expect(run.status == 1, "\(run.err)")
    #expect(
      run.err.contains(
        "photoedit: \(small): brush: strokes file '\(strokes)': stroke 0, point 1 (300:40) is outside the 128x128 image"
      ), "\(run.err)")
    #expect(run.err.contains("3 files: 2 done, 0 current, 1 failed"), "\(run.err)")
    #expect(folder.exists("big.png.photoedit.json") && folder.exists("other.png.photoedit.json"))
    #expect(!folder.exists("small.jpg.photoedit.json") && folder.read("small.jpg") == before)
    #expect(folder.leftovers().isEmpty)
  }
}
