import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// A small tmpfs of our own, for a real full disk and a real read-only folder (root only; the
/// read-only case also runs as an ordinary user through the folder's permissions).
final class Tmpfs: @unchecked Sendable {
  let folder = try! TemporaryFolder()
  private(set) var mounted = false

  static let available: Bool = getuid() == 0 && (Tmpfs(kilobytes: 16)?.mounted ?? false)

  init?(kilobytes: Int) {
    guard Tmpfs.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", folder.url.path])
    else {
      return nil
    }
    mounted = true
  }

  func remountReadOnly() -> Bool { Tmpfs.run("/bin/mount", ["-o", "remount,ro", folder.url.path]) }

  deinit { if mounted { _ = Tmpfs.run("/bin/umount", ["-l", folder.url.path]) } }

  @discardableResult
  static func run(_ tool: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}

@Suite struct WriteFailureTests {
  /// 100 x 100 fake pixels: a 40 KB photo, so a few renders fill a small tmpfs.
  let photoBytes = FakeEngine.imageFile(width: 100, height: 100, seed: 4)

  @Test(.enabled(if: Tmpfs.available)) func fullDiskOnFirstEditChangesNothing() throws {
    let disk = try #require(Tmpfs(kilobytes: 64))
    disk.folder.write("p.jpg", photoBytes)
    let error = #expect(throws: StoreError.self) {
      try fakeStore().apply([step("invert")], to: disk.folder.path("p.jpg"), output: nil)
    }
    guard case .cannotWrite(_, let reason)? = error else {
      Issue.record("expected cannotWrite, got \(String(describing: error))")
      return
    }
    #expect(reason.reason == "No space left on device")
    #expect(disk.folder.names() == ["p.jpg"])
    #expect(disk.folder.read("p.jpg") == photoBytes)
  }

  @Test(.enabled(if: Tmpfs.available)) func fullDiskOnLaterEditChangesNothing() throws {
    let disk = try #require(Tmpfs(kilobytes: 100))
    disk.folder.write("p.jpg", photoBytes)
    let photo = disk.folder.path("p.jpg")
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let before = disk.folder.state()
    #expect(throws: StoreError.self) { try fakeStore().apply([step("add")], to: photo, output: nil) }
    #expect(disk.folder.state() == before)
    #expect(disk.folder.leftovers() == [])
    #expect(fakeStore().inspect(photo).state == .edited)
  }

  @Test func readOnlyFolderChangesNothing() throws {
    var disk: Tmpfs? = nil
    let folder: TemporaryFolder
    if getuid() == 0 {
      guard Tmpfs.available, let mount = Tmpfs(kilobytes: 512) else { return }
      disk = mount
      folder = mount.folder
    } else {
      folder = try! TemporaryFolder()
    }
    folder.write("p.jpg", photoBytes)
    let photo = folder.path("p.jpg")
    _ = try fakeStore().apply([step("invert")], to: photo, output: nil)
    let before = folder.state()
    if let disk {
      #expect(disk.remountReadOnly())
    } else {
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
    }
    defer {
      try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
    }
    for undo in [true, false] {
      let error = #expect(throws: StoreError.self) {
        if undo { _ = try fakeStore().undo(photo) } else { _ = try fakeStore().revert(photo) }
      }
      guard case .cannotWrite(let path, let reason)? = error else {
        Issue.record("expected cannotWrite, got \(String(describing: error))")
        return
      }
      #expect(path == folder.url.path)
      #expect(reason.reason == "Read-only file system" || reason.reason == "Permission denied")
    }
    #expect(folder.state() == before)
    // Reading still works.
    #expect(fakeStore().inspect(photo).state == .edited)
    #expect(try fakeStore().show(photo).state == .edited)
  }
}
