/// What an option's value is. The scanner checks every value against it before a command runs
/// (a refusal names the option, the value and what it must be, exit 64), and the help, the
/// manual page and shell completion describe the option from it.
enum OptionKind: Sendable {
  /// No value.
  case flag
  /// A whole number within the range.
  case integer(ClosedRange<Int>)
  /// A finite number within the range.
  case number(ClosedRange<Double>)
  /// One of the words.
  case choice([String])
  /// The name of a file (completion offers files).
  case file
  /// The name of a folder (completion offers folders).
  case folder
  /// Text the command reads itself (a filter word, `key=value` pairs).
  case text
  /// A value with a syntax of its own: `check` gives the whole message for a value it refuses.
  case custom(check: @Sendable (_ text: String, _ command: String) -> UsageError?)
}

/// One option a command accepts, as the scanner, the help, the manual page and completion see
/// it. Commands declare options as typed ``Option`` or ``Flag`` values and read them back
/// through those, never by name.
struct OptionSpec: Sendable {
  var long: String
  var short: Character? = nil
  /// How help writes the value (`N`, `FILE`); nil for a flag.
  var valueName: String? = nil
  var kind: OptionKind = .flag
  var repeatable = false
  var help: String
  /// The default as help says it (`250000000`, `the number of cores`), or nil when the help
  /// says nothing about it.
  var defaultText: String? = nil

  /// How the option is written in help: `-o, --output FILE`.
  var synopsis: String {
    var s = short.map { "-\($0), " } ?? "    "
    s += "--\(long)"
    if let valueName { s += " \(valueName)" }
    return s
  }

  /// The range or words of the value, as help shows them; nil when the value name says it all.
  var allowed: String? {
    switch kind {
    case .integer(let r): return ValueText.range(.integer(r))
    case .number(let r): return ValueText.range(.number(r))
    case .choice(let words):
      let list = words.joined(separator: "|")
      return valueName == list ? nil : list
    case .flag, .file, .folder, .text, .custom: return nil
    }
  }

  /// The help with the allowed values and the default: `parallel workers (1...256, default: the
  /// number of cores)`.
  var description: String {
    let facts = [allowed, defaultText.map { $0.contains(" ") ? "default: \($0)" : "default \($0)" }]
      .compactMap { $0 }
    guard !facts.isEmpty else { return help }
    let joined = facts.joined(separator: ", ")
    return help.hasSuffix(")") ? "\(help); \(joined)" : "\(help) (\(joined))"
  }

  /// The refusal of a value this option does not take, or nil when it takes it.
  func refusal(of text: String, command: String) -> UsageError? {
    func refuse(_ message: String) -> UsageError { UsageError(message, command: command) }
    switch kind {
    case .flag, .file, .folder, .text: return nil
    case .integer(let range):
      if let n = Int(text), range.contains(n) { return nil }
      return refuse(
        "--\(long) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    case .number(let range):
      if let n = Double(text), n.isFinite, range.contains(n) { return nil }
      return refuse(
        "--\(long) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    case .choice(let words):
      if words.contains(text) { return nil }
      let list = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : words[0]
      return refuse(
        "--\(long) must be \(list), not '\(text)'"
          + (Suggestion.closest(to: text, among: words).map { "; did you mean '\($0)'?" } ?? ""))
    case .custom(let check): return check(text, command)
    }
  }
}

/// An option's declaration, typed or not: what a command lists.
protocol OptionDeclaration: Sendable {
  var spec: OptionSpec { get }
}

/// A flag (an option without a value): `args[flag]` is true when it was given.
struct Flag: OptionDeclaration {
  let spec: OptionSpec

  init(_ long: String, short: Character? = nil, help: String) {
    spec = OptionSpec(long: long, short: short, help: help)
  }
}

/// An option with a value of type `Value`: `args[option]` is the value given (checked against
/// its kind before the command runs), else its default, else nil.
struct Option<Value: Sendable>: OptionDeclaration {
  let spec: OptionSpec
  /// The default used when the option is not given.
  let fallback: Value?
  /// The value of a text the kind allows.
  let decode: @Sendable (String) -> Value?

  init(
    spec: OptionSpec, fallback: Value? = nil, describe: (Value) -> String = { "\($0)" },
    decode: @escaping @Sendable (String) -> Value?
  ) {
    var spec = spec
    if spec.defaultText == nil, let fallback { spec.defaultText = describe(fallback) }
    (self.spec, self.fallback, self.decode) = (spec, fallback, decode)
  }
}

extension Option where Value == Int {
  /// A whole number within `range`.
  static func integer(
    _ long: String, short: Character? = nil, valueName: String = "N", _ range: ClosedRange<Int>,
    default fallback: Int? = nil, defaultText: String? = nil, help: String
  ) -> Self {
    Self(
      spec: OptionSpec(
        long: long, short: short, valueName: valueName, kind: .integer(range), help: help,
        defaultText: defaultText),
      fallback: fallback, decode: { Int($0) })
  }
}

extension Option where Value == Double {
  /// A number within `range`.
  static func number(
    _ long: String, valueName: String = "X", _ range: ClosedRange<Double>, default fallback: Double? = nil,
    help: String
  ) -> Self {
    Self(
      spec: OptionSpec(long: long, valueName: valueName, kind: .number(range), help: help),
      fallback: fallback, describe: ValueText.number, decode: { Double($0) })
  }
}

extension Option where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
  /// One of an enumeration's raw values.
  static func choice(
    _ long: String, valueName: String? = nil, default fallback: Value? = nil, defaultText: String? = nil,
    help: String
  ) -> Self {
    let words = Value.allCases.map(\.rawValue)
    return Self(
      spec: OptionSpec(
        long: long, valueName: valueName ?? words.joined(separator: "|"), kind: .choice(words), help: help,
        defaultText: defaultText),
      fallback: fallback, describe: \.rawValue, decode: { Value(rawValue: $0) })
  }
}

extension Option where Value == String {
  /// A file's name.
  static func file(
    _ long: String, short: Character? = nil, valueName: String = "FILE", repeatable: Bool = false,
    defaultText: String? = nil, help: String
  ) -> Self {
    Self(
      spec: OptionSpec(
        long: long, short: short, valueName: valueName, kind: .file, repeatable: repeatable, help: help,
        defaultText: defaultText), decode: { $0 })
  }

  /// A folder's name.
  static func folder(_ long: String, valueName: String = "DIR", help: String) -> Self {
    Self(spec: OptionSpec(long: long, valueName: valueName, kind: .folder, help: help), decode: { $0 })
  }

  /// Text the command reads itself.
  static func text(
    _ long: String, short: Character? = nil, valueName: String, repeatable: Bool = false, help: String
  ) -> Self {
    Self(
      spec: OptionSpec(
        long: long, short: short, valueName: valueName, kind: .text, repeatable: repeatable, help: help),
      decode: { $0 })
  }
}

extension Option {
  /// A value with a syntax of its own: `parse` gives the value, or the usage error that refuses
  /// the text.
  static func custom(
    _ long: String, valueName: String, help: String,
    parse: @escaping @Sendable (_ text: String, _ command: String) -> Result<Value, UsageError>
  ) -> Self {
    Self(
      spec: OptionSpec(
        long: long, valueName: valueName,
        kind: .custom { text, command in
          if case .failure(let error) = parse(text, command) { return error }
          return nil
        }, help: help),
      decode: { text in try? parse(text, "").get() })
  }
}
