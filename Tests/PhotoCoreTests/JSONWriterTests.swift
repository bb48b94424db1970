import Foundation
import Testing

@testable import PhotoCore

/// The one JSON writer. Store files were written by Foundation's JSONEncoder (pretty-printed,
/// sorted keys, unescaped slashes, empty containers collapsed) before the writer was photoedit's
/// own: the writer must give the same bytes, or every existing sidecar's request key (a hash of
/// that text) would change. Foundation is the oracle here, and only here.
@Suite struct JSONWriterTests {
  /// JSONValue as Foundation encoded it: whole numbers under 10^15 as integers.
  struct Foundationed: Encodable {
    let value: JSONValue
    func encode(to encoder: any Encoder) throws {
      var c = encoder.singleValueContainer()
      switch value {
      case .null: try c.encodeNil()
      case .bool(let b): try c.encode(b)
      case .number(let n):
        if n == n.rounded(), abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
      case .string(let s): try c.encode(s)
      case .array(let a): try c.encode(a.map(Foundationed.init))
      case .object(let o): try c.encode(o.mapValues(Foundationed.init))
      }
    }
  }

  /// What the store wrote before: Foundation's bytes, `[` blank lines `]` collapsed, a newline.
  static func foundation(_ value: JSONValue) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var text = String(decoding: try encoder.encode(Foundationed(value: value)), as: UTF8.self)
    let pattern = try NSRegularExpression(pattern: #"([\[{])\n[ \n]*\n *([\]}])"#)
    text = pattern.stringByReplacingMatches(
      in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1$2")
    return text + "\n"
  }

  static let strings = [
    "", "a/b", "q\"x", "back\\slash", "nl\nx", "tab\tx", "ctl\u{1}\u{1F}", "del\u{7F}", "café", "\u{2028}",
    "cr\r", "\u{8}\u{C}", "emoji 📷", "\u{10FE80}private",
  ]
  static let numbers: [Double] = [
    0, -0.0, 1, -1, 1.5, 0.1, 0.3, 1e-7, 1.234e-5, 0.0001, 999_999_999_999_999, 1e15, 1e16, 1e21, 1.5e300,
    -2.5, 5e-324, 0.18338523392690972, 4_294_967_296, 9_007_199_254_740_993, 75, 0.8,
  ]

  @Test func numbersAreWhatFoundationWrote() throws {
    var generator = SystemRandomNumberGenerator()
    let random = (0..<2000).map { _ in
      Double(bitPattern: generator.next()) * (Bool.random() ? 1 : 0) + Double.random(in: -1e6...1e6)
    }
    for n in (Self.numbers + random) where n.isFinite {
      #expect(
        JSONWriter.encode(.array([.number(n)]), layout: .indented)
          == (try Self.foundation(.array([.number(n)]))), "\(n)")
    }
    #expect(JSONWriter.number(.nan) == "null")
    #expect(JSONWriter.number(-.infinity) == "null")
  }

  @Test func stringsAreWhatFoundationWrote() throws {
    for s in Self.strings {
      let value = JSONValue.object([s: .string(s)])
      #expect(
        JSONWriter.encode(value, layout: .indented) == (try Self.foundation(value)), "\(s.debugDescription)")
    }
  }

  /// Random nested documents of every kind, empty containers and sorted keys included.
  @Test func documentsAreWhatFoundationWrote() throws {
    func random(_ depth: Int) -> JSONValue {
      switch Int.random(in: 0..<(depth > 3 ? 4 : 6)) {
      case 0: return .null
      case 1: return .bool(Bool.random())
      case 2: return .number(Self.numbers.randomElement()!)
      case 3: return .string(Self.strings.randomElement()!)
      case 4: return .array((0..<Int.random(in: 0...3)).map { _ in random(depth + 1) })
      default:
        var o: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4) { o[Self.strings.randomElement()! + "k"] = random(depth + 1) }
        return .object(o)
      }
    }
    for _ in 0..<500 {
      let value = JSONValue.object(["top": random(0), "also": random(0)])
      #expect(JSONWriter.encode(value, layout: .indented) == (try Self.foundation(value)))
    }
  }

  @Test func aResultLineIsOneLineWithItsLeadingKeysFirst() throws {
    let value = JSONValue.object([
      "zeta": .array([]), "seconds": .number(0.25), "file": .string("a\nb.jpg"),
      "alpha": .object(["file": .null]),
    ])
    let line = JSONWriter.encode(value, layout: .line(leadingKeys: ["file", "status", "seconds"]))
    #expect(line == #"{"file": "a\nb.jpg", "seconds": 0.25, "alpha": {"file": null}, "zeta": []}"#)
    #expect(try JSONParser.parse(Array(line.utf8)) == value)
  }

  /// What it writes, the one reader reads back as it was.
  @Test func theReaderReadsWhatTheWriterWrote() throws {
    for s in Self.strings {
      for n in Self.numbers {
        let value = JSONValue.object([s: .array([.string(s), .number(n), .bool(true), .null, .object([:])])])
        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
      }
    }
  }
}
