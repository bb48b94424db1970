import Codecs
import Foundation
import PhotoCore
import Testing

/// TIFF photos through the real binary, made at test time from the fixtures by libtiff's tools:
/// faces found as on the same pixels in PNG and hidden, the render written as TIFF in place,
/// orientation upright, `--strip-identifying`, revert's exact bytes, conversion with `-o`,
/// damaged and multi-page files refused.
@Suite struct TIFFEndToEndTests {
  /// A fixture's pixels as a TIFF made by raw2tiff and tiffcp (`options`), in `folder`.
  static func tiff(
    _ fixture: String, _ options: [String] = ["-c", "lzw"], in folder: TemporaryFolder, as name: String
  )
    throws -> String
  {
    let image = try ImageCodec.decode(try TestSupport.fixture(fixture)).image
    return try FormatTools.tiff(image, tiffcp: options, in: folder, as: name)
  }

  /// The faces found in a TIFF are those found in the same pixels as a PNG, box for box;
  /// faceblur hides them (CenterFace finds none in the render, `audit` passes it); the render
  /// is a TIFF in place (Deflate, 8 bits); `revert` gives back the original's exact bytes.
  @Test func faceblurHidesTheFacesFoundAsInPNGAndRevertsExactly() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.tiff(
      "groundtruth/opencv-group1.jpg", ["-c", "zip", "-t"], in: folder, as: "group.tif")
    let original = try #require(folder.read("group.tif"))
    let pixels = try ImageCodec.decode(original).image
    folder.write("same.png", try ImageCodec.encode(pixels, as: .png))
    let found = try WebPEndToEndTests.faces([photo, folder.path("same.png")])
    #expect(found.count == 2 && found[0].count >= 3, "\(found)")
    #expect(found[0] == found[1])

    let applied = try launch(["apply", "-f", "faceblur", photo])
    #expect(applied.status == 0, "\(applied.err)")
    let stored = try AdjustmentDataText.faces(in: try #require(folder.read("group.tif.photoedit.json")))
    #expect(stored.count == found[0].count)
    for (box, face) in zip(stored, found[0]) {
      #expect(abs(box.0 - face[0]) < 0.01 && abs(box.2 - face[2]) < 0.01, "\(box) \(face)")
    }
    let render = try #require(folder.read("group.tif"))
    #expect(try ImageCodec.format(of: render) == .tiff)
    folder.write("render.tif", render)
    let info = String(decoding: try FormatTools.run("tiffinfo", [folder.path("render.tif")]), as: UTF8.self)
    #expect(info.contains("Compression Scheme: AdobeDeflate"), "\(info)")
    #expect(try WebPEndToEndTests.faces([folder.path("render.tif")]) == [[]])
    // Outside the faces, the render is the original's pixels exactly (lossless).
    let after = try ImageCodec.decode(render).image
    #expect(
      after[0, 0] == pixels[0, 0]
        && after[after.width - 1, after.height - 1] == pixels[pixels.width - 1, pixels.height - 1])
    #expect(after != pixels)
    let audit = try launch(["audit", photo])
    #expect(audit.status == 0, "\(audit.out)\(audit.err)")
    #expect(try launch(["show", photo]).out.contains("render: tiff, lossless, sha256"))

