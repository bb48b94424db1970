/// The words of a command line, sorted into options and operands; options are read back through
/// their typed declarations (`args[CommonOptions.jobs]`).
struct ParsedArguments: Sendable {
  var command: String
  private(set) var flags: Set<String> = []
  /// Each option's values in the order given, by its long name.
  private(set) var values: [String: [String]] = [:]
  /// Files and other operands, in order. `-` (standard input) is kept as an operand.
  private(set) var operands: [String] = []

  init(command: String) { self.command = command }

  /// True when the flag was given.
  subscript(flag: Flag) -> Bool { flags.contains(flag.spec.long) }

  /// The last value given for the option, else its default, else nil. Values were checked
  /// against the option's kind when the line was scanned.
  subscript<Value>(option: Option<Value>) -> Value? {
    guard let text = values[option.spec.long]?.last else { return option.fallback }
    return option.decode(text)
  }

  /// Every value given for a repeatable option, in order.
  func all<Value>(_ option: Option<Value>) -> [Value] {
    (values[option.spec.long] ?? []).compactMap(option.decode)
  }

  /// True when the option was given on the command line (its default does not count).
  func has(_ option: some OptionDeclaration) -> Bool {
    flags.contains(option.spec.long) || values[option.spec.long] != nil
  }

  /// Records an option; a single-valued option given twice is refused (which of the two was
  /// meant is a guess no script should depend on).
  fileprivate mutating func add(_ spec: OptionSpec, value: String?) throws(UsageError) {
    guard let value else {
      flags.insert(spec.long)
      return
    }
    if !spec.repeatable, let earlier = values[spec.long]?.first {
      throw UsageError(
        "--\(spec.long) is given twice ('\(earlier)' and '\(value)'); give it once", command: command)
    }
    values[spec.long, default: []].append(value)
  }
  fileprivate mutating func addOperand(_ word: String) { operands.append(word) }
}

/// Sorts command-line words into options and operands.
///
/// Options may come before or after the operands; `--` ends the options. Long options take their
/// value as `--name VALUE` or `--name=VALUE`; short ones as `-o VALUE` or `-oVALUE`; short flags
/// may be bundled (`-r0`). A lone `-` is an operand (read file names from standard input).
///
/// Every value is then checked against its option's kind, in the order given, unless `--help`
/// was given (the help is shown whatever the other words say): a value outside its range is a
/// usage error naming the option, the value and the range, before the command runs.
enum ArgumentScanner {
  static func scan(_ words: [String], command: String, options: [OptionSpec]) throws(UsageError)
    -> ParsedArguments
  {
    var parsed = ParsedArguments(command: command)
    var checks: [(OptionSpec, String)] = []
    var i = 0
    func needValue(_ spec: OptionSpec, shown: String) throws(UsageError) -> String {
      i += 1
      guard i < words.count else {
        throw UsageError("\(shown) needs a value (\(spec.valueName ?? "VALUE"))", command: command)
      }
      return words[i]
    }
    func unknown(_ shown: String) -> UsageError {
      let suggestion =
        shown.hasPrefix("--")
        ? Suggestion.closest(to: String(shown.dropFirst(2)), among: options.map(\.long)).map { "--" + $0 }
        : nil
      return UsageError(
        "unknown option '\(shown)' for '\(command)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""),
        command: command)
    }
    while i < words.count {
      let word = words[i]
      if word == "--" {
        for rest in words[(i + 1)...] { parsed.addOperand(rest) }
        break
      }
      if word.hasPrefix("--") {
        let body = word.dropFirst(2)
        let name: Substring
        let inline: String?
        if let eq = body.firstIndex(of: "=") {
          (name, inline) = (body[..<eq], String(body[body.index(after: eq)...]))
        } else {
          (name, inline) = (body, nil)
        }
        guard let spec = options.first(where: { $0.long == name }) else { throw unknown("--\(name)") }
        if spec.valueName == nil {
          if inline != nil { throw UsageError("--\(name) takes no value", command: command) }
          try parsed.add(spec, value: nil)
        } else {
          let value: String
          if let inline { value = inline } else { value = try needValue(spec, shown: "--\(name)") }
          try parsed.add(spec, value: value)
          checks.append((spec, value))
        }
      } else if word.hasPrefix("-"), word.count > 1 {
        var letters = Array(word.dropFirst())
        while !letters.isEmpty {
          let letter = letters.removeFirst()
          guard let spec = options.first(where: { $0.short == letter }) else { throw unknown("-\(letter)") }
          if spec.valueName == nil {
            try parsed.add(spec, value: nil)
          } else {
            let value: String
            if letters.isEmpty {
              value = try needValue(spec, shown: "-\(letter)")
            } else {
              value = String(letters)
            }
            try parsed.add(spec, value: value)
            checks.append((spec, value))
            letters = []
          }
        }
      } else {
        parsed.addOperand(word)
      }
      i += 1
    }
    if !parsed[CommonOptions.help] {
      for (spec, value) in checks {
        if let refusal = spec.refusal(of: value, command: command) { throw refusal }
      }
    }
    return parsed
  }
}
