import Foundation
import Synchronization

/// The reference tools of the formats photoedit reads besides JPEG and PNG (Debian's `webp`
/// package: cwebp, dwebp; `libheif-examples`: heif-enc, heif-convert), run by tests to make photos at test time from the fixtures and to
/// decode renders independently. `make test` installs them (TEST_PACKAGES).
public enum FormatTools {
  public struct Failed: Error, CustomStringConvertible {
    public let description: String
  }

  /// Runs `/usr/bin/TOOL ARGS...`; its standard output, or `Failed` with its standard error.
  @discardableResult
  public static func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    (process.standardOutput, process.standardError) = (out, err)
    try process.run()
    // Both pipes drain while the tool runs, so a full pipe cannot stall it.
    let drained = DispatchGroup()
    let output = Mutex((out: Data(), err: Data()))
    DispatchQueue.global().async(group: drained) {
      let data = out.fileHandleForReading.readDataToEndOfFile()
      output.withLock { $0.out = data }
    }
    DispatchQueue.global().async(group: drained) {
      let data = err.fileHandleForReading.readDataToEndOfFile()
      output.withLock { $0.err = data }
    }
    drained.wait()
    process.waitUntilExit()
    let (outData, errData) = output.withLock { $0 }
    guard process.terminationStatus == 0 else {
      throw Failed(
        description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
          + String(decoding: errData, as: UTF8.self))
    }
    return Array(outData)
  }

  /// A WebP made by cwebp from a fixture (a JPEG's or PNG's path below Fixtures/), with cwebp's
  /// `options` (`-q 80`, `-lossless`, `-metadata all`).
  public static func webp(fromFixture relative: String, _ options: [String] = []) throws -> [UInt8] {
    try webp(fromFile: fixturePath(relative), options)
  }

  /// A WebP made by cwebp from a file.
  public static func webp(fromFile path: String, _ options: [String] = []) throws -> [UInt8] {
    try run("cwebp", ["-quiet"] + options + [path, "-o", "-"])
  }

  /// dwebp's RGBA pixels of a WebP file: (width, height, pixels), from its PAM output.
  public static func dwebpPixels(_ path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
    let pam = try run("dwebp", ["-quiet", "-pam", path, "-o", "-"])
    // "P7\nWIDTH w\nHEIGHT h\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", then the pixels.
    let marker = Array("ENDHDR\n".utf8)
    guard
      let end = (0...(pam.count - marker.count)).first(where: {
        Array(pam[$0..<($0 + marker.count)]) == marker
      })
    else { throw Failed(description: "dwebp wrote no PAM header") }
    let header = String(decoding: pam[..<end], as: UTF8.self)
    func value(_ key: String) -> Int? {
      header.split(separator: "\n").first { $0.hasPrefix(key + " ") }.flatMap {
        Int($0.dropFirst(key.count + 1))
      }
    }
    guard let width = value("WIDTH"), let height = value("HEIGHT"), value("DEPTH") == 4 else {
      throw Failed(description: "dwebp's PAM header: \(header)")
    }
    return (width, height, Array(pam[(end + marker.count)...]))
  }

  /// A HEIC (x265) or, with `avif`, an AVIF (aom) made by heif-enc from a file (a JPEG's EXIF
  /// and XMP are copied; heif-enc writes no `irot` for an EXIF orientation), with heif-enc's
  /// `options` (`-q 80`, `-L`, `-t 64`, `-b 10`).
  public static func heif(fromFile path: String, avif: Bool = false, _ options: [String] = []) throws
    -> [UInt8]
  {
    let out = NSTemporaryDirectory() + "photoedit-heif-enc-\(UUID().uuidString).\(avif ? "avif" : "heic")"
    defer { try? FileManager.default.removeItem(atPath: out) }
    try run("heif-enc", options + ["-o", out, path])
    guard let data = FileManager.default.contents(atPath: out) else {
      throw Failed(description: "heif-enc wrote no \(out)")
    }
    return Array(data)
  }

  /// As `heif(fromFile:)`, from a fixture (a path below Fixtures/).
  public static func heif(fromFixture relative: String, avif: Bool = false, _ options: [String] = []) throws
    -> [UInt8]
  {
    try heif(fromFile: fixturePath(relative), avif: avif, options)
  }

  /// heif-convert's PNG of a HEIC or AVIF file (its primary image, transforms applied), written
  /// to `png`.
  public static func heifConvert(_ path: String, to png: String) throws {
    try run("heif-convert", [path, png])
  }
}
