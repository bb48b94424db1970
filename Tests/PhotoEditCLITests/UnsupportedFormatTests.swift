import Codecs
import Foundation
import Testing

/// Photos in formats photoedit does not read (issue 37's walks and messages), through the real
/// binary: a walk works on the photos it reads, counts the others as skipped by format in its
/// summary and names each in `--json`, and still exits 0; named directly, such a photo is
/// refused (65) with its format's name. Known by signature, not only by name; never by opening
/// a pipe; never a store file.
@Suite struct UnsupportedFormatTests {
  static let gif =
    Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
  /// A HEIF image sequence (photoedit reads stills).
  static let heic: [UInt8] =
    [0, 0, 0, 0x18] + Array("ftypmsf1".utf8) + [0, 0, 0, 0] + Array("mif1msf1".utf8)
  /// A Canon CR2 starts as a TIFF; its name says what it is.
  static let cr2: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0, 0x43, 0x52, 2, 0]

  static func lines(_ out: String) throws -> [[String: Any]] {
    try out.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// A folder as a phone and the web leave it: a JPEG, a WebP (made by cwebp) and a TIFF (made
  /// by raw2tiff and tiffcp) among a GIF, a HEIC, a HEIC without an extension (`IMG_0001`), a camera raw, a GIF in a subfolder;
  /// and what is not a photo: text, a video, a hidden GIF.
  static func mixedFolder() throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try folder.copy("faces/hopper.jpg", as: "a.jpg")
    folder.write("b.gif", gif)
    folder.write("c.webp", try FormatTools.webp(fromFixture: "faces/hopper.jpg"))
    try FormatTools.tiff(
      try ImageCodec.decode(try fixture("faces/hopper.jpg")).image, tiffcp: ["-c", "lzw"], in: folder,
      as: "d.tif")
    folder.write("e.heics", heic)
    folder.write("f.CR2", cr2)
    folder.write("IMG_0001", heic)
    try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: false)
    folder.write("sub/g.gif", gif)
    folder.write("notes.txt", Array("BMW service notes\n".utf8))
    folder.write(
      "clip.mp4", [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
    folder.write(".hidden.gif", gif)
    return folder
  }

  /// Every file below `folder` with its bytes.
  static func contents(_ folder: TemporaryFolder) -> [String: Data] {
    var all: [String: Data] = [:]
    let walker = FileManager.default.enumerator(atPath: folder.url.path)!
    while let name = walker.nextObject() as? String {
      if let data = FileManager.default.contents(atPath: folder.path(name)) { all[name] = data }
    }
    return all
  }

  static let skippedInOrder =
    "5 photos skipped: format not supported (HEIF image sequence, GIF, CR2)"

  @Test func aWalkDoesTheJPEGTheWebPAndTheTIFFAndCountsTheOthers() throws {
    let folder = try Self.mixedFolder()
    let before = Self.contents(folder)
    let run = try launch(["apply", "-f", "sepia", "-r", folder.url.path])
    #expect(run.status == 0, "\(run.err)")
    #expect(
      Set(run.out.split(separator: "\n")) == [
        "\(folder.path("a.jpg")): applied sepia (1 operation)",
        "\(folder.path("c.webp")): applied sepia (1 operation)",
        "\(folder.path("d.tif")): applied sepia (1 operation)",
      ])
    #expect(run.err == "photoedit: 8 files: 3 done, 0 current, 0 failed; \(Self.skippedInOrder)\n")
    // Only the JPEG, the WebP and the TIFF were edited (the TIFF rendered as a TIFF); every
    // other file is as it was, with no store file.
    #expect(try ImageCodec.format(of: try #require(folder.read("d.tif"))) == .tiff)
    let after = Self.contents(folder)
    #expect(
      Set(after.keys)
        == Set(before.keys).union([
          "a.jpg.photoedit.json", "a.jpg.original", "c.webp.photoedit.json", "c.webp.original",
          "d.tif.photoedit.json", "d.tif.original",
        ]))
    for (name, data) in before where !["a.jpg", "c.webp", "d.tif"].contains(name) {
      #expect(after[name] == data, "\(name)")
    }
  }

  @Test func theJSONNamesEachSkippedPhoto() throws {
    let folder = try Self.mixedFolder()
    let run = try launch(["apply", "-f", "sepia", "-r", "--json", folder.url.path])
    #expect(run.status == 0, "\(run.err)")
    let lines = try Self.lines(run.out)
    let skipped = lines.filter { $0["status"] as? String == "skipped" }
    let formats = Dictionary(
      uniqueKeysWithValues: skipped.map { ($0["file"] as! String, $0["format"] as! String) })
    #expect(
      formats == [
        folder.path("IMG_0001"): "HEIF image sequence", folder.path("b.gif"): "GIF",
        folder.path("e.heics"): "HEIF image sequence", folder.path("f.CR2"): "CR2",
        folder.path("sub/g.gif"): "GIF",
      ])
    for line in skipped {
      #expect(line["reason"] as? String == "format not supported")
      #expect((line["seconds"] as? NSNumber)?.doubleValue == 0)
      #expect(line["error"] == nil && line["exit"] == nil)
    }
    let done = lines.filter { $0["status"] as? String == "ok" }.compactMap { $0["file"] as? String }
    #expect(Set(done) == [folder.path("a.jpg"), folder.path("c.webp"), folder.path("d.tif")])
    #expect(lines.count == 8)
    #expect(run.err.hasSuffix("0 failed; \(Self.skippedInOrder)\n"), "\(run.err)")
  }

  /// Read-only walks count them too (status, render, detect); the store's files, whatever their
  /// bytes, never count, and a failure among the readable photos still fails the run.
  @Test func otherWalksAndTheStoreFiles() throws {
    let folder = try Self.mixedFolder()
    #expect(try launch(["apply", "-f", "sepia", "-r", "-q", folder.url.path]).status == 0)
    // Store files holding a GIF's bytes: a sidecar, an original, a journal, a lock, a temporary.
    for name in [
      "z.gif.photoedit.json", "z.jpg.original", "z.jpg.photoedit.journal", "z.jpg.photoedit.lock",
      "z.jpg.photoedit-tmp-1",
    ] {
      folder.write(name, Self.gif)
    }
    let status = try launch(["status", "-r", "--json", folder.url.path])
    #expect(status.status == 0, "\(status.err)")
    let lines = try Self.lines(status.out)
    #expect(lines.filter { $0["status"] as? String == "skipped" }.count == 5)
    #expect(!status.out.contains("photoedit.json") && !status.out.contains(".original\""))
    #expect(status.err.hasSuffix("0 failed; \(Self.skippedInOrder)\n"), "\(status.err)")

    let render = try launch(["render", "-r", folder.url.path])
    #expect(render.status == 0, "\(render.err)")
    #expect(render.err.hasSuffix("; \(Self.skippedInOrder)\n"), "\(render.err)")

    folder.write("bad.jpg", Array("not a photo".utf8))
    let failing = try launch(["apply", "-f", "sepia", "-r", folder.url.path])
    #expect(failing.status == 1)
    #expect(
      failing.err.contains(
        "photoedit: \(folder.path("bad.jpg")): not a JPEG, PNG, HEIC, AVIF, WebP or TIFF image\n"))
    #expect(
      failing.err.hasSuffix("9 files: 3 done, 0 current, 1 failed; \(Self.skippedInOrder)\n"),
      "\(failing.err)")
  }

  /// Named directly (as an argument, or on standard input), such a photo is refused with its
  /// format's name, known by its bytes when its name says nothing or says JPEG; nothing is
  /// written.
  @Test func namedDirectlyItIsRefused() throws {
    let folder = try Self.mixedFolder()
    folder.write("h.jpg", Self.gif)
    for (name, format) in [
      ("b.gif", "GIF"), ("f.CR2", "CR2"), ("IMG_0001", "HEIF image sequence"), ("h.jpg", "GIF"),
    ] {
      let run = try launch(["apply", "-f", "sepia", folder.path(name)])
      #expect(run.status == 65, "\(name)")
      #expect(run.out == "")
      #expect(
        run.err
          == "photoedit: \(folder.path(name)): \(format) is not supported (photoedit reads JPEG, PNG, HEIC, AVIF, WebP and TIFF)\n"
      )
    }
    // A DNG is a TIFF structure, refused by its name whatever its bytes.
    try FileManager.default.copyItem(atPath: folder.path("d.tif"), toPath: folder.path("d.dng"))
    let detect = try launch(["detect", folder.path("d.dng")])
    #expect(detect.status == 65)
    #expect(
      detect.err
        == "photoedit: \(folder.path("d.dng")): DNG is not supported (photoedit reads JPEG, PNG, HEIC, AVIF, WebP and TIFF)\n"
    )
    // Among several, the run fails (1) and the JPEG is still done.
    let several = try launch(
      ["apply", "-f", "sepia", "-"], input: folder.path("b.gif") + "\n" + folder.path("a.jpg") + "\n")
    #expect(several.status == 1)
    #expect(several.out == "\(folder.path("a.jpg")): applied sepia (1 operation)\n")
    #expect(several.err.hasSuffix("2 files: 1 done, 0 current, 1 failed\n"), "\(several.err)")
    #expect(Set(folder.names()).isSuperset(of: ["a.jpg.photoedit.json"]))
    #expect(
      !folder.names().contains {
        $0.hasPrefix("b.gif.") || $0.hasPrefix("h.jpg.") || $0.hasPrefix("IMG_0001.")
      })
  }

  /// A pipe named like a GIF is never opened, so the walk does not wait on it, and it is not a
  /// photo to count; a walk that finds only unsupported photos still says so.
  @Test func aPipeNamedLikeAGIFDoesNotHang() throws {
    let folder = try TemporaryFolder()
    try folder.copy("faces/hopper.jpg", as: "a.jpg")
    #expect(mkfifo(folder.path("x.gif"), 0o644) == 0)
    #expect(mkfifo(folder.path("IMG_0002"), 0o644) == 0)
    folder.write("y.gif", Self.gif)
    let run = try launch(["apply", "-f", "sepia", "-r", folder.url.path], deadline: 30)
    #expect(run.status == 0)
    #expect(
      run.err
        == "photoedit: 2 files: 1 done, 0 current, 0 failed; 1 photo skipped: format not supported (GIF)\n")

    let only = try TemporaryFolder()
    only.write("y.gif", Self.gif)
    let alone = try launch(["apply", "-f", "sepia", "-r", only.url.path])
    #expect(alone.status == 0)
    #expect(
      alone.err
        == "photoedit: 1 file: 0 done, 0 current, 0 failed; 1 photo skipped: format not supported (GIF)\n")
    #expect(only.names() == ["y.gif"])
    #expect(try launch(["apply", "-f", "sepia", "-r", "-q", only.url.path]).err == "")
  }

  /// Each shard counts the skipped photos of its own part, so a cluster's summaries add up.
  @Test func shardsCountTheirOwnPart() throws {
    let folder = try Self.mixedFolder()
    var total = 0
    for k in 1...3 {
      let run = try launch(["status", "-r", "--json", "--shard", "\(k)/3", folder.url.path])
      #expect(run.status == 0)
      total += try Self.lines(run.out).filter { $0["status"] as? String == "skipped" }.count
    }
    #expect(total == 5)
  }

  /// `audit` cannot vouch for a photo it cannot read: the walk counts it as skipped and exits 1.
  @Test func auditCountsThemAndFails() throws {
    let folder = try TemporaryFolder()
    try folder.copy("jpeg/testorig.jpg", as: "clean.jpg")
    folder.write("b.gif", Self.gif)
    let run = try launch(["audit", "-r", folder.url.path])
    #expect(run.status == 1, "\(run.err)")
    #expect(run.err.hasSuffix("; 1 photo skipped: format not supported (GIF)\n"), "\(run.err)")
  }
}
