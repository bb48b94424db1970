import Foundation
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// `--shard K/N`: the documented hash, parts that are disjoint and cover the list, stable when
/// photos are added, the same wherever the folder is mounted, and silent about the other parts.
@Suite struct ShardTests {
  /// A folder `photos` holding `names` (paths below it), each a copy of hopper.jpg.
  static func photoFolder(_ names: [String], in folder: TemporaryFolder) throws -> String {
    let root = folder.path("photos")
    for name in names {
      let path = root + "/" + name
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: fixturePath("faces/hopper.jpg"), toPath: path)
    }
    return root
  }

  static func names(_ range: ClosedRange<Int>) -> [String] {
    range.map { n in "\(["2019", "2020", "2021/summer"][n % 3])/IMG_\(String(format: "%04d", n)).jpg" }
  }

  /// The files `status --json` lists for an invocation.
  static func listed(_ arguments: [String], input: String = "") throws -> [String] {
    let r = runCLI(["status", "--json", "-q"] + arguments, input: input)
    #expect(r.status == 0, "\(r.err)")
    return try jsonLines(r.out).map { try #require($0["file"] as? String) }
  }

  /// Which part each photo below `root` is in, keyed by its path relative to `root`.
  static func parts(of root: String, count: Int) throws -> [String: Int] {
    var part: [String: Int] = [:]
    for k in 1...count {
      for file in try listed(["-r", root, "--shard", "\(k)/\(count)"]) {
        let name = String(file.dropFirst(root.count + 1))
        #expect(part[name] == nil, "\(name) is in parts \(part[name] ?? 0) and \(k)")
        part[name] = k
      }
    }
    return part
  }

  /// Values computed outside photoedit, with Python's hashlib:
  /// `int.from_bytes(hashlib.sha256(name).digest()[:8], "big") % n + 1`.
  @Test func theShardIsTheDocumentedHashOfTheNamesBytes() {
    #expect(
      [1, 2, 3, 4, 1_000_000].map { PhotoFolder.shard(of: "a.jpg", count: $0) } == [1, 1, 2, 3, 772_027])
    #expect(PhotoFolder.shard(of: "sub/b.jpg", count: 7) == 6)
    #expect(PhotoFolder.shard(of: "2019/IMG_0001.JPG", count: 999_999_999) == 338_239_159)
    // Bytes, not text: Latin-1 é is the byte E9, and NFC and NFD are different names.
    let latin1 = PathName.string([UInt8]("caf".utf8) + [0xE9] + [UInt8](".jpg".utf8))
    #expect([2, 3, 100].map { PhotoFolder.shard(of: latin1, count: $0) } == [2, 1, 76])
    let nfc = "caf\u{E9}.jpg"
    let nfd = "cafe\u{301}.jpg"
    #expect((2...11).map { PhotoFolder.shard(of: nfc, count: $0) } == [1, 1, 1, 5, 1, 3, 1, 4, 5, 2])
    #expect((2...11).map { PhotoFolder.shard(of: nfd, count: $0) } == [2, 2, 4, 2, 2, 5, 4, 5, 2, 7])
    // A leading "./" is not part of the name.
    #expect(PhotoFolder.shard(of: "./a.jpg", count: 1_000_000) == 772_027)
    #expect(PhotoFolder.shard(of: "././a.jpg", count: 1_000_000) == 772_027)
  }

  @Test(arguments: [1, 2, 3, 7])
  func partsAreDisjointAndCoverTheList(count: Int) throws {
    let folder = try TemporaryFolder()
    let root = try Self.photoFolder(Self.names(1...30), in: folder)
    let part = try Self.parts(of: root, count: count)
    #expect(part.keys.sorted() == Self.names(1...30).sorted())
    for (name, k) in part { #expect(PhotoFolder.shard(of: name, count: count) == k, "\(name)") }
    if count > 1 { #expect(Set(part.values).count > 1, "30 photos all in one of \(count) parts") }
  }

  @Test func addingPhotosMovesNoOtherPhoto() throws {
    let folder = try TemporaryFolder()
    let root = try Self.photoFolder(Self.names(1...20), in: folder)
    let before = try Self.parts(of: root, count: 3)
    _ = try Self.photoFolder(Self.names(21...45) + ["new/IMG_0001.jpg"], in: folder)
    let after = try Self.parts(of: root, count: 3)
    #expect(after.count == 46)
    for (name, k) in before { #expect(after[name] == k, "\(name) moved from part \(k)") }
  }

  /// A walk hashes paths relative to its folder: the same archive mounted elsewhere, walked from
  /// its parent folder, or listed on standard input from inside it (as `find .` prints), has the
  /// same parts.
  @Test func partsDoNotDependOnWhereTheFolderIsOrHowItIsNamed() throws {
    let a = try TemporaryFolder()
    let b = try TemporaryFolder()
    let names = Self.names(1...24)
    let here = try Self.photoFolder(names, in: a)
    try FileManager.default.createDirectory(atPath: b.path("mnt/archive"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      atPath: try Self.photoFolder(names, in: b), toPath: b.path("mnt/archive/photos"))
    let elsewhere = b.path("mnt/archive/photos")
    let expected = try Self.parts(of: here, count: 4)
    let mounted = try Self.parts(of: elsewhere, count: 4)
    #expect(mounted == expected)

    for k in 1...4 {
      let mine = Set(expected.filter { $0.value == k }.keys)
      // `-r photos` from the folder above: relative to the folder walked, not to the working folder.
      let walked = try launch(["status", "--json", "-q", "-r", "photos", "--shard", "\(k)/4"], in: a.url)
      let walkedNames = try jsonLines(walked.out).map {
        ($0["file"] as? String ?? "").dropFirst("photos/".count)
      }
      #expect(Set(walkedNames.map(String.init)) == mine)
      // `find . -name '*.jpg' | photoedit ... -` from inside the archive.
      let list = names.map { "./" + $0 }.joined(separator: "\n") + "\n"
      let piped = try launch(
        ["status", "--json", "-q", "--shard", "\(k)/4", "-"], input: list, in: URL(fileURLWithPath: here))
      let pipedNames = try jsonLines(piped.out).map { ($0["file"] as? String ?? "").dropFirst(2) }
      #expect(Set(pipedNames.map(String.init)) == mine)
    }
  }

  @Test(arguments: [
    (
      "0/3",
      "--shard 0/3: shards count from 1 (add 1 to an index that counts from 0, such as Kubernetes' JOB_COMPLETION_INDEX)"
    ),
    ("4/3", "--shard 4/3: there are only 3 shards, numbered 1 to 3"),
    ("x", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not 'x'"),
    ("3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '3'"),
    ("1/0", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '1/0'"),
    ("/3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '/3'"),
    ("1/", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '1/'"),
    ("-1/3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '-1/3'"),
    ("+1/3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '+1/3'"),
    (" 1/3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not ' 1/3'"),
    ("1/3/4", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '1/3/4'"),
    ("1.0/3", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '1.0/3'"),
    ("1/9999999999", "--shard must be K/N, the K-th of N parts (1/4 to 4/4), not '1/9999999999'"),
  ])
  func badValuesAreUsageErrorsAndTouchNothing(value: String, message: String) throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    for arguments in [
      ["apply", "--filter", "sepia", "--shard", value, photo],
      ["status", "--shard", value, photo],
      ["render", "--output-dir", folder.path("out"), "--shard=\(value)", photo],
    ] {
      let r = runCLI(arguments)
      #expect(r.status == 64, "\(arguments)")
      let lines = r.err.split(separator: "\n").map(String.init)
      #expect(lines.count == 2)
      #expect(lines.first == "photoedit: error: \(message)")
      #expect(lines.last?.hasPrefix("usage: photoedit \(arguments[0])") == true)
      #expect(r.out.isEmpty)
    }
    #expect(folder.names() == ["h.jpg"])
  }

  /// Text and JSON alike: only the part's photos are named on standard output, and standard
  /// error holds the summary alone.
  @Test func photosOutsideThePartPrintNothing() throws {
    let folder = try TemporaryFolder()
    let root = try Self.photoFolder(Self.names(1...10), in: folder)
    let mine = Self.names(1...10).filter { PhotoFolder.shard(of: $0, count: 2) == 1 }.map { root + "/" + $0 }
    #expect(!mine.isEmpty && mine.count < 10)
    let out = folder.path("out")

    let text = runCLI(["apply", "--filter", "sepia", "--output-dir", out, "-r", root, "--shard", "1/2"])
    #expect(text.status == 0, "\(text.err)")
    let lines = text.out.split(separator: "\n").map(String.init)
    #expect(lines.count == mine.count)
    for (line, file) in zip(lines, mine.sorted()) { #expect(line.hasPrefix("\(file): applied sepia to ")) }
    #expect(
      text.err == "photoedit: shard 1/2: \(mine.count) of 10 files: \(mine.count) done, 0 current, 0 failed\n"
    )
    // Each output at the photo's path below the walked folder.
    let written = (FileManager.default.subpaths(atPath: out) ?? []).filter { $0.hasSuffix(".jpg") }
    #expect(Set(written) == Set(mine.map { String($0.dropFirst(root.count + 1)) }))

    let json = runCLI([
      "apply", "--filter", "sepia", "--output-dir", out, "-r", root, "--shard", "2/2", "--json",
    ])
    #expect(json.status == 0, "\(json.err)")
    let files = try jsonLines(json.out).map { $0["file"] as? String }
    #expect(files == Self.names(1...10).map { root + "/" + $0 }.filter { !mine.contains($0) }.sorted())
    #expect(json.err.hasPrefix("photoedit: shard 2/2: \(10 - mine.count) of 10 files: "))
  }

  @Test func dryRunListsWhatThePartWouldProcessAndWritesNothing() throws {
    let folder = try TemporaryFolder()
    let root = try Self.photoFolder(Self.names(1...12), in: folder)
    let out = folder.path("out")
    var seen: [String] = []
    for k in 1...3 {
      let r = runCLI([
        "apply", "--filter", "sepia", "--output-dir", out, "-r", root, "--dry-run", "--json", "--shard",
        "\(k)/3",
      ])
      #expect(r.status == 0, "\(r.err)")
      let lines = try jsonLines(r.out)
      let files = lines.compactMap { $0["file"] as? String }
      let part = try Self.listed(["-r", root, "--shard", "\(k)/3"])
      #expect(files == part)
      #expect(lines.allSatisfy { $0["dryRun"] as? Bool == true && $0["status"] as? String == "ok" })
      #expect(r.err.hasSuffix(": \(files.count) to do, 0 current, 0 failed\n"))
      seen += files
    }
    #expect(seen.sorted() == Self.names(1...12).map { root + "/" + $0 }.sorted())
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func anEmptyPartIsNothingToDo() throws {
    let folder = try TemporaryFolder()
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let k = PhotoFolder.shard(of: photo, count: 2) == 1 ? 2 : 1
    let r = runCLI(["apply", "--filter", "sepia", "--json", "--shard", "\(k)/2", photo])
    #expect(r.status == 0)
    #expect(r.out.isEmpty)
    #expect(r.err == "photoedit: nothing to do: shard \(k)/2 holds none of the 1 file\n")
    #expect(folder.names() == ["h.jpg"])
    let mine = runCLI(["apply", "--filter", "sepia", "--shard", "\(3 - k)/2", photo])
    #expect(mine.status == 0, "\(mine.err)")
    #expect(mine.out.hasPrefix("\(photo): applied sepia"))
  }

  @Test func everyCommandThatTakesFilesTakesShard() {
    for command in PhotoEditCLI.commands where !["filters", "help", "completion"].contains(command.name) {
      #expect(command.options.contains { $0.long == "shard" }, "\(command.name)")
      #expect(command.help.contains("--shard K/N"), "\(command.name)")
    }
  }
}
