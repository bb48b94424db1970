import Codecs
import Foundation
import PhotoCore
import Testing

/// HEIC and AVIF photos through the real binary, made at test time from the fixtures by
/// heif-enc: faces found as on the same pixels in PNG (heif-convert's) and hidden, the render
/// written in its own format in place without the original's thumbnail, orientation upright,
/// `--strip-identifying`, revert's exact bytes, conversion with `-o`, damage, and a mixed
/// folder's walk.
@Suite struct HEIFEndToEndTests {
  /// heif-enc's file of a fixture, written into `folder` as `name`.
  static func heif(
    _ fixture: String, avif: Bool = false, _ options: [String] = [], in folder: TemporaryFolder,
    as name: String
  ) throws -> String {
    folder.write(name, try FormatTools.heif(fromFixture: fixture, avif: avif, options))
    return folder.path(name)
  }

  /// The faces found in a HEIC or AVIF are those found in the same pixels as a PNG
  /// (heif-convert's), box for box; faceblur hides them (CenterFace finds none in the render,
  /// `audit` passes it although the original had a thumbnail), the render is the same format in
  /// place, and `revert` gives back the original's exact bytes and leaves nothing else.
  @Test(arguments: [false, true])
  func faceblurHidesTheFacesFoundAsInPNG(avif: Bool) throws {
    let folder = try TemporaryFolder()
    let name = avif ? "group.avif" : "group.heic"
    let photo = try Self.heif(
      "groundtruth/opencv-group1.jpg", avif: avif, ["-q", "85", "-t", "64"], in: folder, as: name)
    let original = try #require(folder.read(name))
    try FormatTools.heifConvert(photo, to: folder.path("same.png"))
    let found = try WebPEndToEndTests.faces([photo, folder.path("same.png")])
    #expect(found.count == 2 && found[0].count >= 3, "\(found)")
    #expect(found[0] == found[1])
    #expect(try launch(["audit", photo]).status == 1)

    let applied = try launch(["apply", "-f", "faceblur", photo])
    #expect(applied.status == 0, "\(applied.err)")
    let stored = try AdjustmentDataText.faces(in: try #require(folder.read(name + ".photoedit.json")))
    #expect(stored.count == found[0].count)
    for (box, face) in zip(stored, found[0]) {
      #expect(abs(box.0 - face[0]) < 0.01 && abs(box.2 - face[2]) < 0.01, "\(box) \(face)")
    }
    let render = try #require(folder.read(name))
    #expect(try ImageCodec.format(of: render) == (avif ? .avif : .heic))
    #expect(ImageCodec.metadataFindings(in: render).filter { $0.kind == .embeddedImage }.isEmpty)
    folder.write("render." + (avif ? "avif" : "heic"), render)
    #expect(try WebPEndToEndTests.faces([folder.path("render." + (avif ? "avif" : "heic"))]) == [[]])
    let audit = try launch(["audit", photo])
    #expect(audit.status == 0, "\(audit.out)\(audit.err)")
    let shown = try launch(["show", photo])
    #expect(shown.out.contains("render: \(avif ? "avif" : "heic"), quality 90, sha256"), "\(shown.out)")

    let reverted = try launch(["revert", photo])
    #expect(reverted.status == 0, "\(reverted.err)")
    #expect(folder.read(name) == original)
    #expect(folder.names().filter { !$0.hasPrefix("same") && !$0.hasPrefix("render") } == [name])
  }

  /// An `irot` is applied (the EXIF orientation 6 heif-enc copied is not): the render is
  /// upright, as heif-convert shows the file, and says orientation 1.
  @Test func orientationIsUpright() throws {
    let folder = try TemporaryFolder()
    let stored = try FormatTools.heif(fromFixture: "groundtruth/pyfeat-multi-face-o6.jpg", ["-q", "60"])
    folder.write("o.heic", try HEIFBoxes.addingRotation(stored, angle: 1))
    try FormatTools.heifConvert(folder.path("o.heic"), to: folder.path("ref.png"))
    let run = try launch(["render", "-o", folder.path("out.png"), folder.path("o.heic")])
    #expect(run.status == 0, "\(run.err)")
    let rendered = try ImageCodec.decode(try #require(folder.read("out.png")))
    let reference = try ImageCodec.decode(try #require(folder.read("ref.png")))
    #expect(rendered.image.width == 1000 && rendered.image.height == 667)
    // heif-convert copies the EXIF (orientation 6), which photoedit's PNG reader applies: undone.
    #expect(reference.orientation == 6)
    #expect(rendered.image == reference.image.uprighted(exifOrientation: 8))
    #expect(rendered.orientation == 1)
  }

  /// `--strip-identifying` on a HEIC with GPS, serial numbers and names in its EXIF and XMP: the
  /// render holds none of it and audit passes it; without it, the render keeps the GPS.
  @Test func stripIdentifyingStrips() throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try IdentifyingFixture.jpeg())
    folder.write("p.heic", try FormatTools.heif(fromFile: folder.path("in.jpg"), ["-q", "60"]))
    let photo = folder.path("p.heic")
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("kept.heic"), photo]).status == 0)
    let kept = try #require(folder.read("kept.heic"))
    #expect(ImageCodec.metadataFindings(in: kept).contains { $0.name.hasPrefix("GPS") })
    try expectStrippedInPlace("p.heic", in: folder, filter: "faceblur")
  }

  /// `-o x.jpg` converts a HEIC; `-o x.avif` and `-o x.heic` convert a JPEG; the inputs are
  /// untouched.
  @Test func outputsConvert() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.heif("faces/hopper.jpg", ["-q", "70"], in: folder, as: "h.heic")
    let original = folder.read("h.heic")
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("h.jpg"), photo]).status == 0)
    #expect(try ImageCodec.format(of: try #require(folder.read("h.jpg"))) == .jpeg)
    #expect(folder.read("h.heic") == original)
    let jpeg = try folder.copy("faces/hopper.jpg", as: "j.jpg")
    #expect(try launch(["render", "-o", folder.path("j.avif"), jpeg]).status == 0)
    #expect(try ImageCodec.format(of: try #require(folder.read("j.avif"))) == .avif)
    #expect(try launch(["render", "-o", folder.path("j.HEIC"), jpeg]).status == 0)
    #expect(try ImageCodec.format(of: try #require(folder.read("j.HEIC"))) == .heic)
  }

  /// A damaged HEIC is one line naming the file and the reason, exit 65, nothing written.
  @Test func aDamagedHEICIsRefused() throws {
    let folder = try TemporaryFolder()
    let bytes = try FormatTools.heif(fromFixture: "faces/hopper.jpg", ["-q", "50"])
    folder.write("cut.heic", Array(bytes.prefix(bytes.count - 100)))
    let run = try launch(["apply", "-f", "sepia", folder.path("cut.heic")])
    #expect(run.status == 65)
    #expect(run.err == "photoedit: \(folder.path("cut.heic")): truncated HEIC (the file ends early)\n")
    #expect(folder.names() == ["cut.heic"])
  }

  /// A mixed folder's `-r` walk does the HEIC (any case of its extension), the `.hif` and the
  /// AVIF with the JPEG, PNG and WebP, and still counts a GIF and an AVIF sequence as skipped.
  @Test func aMixedFolderWalk() throws {
    let folder = try TemporaryFolder()
    try folder.copy("faces/hopper.jpg", as: "a.jpg")
    try folder.copy("png/basn2c08.png", as: "b.png")
    folder.write("c.webp", try FormatTools.webp(fromFixture: "faces/hopper.jpg"))
    _ = try Self.heif("faces/hopper.jpg", ["-q", "50"], in: folder, as: "d.HEIC")
    _ = try Self.heif("png/basn2c08.png", ["-q", "50"], in: folder, as: "e.hif")
    _ = try Self.heif("faces/hopper.jpg", avif: true, ["-q", "50"], in: folder, as: "f.avif")
    folder.write("g.gif", UnsupportedFormatTests.gif)
    folder.write(
      "h.avifs", [0, 0, 0, 0x18] + Array("ftypavis".utf8) + [0, 0, 0, 0] + Array("avismif1".utf8))
    let run = try launch(["apply", "-f", "sepia", "-r", folder.url.path])
    #expect(run.status == 0, "\(run.err)")
    let done = Set(run.out.split(separator: "\n").map { String($0.split(separator: ":")[0]) })
    #expect(done == Set(["a.jpg", "b.png", "c.webp", "d.HEIC", "e.hif", "f.avif"].map { folder.path($0) }))
    #expect(
      run.err
        == "photoedit: 8 files: 6 done, 0 current, 0 failed; 2 photos skipped: format not supported (GIF, AVIF image sequence)\n"
    )
    #expect(try ImageCodec.format(of: try #require(folder.read("e.hif"))) == .heic)
  }
}
