import Codecs
import Foundation
import PhotoCore
import Testing

/// A folder of photos to review: `photos/` with two faceblurred group photos and an unedited
/// one, and room beside it for the page.
final class ReviewFixture {
  let folder: TemporaryFolder
  var photos: String { folder.path("photos") }
  var page: String { folder.path("review.html") }
  var previews: String { folder.path("review_files") }

  /// - Parameter unedited: names of fixtures copied in without an edit.
  init(
    blurred: [String] = ["groundtruth/ultralytics-bus.jpg", "groundtruth/opencv-group1.jpg"],
    unedited: [String] = ["faces/astronaut.png"]
  ) throws {
    folder = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    var names: [String] = []
    for fixture in blurred {
      let name = (fixture as NSString).lastPathComponent
      try folder.copy(fixture, as: "photos/\(name)")
      names.append(folder.path("photos/\(name)"))
    }
    for fixture in unedited {
      try folder.copy(fixture, as: "photos/\((fixture as NSString).lastPathComponent)")
    }
    if !names.isEmpty {
      let r = runCLI(["apply", "--filter", "faceblur:detector=haar", "-q"] + names)
      try #require(r.status == 0, "faceblur: \(r.err)")
    }
  }

  func path(_ name: String) -> String { folder.path("photos/\(name)") }

  /// Runs `photoedit review photos -o review.html` plus `extra`, in-process.
  @discardableResult
  func review(_ extra: [String] = [], operands: [String]? = nil) -> (status: Int32, out: String, err: String)
  {
    runCLI(["review"] + (operands ?? [photos]) + ["-o", page, "-q"] + extra)
  }

  var html: String { (try? String(contentsOfFile: page, encoding: .utf8)) ?? "" }

  /// The sidecar's faceblur step (the first step).
  func faceblur(_ name: String) throws -> (exclude: [Int], add: [[Double]], faces: [[Double]]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path(name) + ".photoedit.json"))
    let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    let step = (json["operations"] as! [[String: Any]])[0]
    let parameters = step["parameters"] as! [String: Any]
    let faces = (step["derived"] as! [String: Any])["faces"] as! [[String: Double]]
    return (
      parameters["exclude"] as? [Int] ?? [],
      (parameters["add"] as? [[String: Double]] ?? []).map {
        [$0["x"]!, $0["y"]!, $0["width"]!, $0["height"]!]
      },
      faces.map { [$0["x"]!, $0["y"]!, $0["width"]!, $0["height"]!] }
    )
  }

  /// Every store file's bytes in `photos/`, to check that nothing changed.
  func storeSnapshot() -> [String: Data] {
    var out: [String: Data] = [:]
    let names = (try? FileManager.default.subpathsOfDirectory(atPath: photos)) ?? []
    for name in names.sorted() {
      out[name] = FileManager.default.contents(atPath: path(name))
    }
    return out
  }
}

/// What the page's HTML holds, outside its scripts (which are not counted).
struct PageMarkup {
  let text: String

  init(_ html: String) {
    text = html.replacingOccurrences(
      of: "<script[^>]*>[\\s\\S]*?</script>", with: "", options: .regularExpression)
  }

  /// Each `data-photo` section's name, in page order, with its markup.
  var sections: [(name: String, markup: String)] {
    let parts = text.components(separatedBy: "<section ").dropFirst()
    return parts.compactMap { part in
      guard let name = Self.attribute("data-photo", in: part) else { return nil }
      return (name, part.components(separatedBy: "</section>")[0])
    }
  }

  func count(_ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }

  /// The faces of one photo: (number, state).
  func faces(of photo: String) -> [(number: Int, state: String)] {
    guard let markup = sections.first(where: { $0.name == photo })?.markup else { return [] }
    return markup.components(separatedBy: "<li").dropFirst().compactMap { li in
      guard let k = Self.attribute("data-face", in: li).flatMap(Int.init),
        let state = Self.attribute("data-state", in: li)
      else { return nil }
      return (k, state)
    }
  }

  static func attribute(_ name: String, in text: String) -> String? {
    guard let range = text.range(of: " \(name)=\"") else { return nil }
    let rest = text[range.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
  }
}

/// The mean absolute difference of RGB between two images of one size inside a box of
/// fractions.
func meanDifference(_ a: Image, _ b: Image, inside box: [Double]) -> Double {
  precondition(a.width == b.width && a.height == b.height)
  let x0 = Int(box[0] * Double(a.width))
  let y0 = Int(box[1] * Double(a.height))
  let x1 = min(a.width, Int((box[0] + box[2]) * Double(a.width)))
  let y1 = min(a.height, Int((box[1] + box[3]) * Double(a.height)))
  var sum = 0
  var n = 0
  for y in y0..<y1 {
    for x in x0..<x1 {
      let i = (y * a.width + x) * 4
      for c in 0..<3 { sum += abs(Int(a.bytes[i + c]) - Int(b.bytes[i + c])) }
      n += 3
    }
  }
  return n == 0 ? 0 : Double(sum) / Double(n)
}

func decodeFile(_ path: String) throws -> Image {
  try ImageCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).image
}
