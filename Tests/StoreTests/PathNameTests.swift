import Testing

@testable import Recipe
@testable import Store

#if canImport(Glibc)
  import Glibc
#endif

/// File names are bytes: a name that is not UTF-8 must survive the trip through a String.
@Suite struct PathNameTests {
  static let names: [[UInt8]] = [
    Array("plain.jpg".utf8),
    Array("été/日本.jpg".utf8),
    [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67],  // caf\xE9.jpg (Latin-1)
    [0xFF, 0xFE, 0x80, 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80],  // never UTF-8
    [0xE2, 0x82],  // a cut sequence at the end
    Array("\u{10FEE9}".utf8),  // a genuine scalar from the escape range
  ]

  /// The terminal's last net: C0 (but newline and tab), DEL and C1 controls go out as their
  /// bytes in hex, with the non-UTF-8 bytes `display` shows; other text is as it was.
  @Test func terminalSafeTextHoldsNoControlCharacter() {
    #expect(PathName.terminalSafe("a\u{1B}[2J\rb\u{7F}\u{9B}c") == "a\\x1B[2J\\x0Db\\x7F\\xC2\\x9Bc")
    #expect(PathName.terminalSafe("line\none\ttab café") == "line\none\ttab café")
    #expect(PathName.terminalSafe(PathName.string([0x61, 0xE9, 0x1B])) == "a\\xE9\\x1B")
  }

  @Test(arguments: names)
  func bytesRoundTripExactly(bytes: [UInt8]) {
    let string = PathName.string(bytes)
    #expect(PathName.bytes(string) == bytes)
    PathName.withCString(string) { c in
      #expect(
        Array(UnsafeBufferPointer(start: c, count: bytes.count + 1)).map { UInt8(bitPattern: $0) } == bytes
          + [0])
    }
  }

  @Test func validUTF8IsTheUsualString() {
    #expect(PathName.string(Array("été/日本.jpg".utf8)) == "été/日本.jpg")
    #expect(PathName.display("été.jpg") == "été.jpg")
  }

  @Test func displayShowsForeignBytesAsHex() {
    let latin1 = PathName.string([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67])
    #expect(PathName.display(latin1) == "caf\\xE9.jpg")
    #expect(PathName.display("dir/" + latin1 + " and more") == "dir/caf\\xE9.jpg and more")
  }

  @Test func systemCallsUseTheBytes() throws {
    let folder = try! TemporaryFolder()
    let name = PathName.string([0x6E, 0xF6, 0x2E, 0x6A, 0x70, 0x67])  // "n\xF6.jpg"
    let path = folder.path(name)
    try FileSystem.createSynced(path, bytes: [1, 2, 3], access: .init(mode: 0o644))
    #expect(try FileSystem.list(folder.url.path) == [name])
    #expect(try FileSystem.read(path, limit: 1 << 20) == [1, 2, 3])
    // The limit is inclusive: a file of exactly `limit` bytes reads, one byte more is refused.
    #expect(try FileSystem.read(path, limit: 3) == [1, 2, 3])
    #expect(throws: FileSystem.FileError.self) { try FileSystem.read(path, limit: 2) }
    let dir = name + ".d"
    var made: [String] = []
    try FileSystem.createDirectories(folder.path(dir + "/sub/" + dir), made: &made)
    #expect(try FileSystem.info(folder.path(dir + "/sub/" + dir))?.isDirectory == true)
    // Only what this call made, parents first: the test's own folder existed.
    #expect(made == [dir, dir + "/sub", dir + "/sub/" + dir].map(folder.path))
    // FileManager cannot remove what it cannot name: clean up here.
    try FileSystem.remove(path)
    for sub in [dir + "/sub/" + dir, dir + "/sub", dir] {
      #expect(PathName.withCString(folder.path(sub)) { rmdir($0) } == 0)
    }
  }
}
