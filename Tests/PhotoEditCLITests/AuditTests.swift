import Foundation
import Recipe
import Store
import Testing

/// `photoedit audit`, through the real binary: faces left visible, embedded images, identifying
/// metadata and store files, its exit statuses and its JSON; and the README's publishing recipe,
/// run as written.
@Suite struct AuditTests {
  /// A JPEG with `segments` (marker, payload) right after its SOI.
  static func withSegments(_ jpeg: [UInt8], _ segments: [(UInt8, [UInt8])]) -> [UInt8] {
    var out = Array(jpeg[..<2])
    for (marker, payload) in segments {
      out += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }
    return out + jpeg[2...]
  }

  /// The JSON lines of an output, as objects.
  static func lines(_ out: String) throws -> [[String: Any]] {
    try out.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  static func findings(_ line: [String: Any]) -> [[String: Any]] {
    line["findings"] as? [[String: Any]] ?? []
  }

  /// A photo with a face that nothing hid is reported, with the face's box and score, and the
  /// run exits 1; the same photo after faceblur (published without its sidecar) passes.
  @Test func aVisibleFaceIsAFindingWithItsBox() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "hopper.jpg")
    let run = try launch(["audit", "--json", photo])
    #expect(run.status == 1, "\(run.err)")
    let line = try #require(try Self.lines(run.out).first)
    let faces = Self.findings(line).filter { $0["kind"] as? String == "face" }
    #expect(faces.count == 1)
    let box = try #require(faces.first?["box"] as? [String: Double])
    // The face detect reports (x=40.3 y=22.4 width=45 height=55.6), in pixels of the photo.
    #expect(abs(box["x"]! - 40.3) < 2 && abs(box["y"]! - 22.4) < 2)
    #expect(abs(box["width"]! - 45) < 3 && abs(box["height"]! - 55.6) < 3)
    #expect(try #require(faces.first?["score"] as? Double) >= AuditOptions.defaultThreshold)