    let reverted = try launch(["revert", photo])
    #expect(reverted.status == 0, "\(reverted.err)")
    #expect(folder.read("group.tif") == original)
    #expect(folder.names().sorted() == ["group.tif", "render.tif", "same.png"])
  }

  /// The Orientation tag (tiffset) is applied once: the render is upright (the JPEG's pixels,
  /// exactly: the TIFF was lossless) and says orientation 1.
  @Test func orientationIsUpright() throws {
    let folder = try TemporaryFolder()
    let stored = try ImageCodec.decode(try TestSupport.fixture("faces/hopper_orientation_6.jpg"))
    // The JPEG's stored (not upright) pixels, then the tag that says how to turn them.
    let raw = stored.image.uprighted(exifOrientation: 8)
    let photo = try FormatTools.tiff(raw, tiffcp: ["-c", "lzw"], in: folder, as: "o.tif")
    try FormatTools.run("tiffset", ["-s", "274", "6", photo])
    let run = try launch(["render", "-o", folder.path("out.png"), photo])
    #expect(run.status == 0, "\(run.err)")
    let rendered = try ImageCodec.decode(try #require(folder.read("out.png")))
    #expect(rendered.orientation == 1)
    #expect(rendered.image == stored.image)

    #expect(try launch(["apply", "-f", "sepia", photo]).status == 0)
    let render = try ImageCodec.decode(try #require(folder.read("o.tif")))
    #expect(render.format == .tiff && render.orientation == 1)
    #expect(render.image.width == stored.image.width && render.image.height == stored.image.height)
  }

  /// A TIFF with GPS, names and serials in its directories and a thumbnail in its XMP: kept by
  /// default in a JPEG render and in the TIFF render in place (GPS included, as for a JPEG),
  /// never a picture; with
  /// `--strip-identifying` the render (in place, a TIFF) holds none of it and audit passes it.
  @Test func stripIdentifyingStrips() throws {
    let folder = try TemporaryFolder()
    folder.write("p.tif", try IdentifyingTIFF.bytes())
    let photo = folder.path("p.tif")
    let before = try launch(["audit", photo])
    #expect(before.status == 1 && before.out.contains("GPSLatitude"), "\(before.out)")
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("kept.jpg"), photo]).status == 0)
    let kept = try #require(folder.read("kept.jpg"))
    #expect(ImageCodec.metadataFindings(in: kept).contains { $0.name == "GPSLatitude" })
    #expect(ImageCodec.metadataFindings(in: kept).filter { $0.kind == .embeddedImage }.isEmpty)
    // So does the TIFF render in place: the EXIF in its own directories, GPS included.
    #expect(try launch(["apply", "-f", "sepia", photo]).status == 0)
    let inPlace = try #require(folder.read("p.tif"))
    #expect(try ImageCodec.format(of: inPlace) == .tiff)
    #expect(ImageCodec.metadataFindings(in: inPlace).contains { $0.name == "GPSLatitude" })
    #expect(ImageCodec.metadataFindings(in: inPlace).filter { $0.kind == .embeddedImage }.isEmpty)
    #expect(inPlace.containsText("Alice Example"))

    try expectStrippedInPlace("p.tif", in: folder, filter: "sepia")
  }

  /// `-o x.jpg` and `-o x.png` convert a TIFF; `-o x.tif` and `-o x.tiff` convert a JPEG (the
  /// pixels exactly, in 8-bit RGB); the inputs are untouched.
  @Test func outputsConvert() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.tiff("faces/hopper.jpg", in: folder, as: "h.tiff")
    let original = try #require(folder.read("h.tiff"))
    #expect(try launch(["apply", "-f", "sepia", "-o", folder.path("h.jpg"), photo]).status == 0)
    #expect(try ImageCodec.format(of: try #require(folder.read("h.jpg"))) == .jpeg)
    #expect(try launch(["render", "-o", folder.path("h.png"), photo]).status == 0)
    #expect(
      try ImageCodec.decode(try #require(folder.read("h.png"))).image == ImageCodec.decode(original).image)
    #expect(folder.read("h.tiff") == original)

    let jpeg = try folder.copy("faces/hopper.jpg", as: "j.jpg")
    for name in ["j.tif", "J2.TIFF"] {
      #expect(try launch(["render", "-o", folder.path(name), jpeg]).status == 0)
      let out = try ImageCodec.decode(try #require(folder.read(name)))
      #expect(out.format == .tiff)
      #expect(out.image == (try ImageCodec.decode(try TestSupport.fixture("faces/hopper.jpg")).image))
    }
  }

  /// A damaged TIFF and a multi-page one are one line naming the file and the reason, exit 65,
  /// nothing written.
  @Test func damagedAndMultiPageTIFFsAreRefused() throws {
    let folder = try TemporaryFolder()
    let first = try Self.tiff("faces/hopper.jpg", in: folder, as: "a.tif")
    let second = try Self.tiff("faces/astronaut.png", in: folder, as: "b.tif")
    try FormatTools.run("tiffcp", [first, second, folder.path("two.tif")])
    let bytes = try #require(folder.read("a.tif"))
    folder.write("cut.tif", Array(bytes.prefix(bytes.count - 100)))
    try FileManager.default.removeItem(atPath: first)
    try FileManager.default.removeItem(atPath: second)
    let two = folder.read("two.tif")
    let cut = folder.read("cut.tif")

    let multi = try launch(["apply", "-f", "faceblur", folder.path("two.tif")])
    #expect(multi.status == 65)
    #expect(multi.err == "photoedit: \(folder.path("two.tif")): unsupported image: multi-page TIFF\n")
    let damaged = try launch(["apply", "-f", "sepia", folder.path("cut.tif")])
    #expect(damaged.status == 65)
    #expect(
      damaged.err.hasPrefix("photoedit: \(folder.path("cut.tif")): corrupt TIFF: libtiff: "), "\(damaged.err)"
    )
    #expect(damaged.err.split(separator: "\n").count == 1)
    #expect(folder.names().sorted() == ["cut.tif", "two.tif"])
    #expect(folder.read("two.tif") == two && folder.read("cut.tif") == cut)
  }
}
