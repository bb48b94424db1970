import Testing

@testable import PhotoCore

/// A strokes file of `strokes` strokes of `points` points each, as `[[[x, y], ...], ...]`.
private func strokesFile(strokes: Int, points: Int) -> [UInt8] {
  var out: [UInt8] = [UInt8(ascii: "[")]
  let point = Array("[12.5, 300],".utf8)
  for s in 0..<strokes {
    if s > 0 { out.append(UInt8(ascii: ",")) }
    out.append(UInt8(ascii: "["))
    for _ in 0..<points { out += point }
    out[out.count - 1] = UInt8(ascii: "]")
  }
  out.append(UInt8(ascii: "]"))
  return out
}

private func expectRefused(
  _ bytes: [UInt8], _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  do {
    _ = try StrokesFile.parse(bytes)
    Issue.record("accepted; expected \"\(message)\"", sourceLocation: sourceLocation)
  } catch {
    #expect(error.description == message, sourceLocation: sourceLocation)
  }
}

/// Strokes files are bounded: strokes, points per stroke and points in all, and the parser's
/// memory (its JSON values and the file's size).
@Suite struct HostileStrokesTests {
  /// Finding: a 1-million-point strokes file made 600 MB of memory and a 96 MB sidecar. The
  /// parser now stops once the file holds more JSON values than the limits allow.
  @Test func aMillionPointsAreRefused() {
    expectRefused(
      strokesFile(strokes: 1, points: 1_000_000),
      "the file holds too many JSON values for the limits of 10000 strokes, 10000 points a stroke"
        + " and 100000 points in all")
    expectRefused(
      strokesFile(strokes: 100, points: 10_000),
      "the file holds too many JSON values for the limits of 10000 strokes, 10000 points a stroke"
        + " and 100000 points in all")
  }

  @Test func theLimitsThemselves() throws {
    #expect(try StrokesFile.parse(strokesFile(strokes: 10, points: 10_000)).count == 10)
    #expect(try StrokesFile.parse(strokesFile(strokes: 10_000, points: 10)).count == 10_000)
    expectRefused(
      strokesFile(strokes: 1, points: 10_001), "stroke 0 has 10001 points, more than the limit of 10000")
    expectRefused(
      strokesFile(strokes: 11, points: 9_100),
      "the file holds 100100 points, more than the limit of 100000")
    expectRefused(
      strokesFile(strokes: 10_001, points: 1), "the file holds 10001 strokes, more than the limit of 10000")
  }

  /// Values that are not strokes count too: a small strokes list beside a huge array of junk.
  @Test func junkBesideTheStrokesIsBounded() {
    let junk = Array(
      ("{\"junk\": [" + String(repeating: "0,", count: 400_000) + "0], \"strokes\": [[[1, 2]]]}").utf8)
    expectRefused(
      junk,
      "the file holds too many JSON values for the limits of 10000 strokes, 10000 points a stroke"
        + " and 100000 points in all")
  }

  @Test func fileSize() {
    var bytes = Array("[[[1, 2]]]".utf8)
    bytes += [UInt8](repeating: 0x20, count: 16 << 20)
    expectRefused(bytes, "the file is 16777226 bytes, more than the limit of 16777216")
  }

  @Test func deepNestingIsRefused() {
    expectRefused(
      Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8),
      "invalid JSON at byte 255: nested too deeply")
  }
}