    let text = try launch(["audit", photo])
    #expect(text.status == 1)
    #expect(
      text.out.hasPrefix("\(photo): 1 face visible (x=40.3 y=22.4 width=45 height=55.6 score="), "\(text.out)"
    )

    let out = folder.path("out.jpg")
    #expect(try launch(["apply", "-f", "faceblur", "--strip-identifying", "-o", out, photo]).status == 0)
    try FileManager.default.removeItem(atPath: out + ".photoedit.json")
    let blurred = try launch(["audit", out])
    #expect(blurred.status == 0, "\(blurred.out)\(blurred.err)")
    #expect(blurred.out == "")
  }

  /// EXIF GPS is identifying metadata, named tag by tag.
  @Test func gpsIsAMetadataFinding() throws {
    let folder = try TemporaryFolder()
    let jpeg = Self.withSegments(
      try fixture("jpeg/testorig.jpg"),
      [(0xE1, Array("Exif\0\0".utf8) + IdentifyingFixture.exifTIFF(littleEndian: true))])
    folder.write("gps.jpg", jpeg)
    let run = try launch(["audit", "--json", folder.path("gps.jpg")])
    #expect(run.status == 1, "\(run.err)")
    let found = Self.findings(try #require(try Self.lines(run.out).first))
    let tags = found.filter { $0["kind"] as? String == "metadata" && $0["in"] as? String == "EXIF" }
      .compactMap { $0["tag"] as? String }
    #expect(tags.contains("GPSLatitude") && tags.contains("GPSLongitude"), "\(tags)")
    #expect(tags.contains("Artist") && tags.contains("CameraSerialNumber"), "\(tags)")
    #expect(!found.contains { $0["kind"] as? String == "face" })

    let text = try launch(["audit", folder.path("gps.jpg")])
    #expect(text.out.contains("identifying metadata: EXIF ImageDescription, EXIF Artist"), "\(text.out)")
    #expect(text.out.contains("EXIF GPSLatitude"))
  }

  /// A thumbnail in the XMP (xmp:Thumbnails, and Google's GImage:Data) is an embedded image.
  @Test func anXMPThumbnailIsAnEmbeddedImage() throws {
    let folder = try TemporaryFolder()
    let jpeg = Self.withSegments(
      try fixture("jpeg/testorig.jpg"),
      [(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + (try EmbeddedImagesFixture.xmp()))])
    folder.write("thumb.jpg", jpeg)
    let run = try launch(["audit", "--json", folder.path("thumb.jpg")])
    #expect(run.status == 1, "\(run.err)")
    let images = Self.findings(try #require(try Self.lines(run.out).first))
      .filter { $0["kind"] as? String == "embedded-image" }
    #expect(
      images.contains { $0["in"] as? String == "XMP" && $0["what"] as? String == "xmp:Thumbnails" },
      "\(images)")
    #expect(images.contains { $0["what"] as? String == "GImage:Data" }, "\(images)")
  }

  /// In a folder edited in place, each photo's `.original` and sidecar are store files: reported
  /// with the photo they belong to, the run exits 1; the renders themselves are clean.
  @Test func aFolderHoldingOriginalsHasStoreFileFindings() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: folder.path("photos"), withIntermediateDirectories: true)
    let photo = try folder.copy("faces/hopper.jpg", as: "photos/hopper.jpg")
    #expect(try launch(["apply", "-f", "faceblur", "--strip-identifying", photo]).status == 0)
    let run = try launch(["audit", "-r", "--json", folder.path("photos")])
    #expect(run.status == 1, "\(run.err)")
    let lines = try Self.lines(run.out)
    #expect(lines.map { $0["file"] as? String } == [photo, photo + ".original", photo + ".photoedit.json"])
    #expect(Self.findings(lines[0]).isEmpty)
    for (line, role) in zip(lines.dropFirst(), ["original", "sidecar"]) {
      let found = Self.findings(line)
      #expect(found.count == 1)
      #expect(found.first?["kind"] as? String == "store-file")
      #expect(found.first?["role"] as? String == role)
      #expect(found.first?["photo"] as? String == photo)
    }
    let text = try launch(["audit", "-r", folder.path("photos")])
    #expect(
      text.out == """
        \(photo).original: store file: the unedited original of \(photo), kept by an in-place edit; it would be published with the folder
        \(photo).photoedit.json: store file: the sidecar of \(photo) (it names the original and the hidden faces' boxes); it would be published with the folder

        """)
    #expect(text.err == "photoedit: 3 files: 3 done, 0 current, 0 failed; 2 files with findings\n")
  }

  /// A walk audits what a copy of the folder would publish: hidden photos and hidden folders
  /// too, and every store file (a journal, a lock, a temporary file) with the photo it belongs
  /// to; a text file is not read.
  @Test func aWalkSeesHiddenFilesAndEveryStoreFile() throws {
    let folder = try TemporaryFolder()
    try PublishFolderTests.put("faces/hopper.jpg", "site/.hidden.jpg", in: folder)
    try PublishFolderTests.put("jpeg/testorig.jpg", "site/.cache/x.jpg", in: folder)
    for name in [
      "a.jpg.photoedit.journal", "a.jpg.photoedit.lock", "a.jpg.photoedit-tmp-0123456789abcdef", "notes.txt",
    ] {
      folder.write("site/" + name, Array("anything".utf8))
    }
    let site = folder.path("site")
    func snapshot() -> [String: [UInt8]] {
      var files: [String: [UInt8]] = [:]
      for name in PublishFolderTests.files(below: site) {
        files[name] = PublishFolderTests.bytes(site + "/" + name)
      }
      return files
    }
    let before = snapshot()
    let run = try launch(["audit", "-r", "--json", site])
    #expect(snapshot() == before, "audit wrote nothing")
    #expect(run.status == 1, "\(run.err)")
    let lines = try Self.lines(run.out)
    #expect(
      lines.compactMap { $0["file"] as? String } == [
        "\(site)/.cache/x.jpg", "\(site)/.hidden.jpg", "\(site)/a.jpg.photoedit-tmp-0123456789abcdef",
        "\(site)/a.jpg.photoedit.journal", "\(site)/a.jpg.photoedit.lock",
      ])
    #expect(Self.findings(lines[0]).isEmpty)
    #expect(Self.findings(lines[1]).contains { $0["kind"] as? String == "face" })
    for (line, role) in zip(lines.dropFirst(2), ["temporary", "journal", "lock"]) {
      #expect(Self.findings(line).first?["role"] as? String == role)
      #expect(Self.findings(line).first?["photo"] as? String == "\(site)/a.jpg")
    }
  }

  /// A file that is not an image is bad data (65), a missing one 66, a pipe is refused unread
  /// (65); among several files, any of them makes the run exit 1, and the others are audited.
  @Test func unreadableAndMissingFiles() throws {
    let folder = try TemporaryFolder()
    folder.write("bad.jpg", Array("not a photo".utf8))
    let bad = try launch(["audit", folder.path("bad.jpg")])
    #expect(bad.status == 65)
    #expect(
      bad.err == "photoedit: \(folder.path("bad.jpg")): not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image\n")
    let missing = try launch(["audit", folder.path("missing.jpg")])
    #expect(missing.status == 66)
    #expect(missing.err == "photoedit: \(folder.path("missing.jpg")): no such file\n")
    #expect(mkfifo(folder.path("pipe.jpg"), 0o644) == 0)
    let pipe = try launch(["audit", folder.path("pipe.jpg")], deadline: 30)
    #expect(pipe.status == 65)
    let clean = try folder.copy("jpeg/testorig.jpg", as: "clean.jpg")
    let several = try launch(["audit", "--json", clean, folder.path("missing.jpg")])
    #expect(several.status == 1)
    let lines = try Self.lines(several.out)
    #expect(lines.count == 2)
    #expect(lines[0]["status"] as? String == "ok" && Self.findings(lines[0]).isEmpty)
    #expect(lines[1]["status"] as? String == "error" && lines[1]["exit"] as? Int == 66)
  }

  /// Every JSON line has `file`, `status`, `seconds` and `findings`; each finding a `kind` and
  /// its details, as docs/audit.md lists them.
  @Test func theJSONShape() throws {
    let folder = try TemporaryFolder()
    folder.write("everything.jpg", try EmbeddedImagesFixture.jpeg(orientation: 1))
    let clean = try folder.copy("jpeg/testorig.jpg", as: "clean.jpg")
    let run = try launch(["audit", "--json", folder.path("everything.jpg"), clean])
    #expect(run.status == 1)
    let lines = try Self.lines(run.out)
    #expect(lines.count == 2)
    for line in lines {
      #expect(Set(line.keys) == ["file", "status", "seconds", "findings", "width", "height"])
    }
    #expect(Self.findings(lines[1]).isEmpty)
    let found = Self.findings(lines[0])
    let keys: [String: Set<String>] = [
      "face": ["kind", "box", "score"], "embedded-image": ["kind", "in", "what"],
      "metadata": ["kind", "in", "tag"],
    ]
    for finding in found {
      let kind = try #require(finding["kind"] as? String)
      #expect(Set(finding.keys) == keys[kind], "\(finding)")
    }
    #expect(Set(found.compactMap { $0["kind"] as? String }) == ["face", "embedded-image", "metadata"])
    let box = try #require(found.first { $0["kind"] as? String == "face" }?["box"] as? [String: Double])
    #expect(Set(box.keys) == ["x", "y", "width", "height"])
  }

  /// The README's publishing section is a recipe: its commands, run as written by a shell in a
  /// folder holding `photos/` (two photos with faces, in two folders), each exit 0, and the last,
  /// `audit` of the copy that leaves, finds nothing. The folder photoedit wrote, sidecars and all,
  /// does not pass: its sidecars are store files.
  @Test func theREADMEPublishingRecipeRunsAsWritten() throws {
    let readme = try String(contentsOfFile: fixturePath("../README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "## Publishing\n").dropFirst().first)
    let block = try #require(section.components(separatedBy: "```").dropFirst().first)
    let commands = block.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    #expect(
      commands.first?.hasPrefix("photoedit apply --filter faceblur --strip-identifying -r photos") == true)
    #expect(commands.last == "photoedit audit -r site")

    let folder = try TemporaryFolder()
    try PublishFolderTests.put("faces/hopper.jpg", "photos/day1/hopper.jpg", in: folder)
    try PublishFolderTests.put("groundtruth/opencv-group1.jpg", "photos/day2/group.jpg", in: folder)
    let bin = photoeditBinary.deletingLastPathComponent().path
    for command in commands {
      let shell = Process()
      shell.executableURL = URL(fileURLWithPath: "/bin/sh")
      shell.arguments = ["-c", command]
      shell.currentDirectoryURL = URL(fileURLWithPath: folder.path("."))
      var env = ProcessInfo.processInfo.environment
      env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
      shell.environment = env
      try shell.run()
      shell.waitUntilExit()
      #expect(shell.terminationStatus == 0, "\(command)")
    }
    #expect(PublishFolderTests.files(below: folder.path("site")) == ["day1/hopper.jpg", "day2/group.jpg"])

    let published = try launch(["audit", "-r", folder.path("public")])
    #expect(published.status == 1)
    #expect(published.out.contains("public/day1/hopper.jpg.photoedit.json: store file: the sidecar of"))
  }
}
