import Foundation
import Recipe
import Store
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The "Many machines" recipes of docs/cluster.md, run as written: GNU parallel over ssh to two hosts (two
/// loopback addresses served by a real sshd), and a Slurm array script and a Kubernetes Indexed
/// Job run once for every index their engine would give. Every photo must be edited exactly
/// once, and a second run must report every photo `current` and leave every byte, inode and
/// modification time as it was.
@Suite(.serialized) struct ClusterRecipeTests {
  static let readme = fixtures.deletingLastPathComponent().appendingPathComponent("docs/cluster.md")

  /// The fenced block after `<!-- recipe: NAME -->` in docs/cluster.md.
  static func recipe(_ name: String) throws -> String {
    let text = try String(contentsOf: readme, encoding: .utf8)
    let marker = try #require(text.range(of: "<!-- recipe: \(name) -->\n"), "no \(name) recipe in docs/cluster.md")
    let rest = text[marker.upperBound...]
    let open = try #require(rest.range(of: "```"))
    let body = try #require(rest[open.upperBound...].range(of: "\n"))
    let close = try #require(rest[body.upperBound...].range(of: "```"))
    return String(rest[body.upperBound..<close.lowerBound])
  }

  /// The first capture of `pattern` in `text`.
  static func capture(_ pattern: String, in text: String) throws -> String {
    let regex = try NSRegularExpression(pattern: pattern)
    let match = try #require(
      regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), "no \(pattern) in:\n\(text)")
    return String(text[Range(match.range(at: 1), in: text)!])
  }

  /// An archive as the recipes expect it: `photos/` below the working folder (20 copies of
  /// hopper.jpg, one face each, in three folders, every file name distinct, every one of 8 parts
  /// holding some), and `bin/photoedit`.
  struct Archive {
    let folder: TemporaryFolder
    var root: String { folder.url.path }
    var bin: String { folder.path("bin") }
    /// The photos as `-r photos` names them.
    let photos: [String]

    init() throws {
      folder = try TemporaryFolder()
      photos = (1...20).map { n in "photos/\(["2019", "2020", "2020/summer"][n % 3])/IMG_\(1000 + n).jpg" }
      for photo in photos {
        try FileManager.default.createDirectory(
          atPath: folder.path((photo as NSString).deletingLastPathComponent),
          withIntermediateDirectories: true)
        try folder.copy("faces/hopper.jpg", as: photo)
      }
      try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: folder.path("bin/photoedit"), withDestinationPath: photoeditBinary.path)
    }

    /// Checks that each of `count` parts holds a photo, so that a recipe that leaves a part out
    /// is caught by the coverage check.
    func expectEveryPartHoldsAPhoto(_ count: Int) {
      let parts = Set(
        photos.map { PhotoFolder.shard(of: String($0.dropFirst("photos/".count)), count: count) })
      #expect(parts == Set(1...count), "the test's photos leave a part empty")
    }

    /// The environment of a task: photoedit first in PATH.
    func environment(_ more: [String: String] = [:]) -> [String: String] {
      var env = ProcessInfo.processInfo.environment
      env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
      env["PHOTOEDIT_CASCADE"] = nil
      for (k, v) in more { env[k] = v }
      return env
    }

    /// The JSON lines of the result files the tasks wrote.
    func results(_ names: [String]) throws -> [[String: Any]] {
      var lines: [[String: Any]] = []
      for name in names {
        let text = try String(contentsOfFile: folder.path(name), encoding: .utf8)
        lines += try jsonLines(text)
      }
      return lines
    }

    /// Every photo once, all succeeded; on the first run none current and every output and
    /// sidecar written; on the second every photo current and `public/` as the first run left it.
    func check(_ lines: [[String: Any]], rerunOf first: [String: FileState]?, _ label: String) {
      let files = lines.map { $0["file"] as? String ?? "?" }
      #expect(files.sorted() == photos.sorted(), "\(label): each photo exactly once")
      #expect(
        lines.allSatisfy { $0["status"] as? String == "ok" },
        "\(label): \(lines.filter { $0["status"] as? String != "ok" })")
      let published = FileState.all(in: folder.path("public"))
      if let first {
        #expect(
          lines.allSatisfy { $0["current"] as? Bool == true },
          "\(label): a re-run must find every photo current")
        #expect(published == first, "\(label): a re-run changed public/")
      } else {
        #expect(lines.allSatisfy { $0["current"] == nil }, "\(label)")
        #expect(lines.allSatisfy { ($0["faces"] as? NSNumber) != nil }, "\(label): faceblur's face count")
        // Each at its path below the walked folder.
        let expected = photos.flatMap { photo -> [String] in
          let name = String(photo.dropFirst("photos/".count))
          return [name, name + ".photoedit.json"]
        }
        #expect(published.keys.sorted() == expected.sorted(), "\(label)")
      }
      let names = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
      let leftovers = names.filter {
        $0.hasSuffix(".lock") || $0.hasSuffix(".journal") || $0.contains(".photoedit-tmp-")
      }
      #expect(leftovers.isEmpty, "\(label): \(leftovers)")
    }
  }

  // MARK: Slurm

  @Test func slurmArrayScriptCoversEveryPhotoOnce() throws {
    let script = try Self.recipe("slurm")
    let first = Int(try Self.capture(#"#SBATCH --array=(\d+)-\d+"#, in: script))!
    let last = Int(try Self.capture(#"#SBATCH --array=\d+-(\d+)"#, in: script))!
    let cpus = try Self.capture(#"#SBATCH --cpus-per-task=(\d+)"#, in: script)
    let output = try Self.capture(#"#SBATCH --output=(\S+)"#, in: script)
    let error = try Self.capture(#"#SBATCH --error=(\S+)"#, in: script)
    #expect(script.contains("$SLURM_ARRAY_TASK_ID/\(last)"), "the shard count is the array's size")
    #expect(first == 1)

    let archive = try Archive()
    archive.expectEveryPartHoldsAPhoto(last)
    try script.write(toFile: archive.folder.path("faceblur.sh"), atomically: true, encoding: .utf8)
    var published: [String: FileState]? = nil
    for round in ["first run", "re-run"] {
      // What Slurm does for each index of the array: the script, with the task's variables and
      // its output files, in the folder it was submitted from.
      for index in first...last {
        let task = try runProcess(
          ["/bin/sh", "faceblur.sh"], in: archive.root,
          environment: archive.environment(["SLURM_ARRAY_TASK_ID": "\(index)", "SLURM_CPUS_PER_TASK": cpus]),
          standardOutput: archive.folder.path(output.replacingOccurrences(of: "%a", with: "\(index)")),
          standardError: archive.folder.path(error.replacingOccurrences(of: "%a", with: "\(index)")))
        #expect(task.status == 0, "\(round), index \(index): \(task.err)")
      }
      let files = (first...last).map { output.replacingOccurrences(of: "%a", with: "\($0)") }
      archive.check(try archive.results(files), rerunOf: published, "slurm \(round)")
      published = FileState.all(in: archive.folder.path("public"))
    }
  }

  // MARK: Kubernetes

  @Test func kubernetesIndexedJobCoversEveryPhotoOnce() throws {
    let manifest = try Self.recipe("kubernetes")
    #expect(try Self.capture(#"completionMode: (\w+)"#, in: manifest) == "Indexed")
    let completions = Int(try Self.capture(#"completions: (\d+)"#, in: manifest))!
    // The container's command is a YAML flow sequence of double-quoted strings: JSON.
    let commandLine = try Self.capture(#"command: (\[.*\])"#, in: manifest)
    let command = try #require(try JSONSerialization.jsonObject(with: Data(commandLine.utf8)) as? [String])
    #expect(
      command.joined(separator: " ").contains("/\(completions) "), "the shard count is the job's completions")

    let archive = try Archive()
    archive.expectEveryPartHoldsAPhoto(completions)
    var published: [String: FileState]? = nil
    for round in ["first run", "re-run"] {
      // What the Job controller does: one pod per index from 0, each with JOB_COMPLETION_INDEX,
      // in the container's working folder.
      for index in 0..<completions {
        let pod = try runProcess(
          command, in: archive.root, environment: archive.environment(["JOB_COMPLETION_INDEX": "\(index)"]))
        #expect(pod.status == 0, "\(round), index \(index): \(pod.err)")
      }
      let files = (0..<completions).map { "results-\($0).jsonl" }
      archive.check(try archive.results(files), rerunOf: published, "kubernetes \(round)")
      published = FileState.all(in: archive.folder.path("public"))
    }
  }

  // MARK: GNU parallel over ssh

  @Test func gnuParallelOverSSHToTwoHostsCoversEveryPhotoOnce() throws {
    for tool in ["/usr/bin/parallel", "/usr/bin/ssh", "/usr/bin/ssh-keygen"] {
      try #require(
        FileManager.default.isExecutableFile(atPath: tool),
        "\(tool) is missing: install parallel and openssh-client (make deps does)")
    }
    let keys = try TemporaryFolder()
    let sshd: LoopbackSSHD
    do {
      sshd = try LoopbackSSHD(in: keys)
    } catch let unavailable as LoopbackSSHD.Unavailable {
      try Test.cancel("skipped: sshd cannot start here (\(unavailable.reason))")
    }
    defer { sshd.stop() }

    let archive = try Archive()
    let written = try Self.recipe("parallel")
    let count = Int(try Self.capture(#"^seq (\d+) \|"#, in: written))!
    #expect(try Self.capture(#"--shard \{\}/(\d+)"#, in: written) == "\(count)", "seq N feeds --shard {}/N")
    archive.expectEveryPartHoldsAPhoto(count)
    let recipe = written.replacingOccurrences(of: "host1", with: "127.0.0.1")
      .replacingOccurrences(of: "host2", with: "127.0.0.2")
    // parallel keeps its own files in $HOME/.parallel: a throwaway one, not below the archive
    // (`--workdir .` means the same absolute folder on the hosts only outside $HOME).
    let environment = archive.environment([
      "PARALLEL_SSH": "ssh -F \(sshd.clientConfig)", "HOME": keys.path("home"),
    ])
    try FileManager.default.createDirectory(atPath: keys.path("home"), withIntermediateDirectories: true)

    var published: [String: FileState]? = nil
    for round in ["first run", "re-run"] {
      let job = try runProcess(
        ["/bin/bash", "-c", recipe], in: archive.root, environment: environment, seconds: 300)
      #expect(job.status == 0, "\(round): \(job.err)\nsshd: \(sshd.log)")
      archive.check(try archive.results(["results.jsonl"]), rerunOf: published, "parallel \(round)")
      published = FileState.all(in: archive.folder.path("public"))
    }
    // Both hosts took tasks.
    for address in ["127.0.0.1", "127.0.0.2"] {
      #expect(
        sshd.log.contains("on \(address) port \(sshd.port)"), "no task went to \(address):\n\(sshd.log)")
    }
  }
}

/// An sshd on 127.0.0.1 and 127.0.0.2 at a free port, with a throwaway host key and client key,
/// whose sessions find the photoedit under test first in PATH; stopped (with its children) by
/// `stop` or, at the latest, ten minutes after it started.
final class LoopbackSSHD {
  /// sshd is not installed, or cannot start here (no privilege separation folder, say).
  struct Unavailable: Error {
    var reason: String
  }

  let folder: TemporaryFolder
  let port: Int
  private let process: Process
  var clientConfig: String { folder.path("ssh_config") }
  var log: String { (try? String(contentsOfFile: folder.path("sshd.log"), encoding: .utf8)) ?? "" }

  init(in folder: TemporaryFolder) throws {
    self.folder = folder
    let sshd = "/usr/sbin/sshd"
    guard FileManager.default.isExecutableFile(atPath: sshd) else {
      throw Unavailable(reason: "\(sshd) is missing: apt-get install openssh-server, or make deps")
    }
    for key in ["host_key", "client_key"] {
      let made = try runProcess(
        [
          "/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "photoedit-test", "-f",
          folder.path(key),
        ],
        in: folder.url.path, environment: ProcessInfo.processInfo.environment, seconds: 30)
      try #require(made.status == 0, "ssh-keygen: \(made.err)")
    }
    try FileManager.default.copyItem(
      atPath: folder.path("client_key.pub"), toPath: folder.path("authorized_keys"))
    // sshd's privilege separation needs this empty folder; Debian's package makes it only when
    // the service starts. Left in place: another sshd may be using it.
    if !FileManager.default.fileExists(atPath: "/run/sshd") {
      try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
    }
    let bin = photoeditBinary.deletingLastPathComponent().path
    var generator = SystemRandomNumberGenerator()
    var lastLog = ""
    for _ in 0..<8 {
      let port = Int.random(in: 20000..<60000, using: &generator)
      try """
      Port \(port)
      ListenAddress 127.0.0.1
      ListenAddress 127.0.0.2
      HostKey \(folder.path("host_key"))
      AuthorizedKeysFile \(folder.path("authorized_keys"))
      PidFile \(folder.path("sshd.pid"))
      StrictModes no
      UsePAM no
      PasswordAuthentication no
      KbdInteractiveAuthentication no
      PermitRootLogin prohibit-password
      LogLevel VERBOSE
      SetEnv PATH=\(bin):/usr/local/bin:/usr/bin:/bin

      """.write(toFile: folder.path("sshd_config"), atomically: true, encoding: .utf8)
      try """
      Host *
        Port \(port)
        IdentityFile \(folder.path("client_key"))
        IdentitiesOnly yes
        StrictHostKeyChecking no
        UserKnownHostsFile /dev/null
        BatchMode yes
        ConnectTimeout 10
        ServerAliveInterval 5
        LogLevel ERROR

      """.write(toFile: folder.path("ssh_config"), atomically: true, encoding: .utf8)
      // Under timeout(1): its own process group, killed whole by `stop` or after 600 s.
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = [
        "--default-signal", "/usr/bin/timeout", "-k", "5", "600", sshd, "-D", "-e", "-f",
        folder.path("sshd_config"),
      ]
      _ = FileManager.default.createFile(atPath: folder.path("sshd.log"), contents: nil)
      process.standardError = try FileHandle(forWritingTo: folder.url.appendingPathComponent("sshd.log"))
      process.standardOutput = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      try process.run()
      let deadline = Date().addingTimeInterval(15)
      func listening() -> Bool {
        let text = (try? String(contentsOfFile: folder.path("sshd.log"), encoding: .utf8)) ?? ""
        return ["127.0.0.1", "127.0.0.2"].allSatisfy {
          text.contains("Server listening on \($0) port \(port).")
        }
      }
      while process.isRunning && !listening() && Date() < deadline { usleep(20_000) }
      if listening() {
        (self.port, self.process) = (port, process)
        let probe = try runProcess(
          ["/usr/bin/ssh", "-F", clientConfig, "127.0.0.2", "true"], in: folder.url.path,
          environment: ProcessInfo.processInfo.environment, seconds: 60)
        if probe.status != 0 { stop() }
        try #require(probe.status == 0, "sshd started but ssh cannot log in: \(probe.err)\n\(log)")
        return
      }
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
      lastLog = (try? String(contentsOfFile: folder.path("sshd.log"), encoding: .utf8)) ?? ""
      // Another program holds the port: try another.
      if !lastLog.contains("Address already in use") { break }
    }
    throw Unavailable(reason: lastLog.split(separator: "\n").last.map(String.init) ?? "no message")
  }

  func stop() {
    guard process.isRunning else { return }
    process.terminate()  // timeout(1) passes it to sshd's whole process group
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    // timeout(1) leads the group of sshd and its sessions.
    if process.isRunning { kill(-process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  deinit { stop() }
}

/// Runs `argv` under timeout(1) (its own process group, killed whole at the deadline), with
/// standard output and error in files (no pipe to fill up), and returns the status and both
/// texts. 124 is the status of a run that hit the deadline. `env --default-signal` first: a
/// child inherits the signal mask of the test's thread, which blocks SIGTERM.
@discardableResult
func runProcess(
  _ argv: [String], in directory: String, environment: [String: String], seconds: Int = 120,
  standardOutput: String? = nil, standardError: String? = nil
) throws -> (status: Int32, out: String, err: String) {
  let scratch = try TemporaryFolder()
  let outPath = standardOutput ?? scratch.path("out")
  let errPath = standardError ?? scratch.path("err")
  _ = FileManager.default.createFile(atPath: outPath, contents: nil)
  _ = FileManager.default.createFile(atPath: errPath, contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["--default-signal", "/usr/bin/timeout", "-k", "5", "\(seconds)"] + argv
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  process.environment = environment
  process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
  process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
  process.standardInput = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
  let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
  return (process.terminationStatus, out, err)
}
