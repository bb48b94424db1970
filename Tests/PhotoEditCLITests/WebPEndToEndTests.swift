import Codecs
import Foundation
import PhotoCore
import Testing

/// WebP photos through the real binary, made at test time from the fixtures by cwebp: faces
/// found as on the same pixels in PNG and hidden, orientation upright, the render written as
/// WebP in place (lossless for a lossless original), `--strip-identifying`, revert's exact
/// bytes, conversion with `-o`.
@Suite struct WebPEndToEndTests {
  /// cwebp's WebP of a fixture, written into `folder` as `name`.
  static func webp(_ fixture: String, _ options: [String] = [], in folder: TemporaryFolder, as name: String)
    throws -> String
  {
    folder.write(name, try FormatTools.webp(fromFixture: fixture, options))
    return folder.path(name)
  }

  /// The faces `photoedit detect --json` finds in each file, as (x, y, width, height).
  static func faces(_ paths: [String]) throws -> [[[Double]]] {
    let run = try launch(["detect", "--json"] + paths)
    #expect(run.status == 0, "\(run.err)")
    return try run.out.split(separator: "\n").map { line in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let faces = try #require(object["faces"] as? [[String: Any]])
      return faces.map { face in ["x", "y", "width", "height"].map { (face[$0] as! NSNumber).doubleValue } }
    }
  }

  /// The faces found in a WebP are those found in the same pixels as a PNG (dwebp's), box for
  /// box; faceblur hides them (CenterFace finds none in the render, `audit` passes it), and the
  /// render is a WebP in place, lossy like its original.
  @Test func faceblurHidesTheFacesFoundAsInPNG() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.webp("groundtruth/opencv-group1.jpg", ["-q", "85"], in: folder, as: "group.webp")
    try FormatTools.run("dwebp", ["-quiet", photo, "-o", folder.path("same.png")])
    let found = try Self.faces([photo, folder.path("same.png")])
    #expect(found.count == 2 && found[0].count >= 3, "\(found)")
    #expect(found[0] == found[1])

