import Foundation
import Testing

/// The SHA-256 of renders made through the real binary, pinned: a refactoring must not change a
/// single byte of what a recipe renders. Every filter, every sample recipe in Fixtures/recipes,
/// JPEG and PNG inputs and outputs, EXIF orientation and metadata.
///
/// A case whose bytes change on purpose is updated here in the same commit, with the reason in
/// the commit message. The cases of local steps on JPEG originals are pinned on both routes: with
/// `--quality 90` (the re-encoding route: the bytes from before the lossless route existed) and
/// without (the lossless route). Re-encoding without `--quality` follows the original's quality,
/// estimated from its tables (hopper.jpg 88, testorig.jpg 75). `PHOTOEDIT_PIN_PRINT=1` prints the values measured instead of checking.
@Suite struct RenderPinTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var photo: String
    var arguments: [String]
    /// The output's name when the render goes elsewhere (`-o`); nil renders in place.
    var output: String?
    var sha256: String
    var testDescription: String {
      "\(photo) \(arguments.joined(separator: " "))" + (output.map { " -o \($0)" } ?? "")
    }
  }

  static let recipes = fixtures.appendingPathComponent("recipes").path

  static let cases: [Case] = [
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "sepia:intensity=0.8"],
      sha256: "ddb28852b79076e04a7a6720523038e80a51b569673fbea9f50761f0c6df8f01"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "vignette:intensity=0.6,radius=0.8"],
      sha256: "66e435172103c7a50f1f6cce6c12f98642740a399e0cd6334495a4b289fbddfd"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["--quality", "90", "-f", "pixelate:x=10,y=20,width=60,height=50,block=8"],
      sha256: "11e8d7855f186599856bb604d274603ebaf0ace36b8b313eac14b09f2bcd7182"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["--quality", "90", "-f", "pixelate:shape=circle,center=50%:50%,radius=20%,block=12"],
      sha256: "cdcd03fc3d5ac1cd2c7162d45909369b5e71d084535b628e5c15594632db0f8e"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "crop:x=10,y=5,width=100,height=80"],
      sha256: "bf8d015c925687df8ece57471c9eb314e0845f3968cdfd54626d3bd9ac58c560"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "crop:aspect=16:9,center=30%:40%,scale=0.5"],
      sha256: "7d5966b6877b18fdbbfd0c38cf463d718c077896297253af57b265bf66de148d"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["-f", "crop:shape=circle,center=50%:40%,scale=0.8,background=#000000"],
      sha256: "5fadf618056527eb7367463f25bc1ffd80d869b1613e69f3740b371182bacec0"),
    Case(
      photo: "faces/astronaut.png", arguments: ["-f", "crop:shape=circle,scale=0.5"], output: "out.png",
      sha256: "e961c68746c472900b9632e4377a228c8110320d4ee92d08371d92cc7a300fa8"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["--quality", "90", "-f", "brush:pen=highlight,points=10:30/100:30/100:100"],
      sha256: "a87726a4ba3cd1a517a78ffaf154bde9a1d66e91cdebd6997d75c41a43be82d9"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: [
        "--quality", "90", "-f",
        "brush:pen=custom,color=#00FF0080,size=12,hardness=1,points=10:10/120:10/120:120",
      ],
      sha256: "7e7d3f43208f6493b167f1e842c8872ba3f09a848563a53f99ed1d42429951cf"),
    Case(
      photo: "jpeg/testorig.jpg",
      arguments: ["--quality", "90", "-f", "brush:pen=red,size=3,strokes=\(recipes)/strokes.json"],
      sha256: "f8743ce5615e7e89f98a649d6a10a07a8cbc15dcc110d9f246b5c59d1e5a5f4a"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["--quality", "90", "-f", "rotate:angle=270", "-f", "flip:direction=vertical"],
      sha256: "de58369e760e5d02e9beb0b597ae9f8428b4dd12738fd4782c3bd42c3e6498c5"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "rotate", "-f", "flip"], output: "out.png",
      sha256: "d4e9e64a5c6d2758bddd7582948a9e011910a23573f9d71c3cd3a5b8ec3a4d0c"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["--quality", "90", "-f", "faceblur"],
      sha256: "a3590158571ac69d8af2def83f2ad493bd7dbc48b893411f0127d6ca42c92bd4"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["--quality", "90", "-f", "faceblur:style=blur,blocks=3"],
      sha256: "95a336432651135e1098932343c12e275db403968ca91097909f2a87f595f2ad"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["--quality", "90", "-f", "faceblur:style=solid,color=#FF0000,scale=1.3"],
      sha256: "fdf9f53b5bd44eb790111d63f2795ea207678322f24117969056de751de9f136"),
    Case(
      photo: "faces/astronaut.png", arguments: ["-f", "faceblur:blocks=2,scale=1.6"],
      sha256: "5e1089d0f40e520b8db51d1892bc38042af3604922a441049a014c324d958c79"),
    Case(
      photo: "faces/astronaut.png", arguments: ["-f", "sepia", "-f", "vignette", "-f", "faceblur"],
      output: "out.jpg", sha256: "8df36c45c8e9ba552c1d811b9df387248d045b97cf8bffb2fadfb3ffed1d89aa"),
    Case(
      photo: "faces/hopper_orientation_6.jpg",
      arguments: ["--quality", "90", "-f", "pixelate:x=0,y=0,width=50%,height=50%"],
      sha256: "3f9c0f085787cb6da57d35300c281c9266e2ab64da2d22d8184cedce442d813e"),
    Case(
      photo: "jpeg/xmp_test.jpg", arguments: ["-f", "sepia:intensity=0.5"],
      sha256: "0c0dd08bceb456335fdda1d9c5560cd7e4f98ee0f2a7edd8de27bc492b8d2207"),
    Case(
      photo: "jpeg/testorig.jpg", arguments: ["--recipe", "\(recipes)/house-look.json"],
      sha256: "9d2d09fc16849e0f56390756eba4f9ec60970939ea194664df1e4d081450516c"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["--quality", "90", "--recipe", "\(recipes)/redact.json"],
      sha256: "49b32329fdfe08306adc390d7a3711d26e5a9ac14122d87f2857041aec4abb3e"),
    Case(
      photo: "photos/coffee.png", arguments: ["--recipe", "\(recipes)/profile-picture.json"],
      sha256: "efdf34b4290050cd9da8e74f162dce9a28434e349bdee4da52e7fbe6d7e9068b"),
    Case(
      photo: "photos/coffee.png", arguments: ["--recipe", "\(recipes)/profile-picture.json"],
      output: "out.jpg", sha256: "5aab4b02a76601a61c51c5dc82f232d6b285435ae9ad665d28671182ebc9bbd7"),
    Case(
      photo: "jpeg/video-001.q50.422.progressive.jpeg",
      arguments: ["-f", "sepia", "--quality", "75", "--subsampling", "444"],
      sha256: "d5d209f31e229669a3cb8f4344870ad5cda61cc148d36372acb600fc60080a51"),
    Case(
      photo: "jpeg/pil_sample_cmyk.jpg", arguments: ["-f", "vignette"],
      sha256: "b4cfbb5b30b6b597e6ff4e22907cb2af2852851cea9b5574904b56b1925a5787"),
    // The lossless route (exact turns, mirrors and crops, then local steps; no --quality): new
    // bytes, the original's blocks kept.
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "pixelate:x=10,y=20,width=60,height=50,block=8"],
      sha256: "79984f543ab8db2e9a7de2d4c10413eb69ad61cd2de55ad50a5d883176842bf2"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["-f", "pixelate:shape=circle,center=50%:50%,radius=20%,block=12"],
      sha256: "79ac27168af66d4373e82746e43c6c119a4b1ccecf1afa24690d1f422b8d4821"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "brush:pen=highlight,points=10:30/100:30/100:100"],
      sha256: "d01ab5771a79795115cfba5b345a1f11862d18f52ff01501b83f6bd1788a3fc0"),
    Case(
      photo: "faces/hopper.jpg",
      arguments: ["-f", "brush:pen=custom,color=#00FF0080,size=12,hardness=1,points=10:10/120:10/120:120"],
      sha256: "116cbba50b4350aaf7a550653da2d3159ad0b56a36a8147e1970c47f9bc00a71"),
    Case(
      photo: "jpeg/testorig.jpg", arguments: ["-f", "brush:pen=red,size=3,strokes=\(recipes)/strokes.json"],
      sha256: "4c7803c73c2614762b06757e75fa07d21661ca9fe6189b2140597e77a5b4bb8a"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "faceblur"],
      sha256: "93ddecb5fe72756d06a765a6a95315a6b45a76d85b4e538c967ccd52edf34737"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "faceblur:style=blur,blocks=3"],
      sha256: "481f8307bc7bc9f93b18fb80c26e0335c941f20bd97219954747273fa0f413ac"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "faceblur:style=solid,color=#FF0000,scale=1.3"],
      sha256: "2087ea52d59648d1bd9d9b6070d0c637bd3943eb4444611839b64489aaf0cf51"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["--recipe", "\(recipes)/redact.json"],
      sha256: "75264ee88e2d9700c70b25986e731000140b159c705f2e55eba5e094e0bb11c0"),
    Case(
      photo: "faces/hopper.jpg", arguments: ["-f", "rotate:angle=270", "-f", "flip:direction=vertical"],
      sha256: "2f671af65d60e8ddcf15759c8c9c70fe1def9bc9448c869f4b5f56f1adf093be"),
    Case(
      photo: "faces/hopper_orientation_6.jpg", arguments: ["-f", "pixelate:x=0,y=0,width=50%,height=50%"],
      sha256: "eec89e53687991123b081e606b96058f26e1905fb43fe389d9c7cd7f26e3a9a7"),
  ]

  static let printing = ProcessInfo.processInfo.environment["PHOTOEDIT_PIN_PRINT"] == "1"

  @Test(arguments: cases)
  func renderBytesArePinned(_ pin: Case) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let name = (pin.photo as NSString).lastPathComponent
    let photo = try folder.copy(pin.photo, as: name)
    var arguments = ["apply"] + pin.arguments
    let rendered: String
    if let output = pin.output {
      rendered = folder.path(output)
      arguments += ["-o", rendered]
    } else {
      rendered = photo
    }
    let run = runCLI(arguments + [photo])
    try #require(run.status == 0, "\(run.err)")
    let sidecar =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: rendered + ".photoedit.json"))) as? [String: Any]
    let render = try #require(sidecar?["render"] as? [String: Any])
    let sha = try #require(render["sha256"] as? String)
    // The sidecar's checksum is the file's: `check` verifies it.
    #expect(runCLI(["check", rendered]).status == 0)
    if Self.printing {
      print("PIN \(pin.testDescription) -> \(sha)")
    } else {
      #expect(sha == pin.sha256)
    }
  }
}
