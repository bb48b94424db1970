import Foundation
import Synchronization
import Testing

/// The review page and its previews show unredacted faces: they are private whatever the umask,
/// and written only into the folder photoedit made for them. Reproduced on the code before this
/// change (issue 35, finding 2): under umask 000 the page and previews were 0666 and the folder
/// 0777, and swapping the staging folder for a folder of links during a run made review write
/// its JPEG previews over the files the links named (exit 0).
@Suite struct ReviewPrivacyTests {
  /// What the attacking thread found (the staging folder's name), and when to stop.
  final class Attack: Sendable {
    let staging = Mutex<String?>(nil)
    let done = Atomic<Bool>(false)
  }

  /// A thread that waits for review's staging folder to appear in `pages`, then calls `strike`
  /// with its path until it returns true, and records the folder's name in `attack`.
  static func attacker(_ pages: String, _ attack: Attack, strike: @escaping @Sendable (String) -> Bool)
    -> Thread
  {
    Thread {
      while !attack.done.load(ordering: .relaxed) && attack.staging.withLock({ $0 == nil }) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pages)) ?? []
        guard let staging = names.first(where: { $0.hasPrefix(".review_files.photoedit-tmp-") }) else {
          usleep(500)
          continue
        }
        if strike(pages + "/" + staging) { attack.staging.withLock { $0 = staging } }
      }
    }
  }

  /// The previews' numbering of the photo `i` (from 1): `00042`.
  static func stem(_ i: Int) -> String {
    let number = String(i)
    return String(repeating: "0", count: max(0, 5 - number.count)) + number
  }

  /// Every entry of `folder` (itself included) and its permission bits.
  static func modes(_ folder: String) throws -> [String: Int] {
    var out: [String: Int] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
      let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
      out[name] = (attributes[.posixPermissions] as! NSNumber).intValue
    }
    return out
  }

  /// Under umask 000, a first run and a re-run (which replaces the page and folder) both leave a
  /// 0600 page, a 0700 previews folder and 0600 previews, and nothing else beside the page.
  @Test func pageAndPreviewsArePrivateUnderUmask000() throws {
    let root = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: root.path("photos"), withIntermediateDirectories: false)
    try root.copy("faces/hopper.jpg", as: "photos/a.jpg")
    try root.copy("faces/hopper.jpg", as: "photos/b.jpg")
    #expect(runCLI(["apply", "-f", "sepia", root.path("photos/b.jpg")]).status == 0)
    for _ in 0..<2 {
      let run = try launch(
        [
          "-c", "umask 000 && exec \"$0\" \"$@\"", photoeditBinary.path, "review", root.path("photos"),
          "-o", root.path("review.html"), "-q",
        ],
        executable: "/bin/sh", deadline: 120)
      #expect(run.status == 0, "\(run.err)")
      let beside = try Self.modes(root.path(""))
      #expect(beside == ["photos": beside["photos"]!, "review.html": 0o600, "review_files": 0o700])
      let previews = try Self.modes(root.path("review_files"))
      #expect(previews.count == 4, "\(previews)")  // the marker, a's render, b's render and original
      #expect(previews.values.allSatisfy { $0 == 0o600 }, "\(previews)")
    }
  }

  /// A folder of links swapped in for the staging folder (`swap`), or links planted in it where
  /// previews will be written (`plant`), while review runs: no file a link names is touched,
  /// and a swapped folder is never put in the previews' place (73); previews that meet a link
  /// fail (`File exists`), since each is created exclusively. Sixty photos and one worker
  /// give the attacker time; the test asserts that the attack happened.
  @Test(arguments: ["swap", "plant"])
  func linksWhereAPreviewGoesAreNeverWrittenThrough(kind: String) throws {
    let root = try TemporaryFolder()
    for folder in ["photos", "victims", "pages"] {
      try FileManager.default.createDirectory(atPath: root.path(folder), withIntermediateDirectories: false)
    }
    let count = 60
    for i in 1...count {
      try root.copy("photos/coffee.png", as: "photos/p\(i).png")
      try Data("victim \(i)".utf8).write(to: URL(fileURLWithPath: root.path("victims/v\(i)")))
    }
    let pages = root.path("pages")
    let attack = Attack()
    let victims = root.path("victims")
    Self.attacker(pages, attack) { folder in
      if kind == "swap" {
        guard rename(folder, folder + ".moved") == 0, mkdir(folder, 0o755) == 0 else { return false }
      }
      for i in 1...count {
        for view in ["render", "original"] {
          symlink(victims + "/v\(i)", folder + "/" + Self.stem(i) + "-\(view).jpg")
        }
      }
      return true
    }.start()
    let run = try launch(
      ["review", root.path("photos"), "-o", pages + "/review.html", "-j", "1", "-q"], deadline: 300)
    attack.done.store(true, ordering: .relaxed)
    let staging = try #require(attack.staging.withLock { $0 }, "the attack came too late: \(run.err)")
    for i in 1...count {
      #expect(
        FileManager.default.contents(atPath: root.path("victims/v\(i)")) == Data("victim \(i)".utf8), "v\(i)")
    }
    // A swap between the staging folder's mkdir and its opening (by name: the one moment a
    // folder of this user's can be taken for it) meets the links as `plant` does.
    if kind == "swap" && run.status == 73 {
      #expect(
        run.err.contains("the previews folder was moved or replaced while it was written"), "\(run.err)")
      #expect(!FileManager.default.fileExists(atPath: pages + "/review.html"))
      // The folder written into, wherever it was moved, is left empty of previews.
      #expect(try FileManager.default.contentsOfDirectory(atPath: pages + "/" + staging + ".moved") == [])
    } else {
      // The photos whose previews met a link fail (1); none is written through it.
      #expect(run.status == 1, "\(run.err)")
      #expect(run.err.contains("File exists"), "\(run.err)")
    }
  }
}
