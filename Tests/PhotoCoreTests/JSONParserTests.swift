import Testing

@testable import PhotoCore

private func parse(_ text: String) throws(JSONParser.Failure) -> JSONValue {
  try JSONParser.parse(Array(text.utf8))
}

/// The reason `bytes` is refused, or nil when it parses.
private func reason(_ bytes: [UInt8]) -> String? {
  do {
    _ = try JSONParser.parse(bytes)
    return nil
  } catch { return error.reason }
}

private func reason(_ text: String) -> String? { reason(Array(text.utf8)) }

/// The JSON reader of sidecars, journals, corrections and strokes files: RFC 8259, and nothing
/// that two readers could take for different documents.
@Suite struct JSONParserTests {
  @Test func readsDocuments() throws {
    #expect(
      try parse(" {\"a\": [1, -0.5, 2e3, 1E-2, true, false, null], \"b\": {\"c\": \"d\"}}\n")
        == .object([
          "a": .array([
            .number(1), .number(-0.5), .number(2000), .number(0.01), .bool(true), .bool(false), .null,
          ]),
          "b": .object(["c": .string("d")]),
        ]))
    #expect(try parse("[]") == .array([]))
    #expect(try parse("{}") == .object([:]))
    #expect(try parse("-0") == .number(0))
    // Below the smallest Double is zero, as every reader rounds it.
    #expect(try parse("1e-999") == .number(0))
  }

  @Test func decodesEscapes() throws {
    #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
    #expect(try parse(#""caf\u00e9 \u00E9""#) == .string("café é"))
    // A character outside the basic plane is a surrogate pair.
    #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
    #expect(try parse("\"😀 é\"") == .string("😀 é"))
  }

  @Test func skipsAByteOrderMark() throws {
    #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number(1)]))
    // Only at the start.
    #expect(reason([0x20, 0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == "expected a value")
  }

  /// Readers differ on which of two equal keys wins: the document is refused.
  @Test func refusesARepeatedKey() {
    #expect(reason(#"{"a": 1, "a": 1}"#) == #"the key "a" appears twice in one object"#)
    #expect(
      reason(#"[{"x": {"path": "a", "b": 2, "path": "b"}}]"#)
        == #"the key "path" appears twice in one object"#)
    do {
      _ = try parse("{\n  \"a\": 1,\n  \"a\": 2\n}")
      Issue.record("accepted a repeated key")
    } catch {
      // The offset of the second key, on line 3.
      #expect(error.offset == 14)
      #expect(
        JSONParser.position(of: error.offset, in: Array("{\n  \"a\": 1,\n  \"a\": 2\n}".utf8)) == (3, 3))
    }
    // The same key in two objects is not repeated.
    #expect(reason(#"[{"a": 1}, {"a": 2}]"#) == nil)
    // Keys are compared as decoded strings.
    #expect(reason(#"{"a": 1, "\u0061": 2}"#) == #"the key "a" appears twice in one object"#)
  }

  @Test(arguments: [
    ("+1", "expected a value"), ("01", "a number has a leading zero"), ("-01", "a number has a leading zero"),
    (".5", "expected a value"), ("1.", "expected a digit after '.'"), ("1.e5", "expected a digit after '.'"),
    ("-", "expected a digit"), ("1e", "expected a digit in the exponent"),
    ("1e+", "expected a digit in the exponent"),
    ("0x10", "unexpected text after the JSON value"), ("1e999", "the number 1e999 is out of range"),
    ("[-1e999]", "the number -1e999 is out of range"), ("NaN", "expected a value"),
    ("Infinity", "expected a value"),
  ])
  func refusesNumbersOutsideTheGrammar(text: String, expected: String) {
    #expect(reason(text) == expected)
  }

  @Test func refusesTextThatIsNotUTF8() {
    // A truncated sequence, an overlong '/', a surrogate encoded in UTF-8, a stray continuation.
    for bad: [UInt8] in [[0xC3, 0x28], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80]] {
      #expect(reason([0x22] + bad + [0x22]) == "a string is not UTF-8", "\(bad)")
    }
  }

  @Test func refusesHalfASurrogatePair() {
    let half = "a \\u escape holds half a surrogate pair"
    #expect(reason(#""\ud83d""#) == half)
    #expect(reason(#""\ude00""#) == half)
    #expect(reason(#""\ud83d\u0041""#) == half)
    #expect(reason(#""\ud83dx""#) == half)
  }

  @Test(arguments: [
    ("\"a\u{1}b\"", "control character in string"), ("\"a\nb\"", "control character in string"),
    (#""\x41""#, "bad escape"), (#""\u12G4""#, "bad \\u escape"), (#""abc"#, "unterminated string"),
    ("[1, 2", "unexpected end"), ("[1 2]", "expected ',' or ']'"), (#"{"a" 1}"#, "expected ':'"),
    (#"{"a": 1,}"#, "expected a key"), ("[1,]", "expected a value"), ("tru", "unexpected word"),
    ("[1] [2]", "unexpected text after the JSON value"), ("", "unexpected end"),
  ])
  func refusesBrokenDocuments(text: String, expected: String) {
    #expect(reason(text) == expected)
  }

  @Test func boundsDepthAndValues() {
    #expect(reason(String(repeating: "[", count: 255) + String(repeating: "]", count: 255)) == nil)
    #expect(
      reason(String(repeating: "[", count: 256) + String(repeating: "]", count: 256)) == "nested too deeply")
    do {
      _ = try JSONParser.parse(Array("[1, 2, 3]".utf8), maxValues: 3)
      Issue.record("read more values than allowed")
    } catch {
      #expect(error.tooManyValues)
      #expect(error.description == "invalid JSON at byte 7: more than 3 values")
    }
  }

  @Test func messagesQuoteKeysSafely() {
    // A key with a control character and a long one, as a message shows them.
    #expect(
      reason(#"{"a\u001b[31m": 1, "a\u001b[31m": 2}"#)
        == #"the key "a\u001b[31m" appears twice in one object"#)
    let long = String(repeating: "k", count: 100)
    #expect(
      reason("{\"\(long)\": 1, \"\(long)\": 2}")
        == "the key \"\(String(repeating: "k", count: 40))...\" appears twice in one object")
  }
}