    let applied = try launch(["apply", "-f", "faceblur", photo])
    #expect(applied.status == 0, "\(applied.err)")
    let sidecar = try #require(folder.read("group.webp.photoedit.json"))
    let stored = try AdjustmentDataText.faces(in: sidecar)
    #expect(stored.count == found[0].count)
    for (box, face) in zip(stored, found[0]) {
      #expect(abs(box.0 - face[0]) < 0.01 && abs(box.2 - face[2]) < 0.01, "\(box) \(face)")
    }
    let render = try #require(folder.read("group.webp"))
    #expect(render.starts(with: Array("RIFF".utf8)) && render.hasBytes("VP8 ", at: 12))
    // A copy of the render is searched (`detect` on an edited photo searches its original).
    folder.write("render.webp", render)
    #expect(try Self.faces([folder.path("render.webp")]) == [[]])
    let audit = try launch(["audit", photo])
    #expect(audit.status == 0, "\(audit.out)\(audit.err)")
    let shown = try launch(["show", photo])
    #expect(shown.out.contains("render: webp, quality 90, sha256"), "\(shown.out)")
  }

  /// A lossless WebP's render is lossless: outside the hidden face, every pixel is the
  /// original's; `--quality` makes it lossy from then on; `revert` gives back the original's
  /// exact bytes and leaves nothing else.
  @Test func aLosslessOriginalGetsALosslessRenderAndRevertsExactly() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.webp("faces/astronaut.png", ["-lossless"], in: folder, as: "a.webp")
    let original = try #require(folder.read("a.webp"))
    let applied = try launch(["apply", "-f", "faceblur", photo])
    #expect(applied.status == 0, "\(applied.err)")
    let render = try #require(folder.read("a.webp"))
    #expect(render.hasBytes("VP8L", at: 12) || render.hasBytes("VP8L", at: 30))
    let before = try ImageCodec.decode(original).image
    let after = try ImageCodec.decode(render).image
    var changed = 0
    for y in 0..<512 { for x in 0..<512 where before[x, y] != after[x, y] { changed += 1 } }
    #expect(changed > 2000)
    for (x, y) in [(10, 10), (500, 500), (10, 500), (450, 400), (100, 300)] {
      #expect(before[x, y] == after[x, y])
    }
    #expect(try launch(["show", photo]).out.contains("render: webp, lossless, sha256"))
    // A quality asked for makes the render lossy, and stays (pinned) for later renders.
    #expect(try launch(["render", "--quality", "80", photo]).status == 0)
    #expect(try #require(folder.read("a.webp")).hasBytes("VP8 ", at: 12))
    #expect(try launch(["apply", "-f", "sepia", photo]).status == 0)
    #expect(try #require(folder.read("a.webp")).hasBytes("VP8 ", at: 12))
    #expect(try launch(["show", photo]).out.contains("render: webp, quality 80, pinned, sha256"))

    let reverted = try launch(["revert", photo])
    #expect(reverted.status == 0, "\(reverted.err)")
    #expect(folder.read("a.webp") == original)
    #expect(folder.names() == ["a.webp"])
  }

  /// The EXIF orientation cwebp copied from the JPEG is applied: the render is upright (the
  /// JPEG's upright pixels, within lossy coding's error) and says orientation 1.
  @Test func orientationIsUpright() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.webp(
      "faces/hopper_orientation_6.jpg", ["-metadata", "exif", "-q", "95"], in: folder, as: "o.webp")
    let out = folder.path("out.png")
    let run = try launch(["render", "-o", out, photo])
    #expect(run.status == 0, "\(run.err)")
    let upright = try ImageCodec.decode(try fixture("faces/hopper.jpg")).image
    let rendered = try ImageCodec.decode(try #require(folder.read("out.png")))
    #expect(rendered.orientation == 1)
    #expect(rendered.image.width == upright.width && rendered.image.height == upright.height)
    var total = 0
    for i in 0..<upright.bytes.count where i % 4 != 3 {
      total += abs(Int(upright.bytes[i]) - Int(rendered.image.bytes[i]))
    }
    // Two lossy codings of the same photo (measured about 2.5 a channel).
    #expect(Double(total) / Double(upright.width * upright.height * 3) < 6)

    #expect(try launch(["apply", "-f", "sepia", photo]).status == 0)
    let render = try ImageCodec.decode(try #require(folder.read("o.webp")))
    #expect(render.orientation == 1 && render.image.width == 128)
  }

  /// `--strip-identifying` on a WebP with GPS, serial numbers and names in its EXIF and XMP
  /// (cwebp copied them from the JPEG): the render holds none of it, and audit passes it;
  /// without it, the render keeps the EXIF (GPS included) as JPEG renders do.
  @Test func stripIdentifyingStrips() throws {
    let folder = try TemporaryFolder()
    folder.write("in.jpg", try IdentifyingFixture.jpeg())
    folder.write("p.webp", try FormatTools.webp(fromFile: folder.path("in.jpg"), ["-metadata", "all"]))
    let photo = folder.path("p.webp")
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("kept.webp"), photo]).status == 0)
    let kept = try #require(folder.read("kept.webp"))
    #expect(
      kept.containsText("Paris")
        || ImageCodec.metadataFindings(in: kept).contains { $0.name.hasPrefix("GPS") })

    try expectStrippedInPlace("p.webp", in: folder, filter: "faceblur")
  }

  /// `-o x.jpg` and `-o x.png` convert a WebP; `-o x.webp` converts a JPEG (lossy) and a PNG
  /// (lossless); the inputs are untouched.
  @Test func outputsConvert() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.webp("faces/hopper.jpg", in: folder, as: "h.webp")
    let original = folder.read("h.webp")
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("h.jpg"), photo]).status == 0)
    #expect(try ImageCodec.format(of: try #require(folder.read("h.jpg"))) == .jpeg)
    #expect(try launch(["render", "-o", folder.path("h.png"), photo]).status == 0)
    let png = try ImageCodec.decode(try #require(folder.read("h.png")))
    let webpPixels = try ImageCodec.decode(try #require(original)).image
    #expect(png.format == .png && png.image == webpPixels)
    #expect(folder.read("h.webp") == original)

    let jpeg = try folder.copy("faces/hopper.jpg", as: "j.jpg")
    #expect(try launch(["render", "-o", folder.path("j.webp"), jpeg]).status == 0)
    #expect(try #require(folder.read("j.webp")).hasBytes("VP8 ", at: 12))
    let astronaut = try folder.copy("faces/astronaut.png", as: "p.png")
    #expect(try launch(["render", "-o", folder.path("p.webp"), astronaut]).status == 0)
    let fromPNG = try ImageCodec.decode(try #require(folder.read("p.webp")))
    #expect(fromPNG.details.storedLossless)
    let pngPixels = try ImageCodec.decode(try fixture("faces/astronaut.png")).image
    #expect(fromPNG.image == pngPixels)
  }

  /// A damaged WebP is one line naming the file and the reason, exit 65, nothing written.
  @Test func aDamagedWebPIsRefused() throws {
    let folder = try TemporaryFolder()
    let bytes = try FormatTools.webp(fromFixture: "faces/hopper.jpg")
    folder.write("cut.webp", Array(bytes.prefix(bytes.count - 100)))
    let run = try launch(["apply", "-f", "sepia", folder.path("cut.webp")])
    #expect(run.status == 65)
    #expect(run.err == "photoedit: \(folder.path("cut.webp")): truncated WebP (the file ends early)\n")
    #expect(folder.names() == ["cut.webp"])
  }
}

extension Array where Element == UInt8 {
  /// True when the ASCII `text` is at `offset`.
  func hasBytes(_ text: String, at offset: Int) -> Bool {
    offset + text.utf8.count <= count && Array(self[offset..<(offset + text.utf8.count)]) == Array(text.utf8)
  }
}
