import Codecs
import Foundation
import PhotoCore
import Testing

@testable import Recipe
@testable import Store

/// A photo opened once (`EditStore.opened`): what it reports is what is on disk at the open,
/// and what a command renders from is the original it verified, read once.
@Suite struct OpenedPhotoTests {
  let folder = try! TemporaryFolder()
  let originalBytes = FakeEngine.imageFile(width: 6, height: 4, seed: 9)
  var photo: String { folder.path("p.jpg") }

  init() { folder.write("p.jpg", originalBytes) }

  @Test func anOpenedEditIsTheFilesOnDiskAndKeepsTheBytesItVerified() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    let render = folder.read("p.jpg")!
    let sidecar = try readSidecar(folder.read("p.jpg.photoedit.json")!).data
    // Other bytes of the same size: only the checksum can tell them from the original.
    var other = originalBytes
    other[other.count - 2] ^= 0xFF

    try store.opened(photo, for: .reading) { opened throws(StoreError) in
      guard case .edited(let edited, let read) = opened.state else {
        Issue.record("an edited photo reads as \(opened.state)")
        return
      }
      #expect(read.data == sidecar)
      #expect(edited.originalBytes == originalBytes)
      #expect(edited.originalPath == folder.path("p.jpg.original"))
      #expect(edited.renderSHA256 == SHA256Digest(of: render))
      #expect(!edited.isModified)
      // The original changes on disk after the open: the opened photo goes on giving the bytes
      // it verified, never a second read of the file.
      folder.write("p.jpg.original", other)
      #expect(try opened.originalBytes() == originalBytes)
      #expect(try opened.edited()?.originalBytes == originalBytes)
    }
    // A new open reads the file again, and refuses it.
    try store.opened(photo, for: .reading) { opened throws(StoreError) in
      guard case .damaged(.originalChanged(let path), let read?) = opened.state else {
        Issue.record("a changed original reads as \(opened.state)")
        return
      }
      #expect(path == folder.path("p.jpg.original"))
      #expect(read.data == sidecar)
    }
  }

  @Test func anOutputOpensWithItsOriginalInAnotherFolder() throws {
    let store = fakeStore()
    let outputs = folder.path("out")
    try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: false)
    let output = folder.path("out/o.jpg")
    _ = try store.apply([step("invert")], to: photo, output: output)
    let found = try store.opened(output, for: .reading) { opened throws(StoreError) in try opened.edited() }
    let edited = try #require(found)
    #expect(edited.originalBytes == originalBytes)
    #expect(Path.absolute(edited.originalPath) == Path.absolute(photo))
    #expect(edited.renderSHA256 == SHA256Digest(of: folder.read("out/o.jpg")!))
    // The input itself is unedited: its own bytes are what a render starts from.
    try store.opened(photo, for: .reading) { opened throws(StoreError) in
      guard case .unedited = opened.state else {
        Issue.record("the input reads as \(opened.state)")
        return
      }
      #expect(try opened.originalBytes() == originalBytes)
    }
  }

  @Test func aRenderChangedOutsidePhotoeditIsReadButNotWritten() throws {
    let store = fakeStore()
    _ = try store.apply([step("invert")], to: photo, output: nil)
    folder.write("p.jpg", FakeEngine.imageFile(width: 6, height: 4, seed: 1))
    try store.opened(photo, for: .reading) { opened throws(StoreError) in
      #expect(try opened.edited()?.isModified == true)
    }
    #expect(throws: StoreError.renderModified) {
      try store.opened(photo, for: .writing) { opened throws(StoreError) in _ = try opened.edited() }
    }
    try fakeStore(force: true).opened(photo, for: .writing) { opened throws(StoreError) in
      #expect(try opened.edited()?.isModified == true)
    }
  }
}
