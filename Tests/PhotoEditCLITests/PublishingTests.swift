import Codecs
import Foundation
import Testing

/// `--strip-identifying` through the real binary, byte for byte: a photo with GPS, serial
/// numbers, owner names, XMP location and history, IPTC by-line and city, and a comment
/// (Tests/TestSupport/IdentifyingFixture.swift) is rendered with and without it, and the
/// render's metadata is read back: what is kept is exactly the expected bytes, and the recorded
/// choice holds for every later re-render.
@Suite struct PublishingTests {
  static func read(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The render's metadata segments are exactly EXIF (stripped), the ICC profile and the
  /// stripped Photoshop block; no secret is left anywhere in the file.
  static func expectStripped(_ jpeg: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected: [(UInt8, [UInt8])] = [
      (0xE1, Array("Exif\0\0".utf8) + IdentifyingFixture.strippedEXIF(littleEndian: true)),
      (0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + (try IdentifyingFixture.icc())),
      (0xED, Array("Photoshop 3.0\0".utf8) + IdentifyingFixture.strippedPhotoshop),
    ]
    let written = markerSegments(jpeg).filter { (0xE1...0xFE).contains($0.marker) }
    #expect(written.map(\.marker) == expected.map(\.0), sourceLocation: sourceLocation)
    #expect(written.map(\.payload) == expected.map(\.1), sourceLocation: sourceLocation)
    for secret in IdentifyingFixture.secrets {
      #expect(!jpeg.containsText(secret), "\(secret) is in the render", sourceLocation: sourceLocation)
    }
    #expect(try ImageCodec.readInfo(jpeg).orientation == 1, sourceLocation: sourceLocation)
  }

  /// Kept: the GPS IFD, the serial numbers, the XMP and the comments are all there (not what
  /// hid after the model's NUL: the EXIF is rebuilt, each string up to its NUL).
  static func expectKept(_ jpeg: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!jpeg.containsText("hidden-serial"), sourceLocation: sourceLocation)
    for text in ["012345678901", "Alice Example", "photoshop:City", "Shot by Alice"] {
      #expect(jpeg.containsText(text), "\(text) is not in the render", sourceLocation: sourceLocation)
    }
    // The GPS latitude 48/1 51/1 2436/100, little-endian.
    let latitude: [UInt8] = [
      48, 0, 0, 0, 1, 0, 0, 0, 51, 0, 0, 0, 1, 0, 0, 0, 0x84, 0x09, 0, 0, 100, 0, 0, 0,
    ]
    let exif = markerSegments(jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif".utf8)) }
    let found = exif.map { e in
      (0...(e.payload.count - latitude.count)).contains {
        Array(e.payload[$0..<($0 + latitude.count)]) == latitude
      }
    }
    #expect(found == true, "no GPS latitude in the EXIF", sourceLocation: sourceLocation)
    #expect(!jpeg.containsText("THUMBNAIL"), sourceLocation: sourceLocation)
  }

  static func sidecarRender(_ photo: String) throws -> [String: Any] {
    let json = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: photo + ".photoedit.json")))
    return try #require((json as? [String: Any])?["render"] as? [String: Any])
  }

  @Test func theChoiceIsRecordedAndEveryReRenderStripsTheSameWay() throws {
    let folder = try TemporaryFolder()
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try IdentifyingFixture.jpeg())
    func run(_ arguments: [String]) throws {
      let r = try launch(arguments)
      #expect(r.status == 0, "\(arguments): \(r.err)")
    }
    try run(["apply", "--filter", "faceblur", "--strip-identifying", photo])
    let blurred = try Self.read(photo)
    try Self.expectStripped(blurred)
    #expect(try Self.sidecarRender(photo)["metadata"] as? String == "stripped")
    let show = try launch(["show", photo]).out
    #expect(show.contains("metadata: identifying metadata stripped"))
    let showJSON = try launch(["show", "--json", photo]).out
    #expect(showJSON.contains("\"metadata\": \"stripped\""))

    // A later apply without the option keeps stripping; undo and redo give the same bytes.
    try run(["apply", "--filter", "sepia", photo])
    let sepia = try Self.read(photo)
    try Self.expectStripped(sepia)
    try run(["undo", photo])
    #expect(try Self.read(photo) == blurred)
    // No step left: the photo is the original's pixels, still without its identifying metadata.
    try run(["undo", photo])
    try Self.expectStripped(try Self.read(photo))
    #expect(try launch(["status", photo]).out.contains("unedited"))
    try run(["redo", photo])
    #expect(try Self.read(photo) == blurred)
    try run(["redo", photo])
    #expect(try Self.read(photo) == sepia)
    try run(["edit", photo, "--step", "1", "--set", "blocks=3"])
    try Self.expectStripped(try Self.read(photo))

    // An explicit option changes the recorded choice, for this render and the later ones.
    try run(["render", "--keep-identifying", photo])
    Self.expectKept(try Self.read(photo))
    #expect(try Self.sidecarRender(photo)["metadata"] == nil)
    #expect(try launch(["show", photo]).out.contains("metadata: the original's, kept"))
    try run(["undo", "--strip-identifying", photo])
    try Self.expectStripped(try Self.read(photo))
    #expect(try Self.read(photo) == sepia)
    try run(["redo", photo])
    try Self.expectStripped(try Self.read(photo))

    // check --repair re-renders a missing render the recorded way.
    let before = try Self.read(photo)
    try FileManager.default.removeItem(atPath: photo)
    try run(["check", "--repair", photo])
    #expect(try Self.read(photo) == before)
  }

  @Test func withoutTheOptionTheMetadataIsCarried() throws {
    let folder = try TemporaryFolder()
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try IdentifyingFixture.jpeg())
    let r = try launch(["apply", "--filter", "faceblur", photo])
    #expect(r.status == 0, "\(r.err)")
    Self.expectKept(try Self.read(photo))
    #expect(try Self.sidecarRender(photo)["metadata"] == nil)
    // Undoing everything gives the original's exact bytes back.
    #expect(try launch(["undo", photo]).status == 0)
    #expect(try Self.read(photo) == (try IdentifyingFixture.jpeg()))
  }

  /// The pipeline (a baseline JPEG, row filters only) and the whole-frame route (faceblur) write
  /// the same stripped metadata; an export made without the option is not "current" for one
  /// made with it.
  @Test func exportsStripOnBothRoutes() throws {
    let folder = try TemporaryFolder()
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try IdentifyingFixture.jpeg())
    let public_ = folder.path("public")
    let streamed = try launch([
      "apply", "--filter", "sepia", "--strip-identifying", "--output-dir", public_, photo,
    ])
    #expect(streamed.status == 0, "\(streamed.err)")
    try Self.expectStripped(try Self.read(public_ + "/photo.jpg"))
    let whole = try launch([
      "apply", "--filter", "faceblur", "--strip-identifying", "-o", folder.path("face.jpg"), photo,
    ])
    #expect(whole.status == 0, "\(whole.err)")
    try Self.expectStripped(try Self.read(folder.path("face.jpg")))
    #expect(try Self.read(photo) == (try IdentifyingFixture.jpeg()))

    let out = folder.path("again.jpg")
    #expect(try launch(["apply", "--filter", "sepia", "-o", out, photo]).status == 0)
    Self.expectKept(try Self.read(out))
    // Another request's output is replaced with --force only (the refusal says why).
    let refused = try launch(["apply", "--filter", "sepia", "--strip-identifying", "-o", out, photo])
    #expect(refused.status == 73)
    #expect(refused.err.contains("was made with sepia; this request's settings differ"), "\(refused.err)")
    let rerun = try launch(["apply", "--filter", "sepia", "--strip-identifying", "--force", "-o", out, photo])
    #expect(rerun.status == 0 && !rerun.out.contains("current"), "\(rerun.out)")
    try Self.expectStripped(try Self.read(out))
    #expect(
      try launch(["apply", "--filter", "sepia", "--strip-identifying", "-o", out, photo]).out.contains(
        "current"))
  }

  /// `render -o` of a stripped recipe strips too (JPEG and PNG), unless it says otherwise.
  @Test func exportsOfAStrippedRecipeStrip() throws {
    let folder = try TemporaryFolder()
    let photo = folder.path("photo.jpg")
    folder.write("photo.jpg", try IdentifyingFixture.jpeg())
    #expect(try launch(["apply", "--filter", "vignette", "--strip-identifying", photo]).status == 0)
    #expect(try launch(["render", photo, "-o", folder.path("export.jpg")]).status == 0)
    try Self.expectStripped(try Self.read(folder.path("export.jpg")))
    #expect(try launch(["render", photo, "-o", folder.path("small.jpg"), "--max-size", "64"]).status == 0)
    try Self.expectStripped(try Self.read(folder.path("small.jpg")))
    #expect(try launch(["render", photo, "-o", folder.path("export.png")]).status == 0)
    try Self.expectStrippedPNG(try Self.read(folder.path("export.png")), littleEndian: true)
    #expect(try launch(["render", photo, "--keep-identifying", "-o", folder.path("kept.jpg")]).status == 0)
    Self.expectKept(try Self.read(folder.path("kept.jpg")))
  }

  /// A PNG render gets the stripped EXIF as eXIf, the ICC profile as an iCCP of photoedit's own
  /// name, and no text chunk.
  static func expectStrippedPNG(
    _ png: [UInt8], littleEndian: Bool, profile: [UInt8]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let chunks = pngChunks(png)
    let types = chunks.map(\.type).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
    #expect(types == ["IHDR", "iCCP", "eXIf", "IDAT", "IEND"], sourceLocation: sourceLocation)
    #expect(
      chunks.first { $0.type == "eXIf" }?.data == IdentifyingFixture.strippedEXIF(littleEndian: littleEndian),
      sourceLocation: sourceLocation)
    #expect(
      try ImageCodec.decode(png).metadata.icc == (try profile ?? IdentifyingFixture.icc()),
      sourceLocation: sourceLocation)
    for secret in IdentifyingFixture.secrets {
      #expect(!png.containsText(secret), "\(secret) is in the render", sourceLocation: sourceLocation)
    }
  }

  @Test func pngInputsAndOutputsStrip() throws {
    let folder = try TemporaryFolder()
    let jpeg = folder.path("photo.jpg")
    folder.write("photo.jpg", try IdentifyingFixture.jpeg())
    let r = try launch([
      "apply", "--filter", "sepia", "--strip-identifying", "-o", folder.path("out.png"), jpeg,
    ])
    #expect(r.status == 0, "\(r.err)")
    try Self.expectStrippedPNG(try Self.read(folder.path("out.png")), littleEndian: true)

    let input = try IdentifyingFixture.png()
    let profile = try #require(try ImageCodec.decode(input).metadata.icc)
    let png = folder.path("astronaut.png")
    folder.write("astronaut.png", input)
    let blurred = try launch(["apply", "--filter", "faceblur", "--strip-identifying", png])
    #expect(blurred.status == 0, "\(blurred.err)")
    try Self.expectStrippedPNG(try Self.read(png), littleEndian: false, profile: profile)
    // Without: the eXIf, the XMP and the profile's own name are carried.
    #expect(try launch(["render", "--keep-identifying", png]).status == 0)
    let kept = try Self.read(png)
    #expect(
      kept.containsText("012345678901") && kept.containsText("photoshop:City")
        && kept.containsText("Alice's monitor"))
    #expect(try launch(["undo", png]).status == 0)
    #expect(try Self.read(png) == input)
  }

  @Test func bothChoicesAtOnceIsAUsageError() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let r = try launch(["apply", "-f", "sepia", "--strip-identifying", "--keep-identifying", photo])
    #expect(r.status == 64)
    #expect(r.err.contains("give --strip-identifying or --keep-identifying, not both"))
    #expect(folder.names() == ["h.jpg"])
    #expect(try launch(["help", "undo"]).out.contains("--strip-identifying"))
    #expect(try launch(["revert", "--strip-identifying", photo]).status == 64)
  }
}
