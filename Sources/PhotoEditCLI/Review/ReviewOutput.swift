import Foundation
import Recipe

/// Where a review page goes: the HTML file and its previews folder beside it, named after it
/// (`review.html` and `review_files/`), made anew on every run.
///
/// The previews are written into a fresh hidden folder first; the page and the folder then
/// replace the old ones by renames, and the old folder is removed. Only photoedit's own page (it
/// names its generator in its first bytes) and its own folder (it holds a marker file) are ever
/// replaced or removed: anything else there is refused.
struct ReviewOutput {
  /// The marker file in every previews folder photoedit made.
  static let marker = ".photoedit-review"

  let page: URL
  let folder: URL
  let staging: URL
  private let manager = FileManager.default

  enum Failure: Error {
    /// The page path holds a file that is not a review page (and no --force), or a folder.
    case notAPage(String)
    /// The previews folder's path holds something that is not photoedit's previews folder.
    case notAPreviewsFolder(String)
    /// A write, a rename or a removal failed.
    case cannotWrite(String, String)
  }

  /// - Parameter page: the page's path; it must end in `.html` or `.htm`.
  init(page path: String) {
    page = URL(fileURLWithPath: path)
    let stem = page.deletingPathExtension().lastPathComponent
    folder = page.deletingLastPathComponent().appendingPathComponent(stem + "_files", isDirectory: true)
    staging = page.deletingLastPathComponent().appendingPathComponent(
      ".\(stem)_files.photoedit-tmp-\(UInt64.random(in: 0...UInt64.max))", isDirectory: true)
    // (The old folder is moved aside as `.\(stem)_files.photoedit-old-N` while the new one takes
    // its place.)
  }

  /// The previews folder as the page links it: its name, percent-encoded.
  var folderURL: String {
    folder.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
      ?? folder.lastPathComponent
  }

  /// Refuses what must not be replaced, before any preview is made.
  func check(force: Bool) throws(Failure) {
    var isFolder: ObjCBool = false
    if manager.fileExists(atPath: page.path, isDirectory: &isFolder) {
      if isFolder.boolValue { throw .notAPage(page.path) }
      if !force && !Self.isReviewPage(page) { throw .notAPage(page.path) }
    }
    if manager.fileExists(atPath: folder.path, isDirectory: &isFolder) {
      let ours =
        isFolder.boolValue && !Self.isLink(folder)
        && manager.fileExists(atPath: folder.appendingPathComponent(Self.marker).path)
      if !ours { throw .notAPreviewsFolder(folder.path) }
    }
  }

  /// Makes the staging folder the previews are written into, after removing what an earlier
  /// run that was killed left of this page's: hidden folders holding the marker, untouched for an
  /// hour (a run of the same page at the same time keeps its own).
  func begin() throws(Failure) {
    let parent = page.deletingLastPathComponent()
    let prefix = ".\(folder.lastPathComponent).photoedit-"
    for name in (try? manager.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
      let leftover = parent.appendingPathComponent(name)
      let modified = (try? manager.attributesOfItem(atPath: leftover.path))?[.modificationDate] as? Date
      if !Self.isLink(leftover),
        manager.fileExists(atPath: leftover.appendingPathComponent(Self.marker).path),
        let modified, modified.timeIntervalSinceNow < -3600
      {
        try? manager.removeItem(at: leftover)
      }
    }
    do {
      try manager.createDirectory(at: parent, withIntermediateDirectories: true)
      try manager.createDirectory(at: staging, withIntermediateDirectories: false)
      try Data("photoedit review previews\n".utf8).write(to: staging.appendingPathComponent(Self.marker))
    } catch {
      throw .cannotWrite(staging.path, Self.reason(error))
    }
  }

  /// Writes one preview into the staging folder.
  func write(_ bytes: [UInt8], as name: String) throws(Failure) {
    let url = staging.appendingPathComponent(name)
    do { try Data(bytes).write(to: url) } catch { throw .cannotWrite(url.path, Self.reason(error)) }
  }

  /// Puts the page and its folder in place of the old ones.
  func commit(_ html: String) throws(Failure) {
    let temp = page.deletingLastPathComponent().appendingPathComponent(
      ".\(page.lastPathComponent).photoedit-tmp-\(UInt64.random(in: 0...UInt64.max))")
    do { try Data(html.utf8).write(to: temp) } catch { throw .cannotWrite(temp.path, Self.reason(error)) }
    var old: URL? = nil
    do {
      if manager.fileExists(atPath: folder.path) {
        let aside = page.deletingLastPathComponent().appendingPathComponent(
          ".\(folder.lastPathComponent).photoedit-old-\(UInt64.random(in: 0...UInt64.max))")
        try manager.moveItem(at: folder, to: aside)
        old = aside
      }
      try manager.moveItem(at: staging, to: folder)
      if rename(temp.path, page.path) != 0 { throw CocoaError(.fileWriteUnknown) }
    } catch {
      try? manager.removeItem(at: temp)
      throw .cannotWrite(page.path, Self.reason(error))
    }
    if let old { try? manager.removeItem(at: old) }
  }

  /// Removes the staging folder after a failure.
  func abandon() { try? manager.removeItem(at: staging) }

  static func isReviewPage(_ url: URL) -> Bool {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 512)) ?? Data()
    return String(decoding: head, as: UTF8.self).contains(
      "<meta name=\"generator\" content=\"\(ReviewPage.generator) ")
  }

  static func isLink(_ url: URL) -> Bool {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType)
      == .typeSymbolicLink
  }

  static func reason(_ error: any Error) -> String {
    if let e = error as? CocoaError, let underlying = e.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain
    {
      return String(cString: strerror(Int32(underlying.code)))
    }
    return (error as NSError).localizedDescription
  }
}
