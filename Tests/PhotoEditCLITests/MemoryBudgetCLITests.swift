import Codecs
import Foundation
import PhotoCore
import Testing

/// `--max-memory`: the process's memory budget, which decoding and face detection draw from,
/// through the real binary (the budget is the process's, so these never run in-process).
@Suite struct MemoryBudgetCLITests {
  /// A grey JPEG of `width` × `height` (cheap to make at any size).
  static func grey(_ folder: TemporaryFolder, _ name: String, width: Int, height: Int) throws -> String {
    let image = Image(width: width, height: height, fill: RGBA(100, 100, 100, 255))
    folder.write(name, try ImageCodec.encode(image, as: .jpeg))
    return folder.path(name)
  }

  /// A 24 MP photo's frame (97 MB with the decoder's rows) over a 64 MB budget: 65, the budget
  /// and how to raise it named, and no file written or changed. A filter rendered band by band
  /// holds no frame, so sepia fits the same budget.
  @Test func aDecodeOverTheBudgetIsRefusedAndNothingChanges() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.grey(folder, "big.jpg", width: 6000, height: 4000)
    let before = try #require(folder.read("big.jpg"))
    for command in [
      ["detect"], ["apply", "-f", "faceblur"], ["apply", "-f", "faceblur", "-o", folder.path("out.jpg")],
    ] {
      let run = try launch(command + ["--max-memory", "64", photo])
      #expect(run.status == 65, "\(command): \(run.err)")
      #expect(
        run.err
          == "photoedit: \(photo): decoding needs about 93 MiB (97283328 bytes), more than the memory budget of 64 MiB (67108864 bytes); raise it with --max-memory MB\n",
        "\(run.err)")
      #expect(folder.names() == ["big.jpg"])
      #expect(folder.read("big.jpg") == before, "the photo changed")
    }
    let sepia = try launch(["apply", "-f", "sepia", "--max-memory", "64", photo])
    #expect(sepia.status == 0, "\(sepia.err)")
  }

  /// Face detection's buffers are drawn from the budget beside the decoded frame.
  @Test func faceDetectionDrawsFromTheBudget() throws {
    let folder = try TemporaryFolder()
    let photo = try Self.grey(folder, "p.jpg", width: 2000, height: 1500)
    let centerFace = try launch(["detect", "--max-memory", "64", photo])
    #expect(centerFace.status == 65)
    // The network's tensors for the 2016x1504 input (5.5 floats a pixel, 64 MiB), a block's
    // scratch and room for 100,000 face candidates.
    #expect(
      centerFace.err.contains(
        "face detection (CenterFace) needs about 86 MiB beside the 12 MiB this photo holds, more than the memory budget of 64 MiB; raise it with --max-memory MB"
      ), "\(centerFace.err)")
    let enough = try launch(["detect", "--max-memory", "100", photo])
    #expect(enough.status == 0, "\(enough.err)")
    let haar = try launch(["detect", "--detector", "haar", "--max-memory", "64", photo])
    #expect(haar.status == 0, "\(haar.err)")
    #expect(folder.names() == ["p.jpg"])
  }

  /// Three photos in parallel with room for one at a time: each waits for the memory (or runs
  /// again alone) instead of failing, and all are done.
  @Test func aBatchWaitsForMemoryInsteadOfFailing() throws {
    let folder = try TemporaryFolder()
    let photos = try (1...3).map { try Self.grey(folder, "p\($0).jpg", width: 2000, height: 1500) }
    let run = try launch(["apply", "-f", "faceblur", "-j", "3", "--max-memory", "300"] + photos)
    #expect(run.status == 0, "\(run.err)")
    #expect(run.err.contains("3 files: 3 done, 0 current, 0 failed"), "\(run.err)")
    for name in ["p1.jpg", "p2.jpg", "p3.jpg"] { #expect(folder.exists(name + ".photoedit.json")) }
  }

  @Test func theBudgetIsARange() throws {
    let run = try launch(["detect", "--max-memory", "10", "x.jpg"])
    #expect(run.status == 64)
    #expect(run.err.contains("--max-memory"), "\(run.err)")
  }
}
