import Foundation
import Testing

/// What a planted sidecar's `original.path` names is looked at before it is opened: a FIFO, a
/// device or a file of another size than the recorded one is refused from what lstat says, so a
/// FIFO's blocked writer stays blocked, a device is never opened, and a huge file costs no
/// memory. Each case was reproduced on the code before this change (issue 35, findings 3 and 4):
/// `status` released the writer, and read a 2 GB file whole (4.2 GB resident, 24 s).
@Suite struct LookBeforeOpeningTests {
  /// An `-o` output `shared/o.jpg` of `shared/in.jpg`, whose sidecar's `original.path` is then
  /// replaced.
  struct Scene {
    let root = try! TemporaryFolder()
    var output: String { root.path("shared/o.jpg") }
    var sidecar: String { output + ".photoedit.json" }

    init() throws {
      try FileManager.default.createDirectory(atPath: root.path("shared"), withIntermediateDirectories: false)
      try root.copy("faces/hopper.jpg", as: "shared/in.jpg")
      #expect(runCLI(["apply", "-f", "sepia", "-o", output, root.path("shared/in.jpg")]).status == 0)
    }

    /// Plants `path` as the original (compact JSON: a small sidecar); returns the sidecar's bytes.
    @discardableResult func plantOriginal(_ path: String) throws -> Data {
      var sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: self.sidecar)))
        as! [String: Any]
      var original = sidecar["original"] as! [String: Any]
      original["path"] = path
      sidecar["original"] = original
      let bytes = try JSONSerialization.data(withJSONObject: sidecar)
      try bytes.write(to: URL(fileURLWithPath: self.sidecar))
      return bytes
    }

    func names() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: root.path("shared"))) ?? []).sorted()
    }
  }

  /// A FIFO as `original.path`, with a writer blocked on it: every command refuses it with a
  /// message naming it, and none opens it (the writer stays blocked).
  @Test func fifoOriginalLeavesItsWriterBlocked() throws {
    let scene = try Scene()
    let fifo = scene.root.path("shared/pipe.jpg")
    #expect(mkfifo(fifo, 0o644) == 0)
    let planted = try scene.plantOriginal("pipe.jpg")
    let writer = BlockedFIFOWriter(fifo)
    defer { writer.release() }
    #expect(writer.isBlocked)
    let before = scene.names()
    for command in ["status", "show", "check", "revert", "undo", "render"] {
      let run = try launch([command, scene.output], deadline: 30)
      let text = run.out + run.err
      #expect(text.contains("'\(fifo)' is not a regular file"), "\(command): \(text)")
      #expect(run.status == (["status", "show"].contains(command) ? 0 : command == "check" ? 1 : 65), "\(command)")
      #expect(writer.isBlocked, "\(command) opened the FIFO")
    }
    #expect(scene.names() == before)
    #expect(try Data(contentsOf: URL(fileURLWithPath: scene.sidecar)) == planted)
  }

  /// A FIFO, with a writer blocked on it, in place of an in-place edit's own store file (its
  /// `PHOTO.original`, sidecar, journal or lock): every command refuses it, says the edit is
  /// damaged, or (a reader, for the lock) steps around it, and none opens it.
  @Test(arguments: ["original", "photoedit.json", "photoedit.journal", "photoedit.lock"])
  func fifoStoreFileLeavesItsWriterBlocked(suffix: String) throws {
    let root = try TemporaryFolder()
    let photo = try root.copy("faces/hopper.jpg", as: "p.jpg")
    #expect(runCLI(["apply", "-f", "sepia", photo]).status == 0)
    let fifo = photo + "." + suffix
    try? FileManager.default.removeItem(atPath: fifo)
    #expect(mkfifo(fifo, 0o644) == 0)
    let writer = BlockedFIFOWriter(fifo)
    defer { writer.release() }
    let render = try Data(contentsOf: URL(fileURLWithPath: photo))
    for arguments in [["status"], ["show"], ["check"], ["revert"], ["apply", "-f", "vignette"], ["check", "--repair"]] {
      let run = try launch(arguments + [photo], deadline: 30)
      let text = run.out + run.err
      switch suffix {
      case "photoedit.journal":
        #expect(text.contains("interrupted edit") || text.contains("is unreadable"), "\(arguments): \(text)")
      case "photoedit.lock":
        // Readers take no lock; a writer refuses the pipe where its lock goes.
        if arguments.count > 1 || arguments == ["revert"] {
          #expect(text.contains("'\(fifo)' is not a regular file"), "\(arguments): \(text)")
        }
      default:
        #expect(text.contains("'\(fifo)' is not a regular file"), "\(arguments): \(text)")
      }
      #expect(writer.isBlocked, "\(arguments) opened the FIFO")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == render)
  }

  /// A device as `original.path` is refused unopened. `/dev/zero` and `/dev/null` by their own
  /// names; and, as root, a null device made in the folder and watched with inotify, which sees
  /// every open of that node: there is none.
  @Test(arguments: ["/dev/zero", "/dev/null", "own null device"])
  func deviceOriginalIsNeverOpened(device: String) throws {
    let scene = try Scene()
    var path = device
    var watch: Int32 = -1
    if device == "own null device" {
      guard geteuid() == 0 else { return }  // mknod needs root; the named devices cover the rest
      path = scene.root.path("shared/null.jpg")
      #expect(mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
      watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      #expect(inotify_add_watch(watch, path, UInt32(IN_OPEN | IN_ACCESS)) >= 0)
    }
    defer { if watch >= 0 { close(watch) } }
    try scene.plantOriginal(path)
    for command in ["status", "check", "revert", "render"] {
      let run = try launch([command, scene.output], deadline: 30)
      #expect((run.out + run.err).contains("'\(path)' is not a regular file"), "\(command): \(run.err)")
      #expect(run.status == (command == "status" ? 0 : command == "check" ? 1 : 65), "\(command)")
    }
    if watch >= 0 {
      var event = [UInt8](repeating: 0, count: 4096)
      #expect(read(watch, &event, event.count) == -1 && errno == EAGAIN, "the device was opened")
    }
  }

  /// A 2 GB sparse file as `original.path` in a sidecar of under 1 KB: `status` refuses it from
  /// its size (the sidecar records another), without reading it: its peak memory stays far
  /// below the file's size (a bound on memory, not time).
  @Test func hugeOriginalIsRefusedWithBoundedMemory() throws {
    let scene = try Scene()
    let big = scene.root.path("shared/big.jpg")
    #expect(FileManager.default.createFile(atPath: big, contents: nil))
    #expect(truncate(big, 2 << 30) == 0)
    #expect(try scene.plantOriginal("big.jpg").count < 1024)
    for command in ["status", "check", "revert"] {
      let run = try launchMeasured([command, scene.output], deadline: 60)
      #expect(run.peakBytes < 200 << 20, "\(command): \(run.peakBytes) bytes resident")
      let text = run.out + run.err
      #expect(text.contains("the original '\(big)' no longer matches"), "\(command): \(text)")
      #expect(run.status == (command == "status" ? 0 : command == "check" ? 1 : 65), "\(command)")
    }
  }

  /// `review -o PAGE` where PAGE is a FIFO: refused (73) with its name, also with --force, at
  /// once (it hung for ever), and the FIFO's writer stays blocked; nothing is left beside it.
  @Test func reviewPageThatIsAFIFOIsRefused() throws {
    let scene = try Scene()
    try FileManager.default.createDirectory(atPath: scene.root.path("pages"), withIntermediateDirectories: false)
    let page = scene.root.path("pages/review.html")
    #expect(mkfifo(page, 0o644) == 0)
    let writer = BlockedFIFOWriter(page)
    defer { writer.release() }
    for force in [false, true] {
      let run = try launch(
        ["review", scene.root.path("shared/in.jpg"), "-o", page, "--no-originals"] + (force ? ["--force"] : []),
        deadline: 60)
      #expect(run.status == 73)
      #expect(run.err == "photoedit: \(page): is not a regular file (a pipe, device or socket), so it is never opened; remove it or write the page elsewhere\n")
      #expect(writer.isBlocked)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: scene.root.path("pages")) == ["review.html"])
  }
}
