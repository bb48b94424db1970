import PhotoCore

/// What a person decided of a photo on a review page, recorded in its sidecar (`review`) by
/// `apply --corrections`: the state, when it was recorded, and the render it was given for, so
/// that `status` and a later `review` can tell whether the photo changed since. Specified in
/// docs/sidecar.md.
public struct ReviewRecord: Equatable, Sendable {
  public enum State: String, Sendable, CaseIterable { case approved, flagged }
  public var state: State
  /// When `apply --corrections` recorded it.
  public var time: UTCTime
  /// The SHA-256 of the render the person was shown the previews of (the
  /// sidecar's `render.sha256` when the page was made), or of the render the same store
  /// operation made when the photo's corrections were applied with it.
  public var render: SHA256Digest

  public init(state: State, time: UTCTime, render: SHA256Digest) {
    (self.state, self.time, self.render) = (state, time, render)
  }

  package var json: JSONValue {
    .object(["state": .string(state.rawValue), "time": .string(time.iso8601), "render": render.json])
  }

  /// Reads and checks the sidecar's `review` object: a known state, a time written as photoedit
  /// writes it (any date from year 0 to 9999 is data, a future one too), 64 lowercase hex digits.
  ///
  /// - Throws: `.invalidRecipe` naming the field and what it holds.
  package init(json: JSONValue) throws(StoreError) {
    guard let o = json.object else { throw .invalidRecipe(.wrongType(field: "review")) }
    func field(_ key: String) throws(StoreError) -> JSONValue {
      guard let value = o[key] else { throw .invalidRecipe(.missing(field: "review." + key)) }
      return value
    }
    let stateValue = try field("state")
    guard let word = stateValue.string, let state = State(rawValue: word) else {
      throw .invalidRecipe(.badValue(field: "review.state", value: stateValue))
    }
    let timeValue = try field("time")
    guard let text = timeValue.string, let time = UTCTime(iso8601: text) else {
      throw .invalidRecipe(.badValue(field: "review.time", value: timeValue))
    }
    let renderValue = try field("render")
    guard let render = SHA256Digest(renderValue) else {
      throw .invalidRecipe(.badValue(field: "review.render", value: renderValue))
    }
    self.init(state: state, time: time, render: render)
  }
}

/// A time in UTC to the second, as seconds since 1970-01-01T00:00:00Z, between the years 0 and
/// 9999: written `2026-12-06T18:40:12Z` (ISO 8601), shown `2026-12-06 18:40 UTC`.
public struct UTCTime: Equatable, Comparable, Sendable {
  public var seconds: Int64
  /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
  package static let range: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

  /// nil outside the years 0 to 9999.
  public init?(seconds: Int64) {
    guard Self.range.contains(seconds) else { return nil }
    self.seconds = seconds
  }

  /// Reads exactly `YYYY-MM-DDTHH:MM:SSZ`, a date that exists; anything else is nil.
  public init?(iso8601 text: String) {
    let b = Array(text.utf8)
    guard b.count == 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
      b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ from: Int, _ count: Int) -> Int? {
      var n = 0
      for c in b[from..<(from + count)] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) else { return nil }
        n = n * 10 + Int(c - UInt8(ascii: "0"))
      }
      return n
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...Self.days(inMonth: month, of: year)).contains(day),
      hour < 24, minute < 60, second < 60
    else { return nil }
    let days = Self.days(fromCivil: year, month, day)
    self.seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
  }

  public static func < (a: UTCTime, b: UTCTime) -> Bool { a.seconds < b.seconds }

  /// The date and time: (year, month, day, hour, minute, second).
  package var parts: (Int, Int, Int, Int, Int, Int) {
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let rest = Int(seconds - Int64(days) * 86_400)
    let (y, m, d) = Self.civil(fromDays: days)
    return (y, m, d, rest / 3600, rest / 60 % 60, rest % 60)
  }

  /// `2026-12-06T18:40:12Z`: how the sidecar records it.
  public var iso8601: String {
    let (y, mo, d, h, mi, s) = parts
    return "\(Self.digits(y, 4))-\(Self.digits(mo, 2))-\(Self.digits(d, 2))T"
      + "\(Self.digits(h, 2)):\(Self.digits(mi, 2)):\(Self.digits(s, 2))Z"
  }

  /// `2026-12-06 18:40:12 UTC`: how messages show a file's time.
  public var displayToTheSecond: String {
    let (y, mo, d, h, mi, s) = parts
    return
      "\(Self.digits(y, 4))-\(Self.digits(mo, 2))-\(Self.digits(d, 2)) \(Self.digits(h, 2)):\(Self.digits(mi, 2)):\(Self.digits(s, 2)) UTC"
  }

  /// `2026-12-06 18:40 UTC`: how `status` shows it.
  public var display: String {
    let (y, mo, d, h, mi, _) = parts
    return
      "\(Self.digits(y, 4))-\(Self.digits(mo, 2))-\(Self.digits(d, 2)) \(Self.digits(h, 2)):\(Self.digits(mi, 2)) UTC"
  }

  private static func digits(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, width - s.count)) + s
  }

  package static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (Howard Hinnant's
  /// `days_from_civil` algorithm).
  package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The date of a count of days since 1970-01-01 (the inverse of `days(fromCivil:)`).
  package static func civil(fromDays days: Int) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
