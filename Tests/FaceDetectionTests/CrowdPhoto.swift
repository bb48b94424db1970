import Codecs
import Foundation
import PhotoCore

/// The 24 MP crowd photo of Fixtures/faces/crowd-reference.json, made here from the fixtures.
///
/// The layout (written by Tests/Benchmarks/crowd.py) gives every number: the background is
/// seeding_by_Clements_Engelhardt.jpg at (0, 0), mirrored about its right and bottom edges to
/// fill the canvas; each person is a crop of a face photo shrunk as `photoedit render --max-size N`
/// shrinks it (a DCT-scaled decode when the photo is a JPEG, then `Image.resampled(longestSide:)`)
/// pasted at a given place. Nothing here rescales the canvas.
struct CrowdPhoto {
  struct Source {
    var fixture: String
    var longestSide: Int
  }

  struct Person {
    var source: Int
    var crop: (x: Int, y: Int, width: Int, height: Int)
    var at: (x: Int, y: Int)
  }

  var width: Int, height: Int
  var background: String
  var sources: [Source]
  var people: [Person]
  /// CRC-32 of the canvas's RGB bytes, as Python's zlib.crc32 gives it.
  var crc32: UInt32
  /// OpenCV's boxes (one thread, so in OpenCV's order) for each recorded run.
  var runs: [ReferenceRun]

  /// Reads Fixtures/faces/crowd-reference.json.
  static func reference() throws -> CrowdPhoto {
    let json = try JSONSerialization.jsonObject(with: Data(fixture("faces/crowd-reference.json")))
    guard let top = json as? [String: Any], let layout = top["layout"] as? [String: Any],
      let width = layout["width"] as? Int, let height = layout["height"] as? Int,
      let background = layout["background"] as? String,
      let sources = layout["sources"] as? [[String: Any]],
      let people = layout["people"] as? [[String: Any]], let crc = top["crc32"] as? Int,
      let runs = top["runs"] as? [[String: Any]]
    else { throw TestSetupError(description: "malformed crowd-reference.json") }
    return CrowdPhoto(
      width: width, height: height, background: background,
      sources: try sources.map { s in
        guard let f = s["fixture"] as? String, let side = s["longestSide"] as? Int else {
          throw TestSetupError(description: "malformed crowd source \(s)")
        }
        return Source(fixture: f, longestSide: side)
      },
      people: try people.map { p in
        guard let source = p["source"] as? Int, let crop = p["crop"] as? [Int], crop.count == 4,
          let at = p["at"] as? [Int], at.count == 2
        else { throw TestSetupError(description: "malformed crowd person \(p)") }
        return Person(source: source, crop: (crop[0], crop[1], crop[2], crop[3]), at: (at[0], at[1]))
      },
      crc32: UInt32(crc),
      runs: try runs.map { run in
        guard let settings = run["settings"] as? [String: Any],
          let scaleFactor = settings["scaleFactor"] as? Double,
          let minNeighbors = settings["minNeighbors"] as? Int, let boxes = run["boxes"] as? [[Int]]
        else { throw TestSetupError(description: "malformed crowd run") }
        return ReferenceRun(
          options: DetectionOptions(scaleFactor: scaleFactor, minNeighbors: minNeighbors),
          boxes: boxes.map { FaceBox(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) })
      })
  }

  /// The canvas, `width` × `height` RGBA (opaque).
  func build() throws -> Image {
    let back = try decodedFixture(background)
    let (bw, bh) = (back.width, back.height)
    var canvas = [UInt8](repeating: 255, count: width * height * 4)
    back.bytes.withUnsafeBufferPointer { src in
      canvas.withUnsafeMutableBufferPointer { dst in
        for y in 0..<height {
          let sy = y < bh ? y : 2 * bh - 1 - y
          let s = src.baseAddress! + sy * bw * 4
          let d = dst.baseAddress! + y * width * 4
          d.update(from: s, count: min(bw, width) * 4)
          for x in bw..<width {
            let sx = 2 * bw - 1 - x
            for c in 0..<4 { d[x * 4 + c] = s[sx * 4 + c] }
          }
        }
      }
    }
    var shrunk: [Image] = []
    for source in sources {
      var options = DecodeOptions()
      options.minimumLongestSide = source.longestSide
      let decoded = try ImageCodec.decode(try fixture(source.fixture), options: options).image
      shrunk.append(
        max(decoded.width, decoded.height) > source.longestSide
          ? decoded.resampled(longestSide: source.longestSide) : decoded)
    }
    for person in people {
      let s = shrunk[person.source]
      let (cx, cy, cw, ch) = person.crop
      precondition(cx + cw <= s.width && cy + ch <= s.height, "crop outside its source")
      precondition(person.at.x + cw <= width && person.at.y + ch <= height, "person outside the canvas")
      for row in 0..<ch {
        let from = ((cy + row) * s.width + cx) * 4
        let to = ((person.at.y + row) * width + person.at.x) * 4
        canvas.replaceSubrange(to..<(to + cw * 4), with: s.bytes[from..<(from + cw * 4)])
      }
    }
    return Image(width: width, height: height, bytes: canvas)
  }
}

/// CRC-32 (IEEE 802.3, zlib's) of an RGBA image's red, green and blue bytes, row by row.
func rgbCRC32(_ image: Image) -> UInt32 {
  var table = [UInt32](repeating: 0, count: 256)
  for i in 0..<256 {
    var c = UInt32(i)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    table[i] = c
  }
  var crc: UInt32 = 0xFFFF_FFFF
  image.bytes.withUnsafeBufferPointer { bytes in
    table.withUnsafeBufferPointer { t in
      var i = 0
      while i < bytes.count {
        for c in 0..<3 { crc = t[Int((crc ^ UInt32(bytes[i + c])) & 0xFF)] ^ (crc >> 8) }
        i += 4
      }
    }
  }
  return crc ^ 0xFFFF_FFFF
}
