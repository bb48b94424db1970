import Recipe
import Store

#if canImport(Glibc)
  import Glibc
#endif

/// Where a review page goes: the HTML file and its previews folder beside it, named after it
/// (`review.html` and `review_files/`), made anew on every run.
///
/// The page's folder is opened once and held: every later step is relative to it. The previews
/// are written into a fresh private folder photoedit makes itself (0700, held open too, its files
/// 0600, each created exclusively and never through a link, whatever the umask: they show
/// unredacted faces), then the page into the same folder; the folder then replaces the old
/// previews folder by a rename, and the page, last, the old page. Only photoedit's own page (it
/// names its generator in its first bytes) and its own folder (it holds a marker file) are ever
/// replaced or removed: anything else there is refused, and a pipe or device where the page
/// goes is never opened.
struct ReviewOutput: Sendable {
  /// The marker file in every previews folder photoedit made.
  static let marker = ".photoedit-review"

  /// The page's and the previews folder's absolute paths, as written (no link resolved).
  let page: String
  let folder: String
  /// The names, in the page's folder, of the page, the previews folder and the staging folder.
  let pageName: String, folderName: String, stagingName: String
  /// The page's folder and the staging folder, held open once `begin` made them.
  private var parent: FileSystem.Folder? = nil
  private var staging: FileSystem.Folder? = nil

  enum Failure: Error {
    /// The page path holds a file that is not a review page (and no --force), or a folder.
    case notAPage(String)
    /// The page path holds a pipe, a device or a socket (never opened, even with --force).
    case notRegular(String)
    /// The previews folder's path holds something that is not photoedit's previews folder.
    case notAPreviewsFolder(String)
    /// A write, a rename or a removal failed.
    case cannotWrite(String, String)
  }

  /// - Parameter page: the page's path; it must end in `.html` or `.htm`.
  init(page path: String) {
    page = Path.anchored(path)
    let stem = PagePath.stem(Path.lastName(page))
    folder = Path.join(Path.parent(page), stem + "_files")
    pageName = Path.lastName(page)
    folderName = stem + "_files"
    stagingName = ".\(folderName).photoedit-tmp-\(UInt64.random(in: 0...UInt64.max))"
    // (The old folder is moved aside as `.\(folderName).photoedit-old-N` while the new one takes
    // its place.)
  }

  /// The previews folder as the page links it: its name, percent-encoded.
  var folderURL: String {
    PagePath.percentEncoded(folderName)
  }

  var parentPath: String { Path.parent(page) }

  /// The path of an entry of the page's folder (or of one of its folders), for messages.
  private func inParent(_ names: String...) -> String {
    names.reduce(parentPath) { Path.join($0, $1) }
  }

  /// Opens the page's folder (making it when missing), refuses what must not be replaced, and
  /// makes the private staging folder the previews are written into, after removing what an
  /// earlier run that was killed left of this page's: hidden folders holding the marker,
  /// untouched for an hour (a run of the same page at the same time keeps its own).
  mutating func begin(force: Bool) throws(Failure) {
    let parent: FileSystem.Folder
    do {
      var made: [String] = []
      try FileSystem.createDirectories(parentPath, made: &made)
      parent = try FileSystem.Folder.open(parentPath)
    } catch {
      throw .cannotWrite(parentPath, error.reason)
    }
    self.parent = parent
    if let found = try? parent.entry(pageName) {
      if found.isDirectory { throw .notAPage(page) }
      if !found.isRegular && !found.isLink { throw .notRegular(page) }
      if !force && !Self.isReviewPage(pageName, in: parent) { throw .notAPage(page) }
    }
    if (try? parent.entry(folderName)) != nil, Self.previewsFolder(folderName, in: parent) == nil {
      throw .notAPreviewsFolder(folder)
    }
    let prefix = ".\(folderName).photoedit-"
    let anHourAgo = Int(time(nil)) - 3600
    for name in (try? parent.names()) ?? [] where name.hasPrefix(prefix) {
      if let entry = try? parent.entry(name), entry.modified < anHourAgo,
        let leftover = Self.previewsFolder(name, in: parent)
      {
        parent.removeFolder(name, holding: leftover)
      }
    }
    do {
      staging = try parent.makePrivateFolder(stagingName)
      try staging!.createPrivateFile(Self.marker, bytes: Array("photoedit review previews\n".utf8))
    } catch {
      throw .cannotWrite(inParent(stagingName), error.reason)
    }
  }

  /// Writes one preview into the staging folder.
  func write(_ bytes: [UInt8], as name: String) throws(Failure) {
    do { try staging!.createPrivateFile(name, bytes: bytes) } catch {
      throw .cannotWrite(inParent(stagingName, name), error.reason)
    }
  }

  /// Writes the page, then puts the previews folder and the page in place of the old ones.
  func commit(_ html: String) throws(Failure) {
    let (parent, staging) = (parent!, staging!)
    let pageTemp = ".\(pageName).photoedit-tmp"
    do { try staging.createPrivateFile(pageTemp, bytes: Array(html.utf8)) } catch {
      throw .cannotWrite(inParent(stagingName, pageTemp), error.reason)
    }
    var old: (name: String, folder: FileSystem.Folder)? = nil
    if (try? parent.entry(folderName)) != nil {
      guard let held = Self.previewsFolder(folderName, in: parent) else {
        throw .notAPreviewsFolder(folder)
      }
      let aside = ".\(folderName).photoedit-old-\(UInt64.random(in: 0...UInt64.max))"
      do { try parent.rename(folderName, to: aside, in: parent) } catch {
        throw .cannotWrite(folder, error.reason)
      }
      old = (aside, held)
    }
    do {
      // The staging folder's name must still be the folder written into: one moved away and
      // replaced meanwhile (by a folder of links, say) is never put in the previews' place.
      guard let named = try parent.entry(stagingName), named.isSameFile(as: try staging.info()) else {
        if let old { try? parent.rename(old.name, to: folderName, in: parent) }
        throw Failure.cannotWrite(
          inParent(stagingName), "the previews folder was moved or replaced while it was written")
      }
      try parent.rename(stagingName, to: folderName, in: parent)
      try staging.rename(pageTemp, to: pageName, in: parent)
    } catch let failure as Failure {
      throw failure
    } catch {
      throw .cannotWrite(page, (error as? FileSystem.FileError)?.reason ?? "\(error)")
    }
    if let old { parent.removeFolder(old.name, holding: old.folder) }
  }

  /// Removes the staging folder after a failure.
  func abandon() {
    if let parent, let staging { parent.removeFolder(stagingName, holding: staging) }
  }

  /// True when `name` in `folder` is a regular file (not a link) that names photoedit's review
  /// page as its generator in its first bytes.
  static func isReviewPage(_ name: String, in folder: FileSystem.Folder) -> Bool {
    guard let head = try? folder.readPrefix(name, count: 512) else { return false }
    return String(decoding: head, as: UTF8.self).contains(
      "<meta name=\"generator\" content=\"\(ReviewPage.generator) ")
  }

  /// The folder `name` in `parent`, held, when it is a previews folder photoedit made: a real
  /// folder (not a link) holding the marker file.
  static func previewsFolder(_ name: String, in parent: FileSystem.Folder) -> FileSystem.Folder? {
    guard let held = try? parent.folder(name), (try? held.entry(marker))?.isRegular == true else {
      return nil
    }
    return held
  }
}
