/// One option a command accepts. Flags have no `valueName`.
struct OptionSpec: Sendable {
  var long: String
  var short: Character? = nil
  var valueName: String? = nil
  var repeatable = false
  var help: String

  /// How the option is written in help: `-o, --output FILE`.
  var synopsis: String {
    var s = short.map { "-\($0), " } ?? "    "
    s += "--\(long)"
    if let valueName { s += " \(valueName)" }
    return s
  }
}

/// The words of a command line, sorted into options and operands.
struct ParsedArguments: Sendable {
  var command: String
  private(set) var flags: Set<String> = []
  private(set) var values: [String: [String]] = [:]
  /// Files and other operands, in order. `-` (standard input) is kept as an operand.
  private(set) var operands: [String] = []

  init(command: String) { self.command = command }

  func flag(_ long: String) -> Bool { flags.contains(long) }
  /// The last value given for an option, or nil.
  func value(_ long: String) -> String? { values[long]?.last }
  /// Every value given for a repeatable option, in order.
  func allValues(_ long: String) -> [String] { values[long] ?? [] }

  /// An integer option within `range`, or nil when absent.
  func integer(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(long) else { return nil }
    guard let n = Int(text), range.contains(n) else {
      throw UsageError(
        "--\(long) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
        command: command)
    }
    return n
  }

  /// A decimal option within `range`, or nil when absent.
  func decimal(_ long: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
    guard let text = value(long) else { return nil }
    guard let n = Double(text), n.isFinite, range.contains(n) else {
      throw UsageError(
        "--\(long) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
        command: command)
    }
    return n
  }

  /// Records an option; a single-valued option given twice is refused (which of the two was
  /// meant is a guess no script should depend on).
  fileprivate mutating func add(_ spec: OptionSpec, value: String?) throws(UsageError) {
    guard let value else {
      flags.insert(spec.long)
      return
    }
    if !spec.repeatable, let earlier = values[spec.long]?.first {
      throw UsageError("--\(spec.long) is given twice ('\(earlier)' and '\(value)'); give it once", command: command)
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
enum ArgumentScanner {
  static func scan(_ words: [String], command: String, options: [OptionSpec]) throws(UsageError)
    -> ParsedArguments
  {
    var parsed = ParsedArguments(command: command)
    var i = 0
    func needValue(_ spec: OptionSpec, shown: String) throws(UsageError) -> String {
      i += 1
      guard i < words.count else {
        throw UsageError("\(shown) needs a value (\(spec.valueName ?? "VALUE"))", command: command)
      }
      return words[i]
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
        guard let spec = options.first(where: { $0.long == name }) else {
          throw UsageError("unknown option '--\(name)' for '\(command)'", command: command)
        }
        if spec.valueName == nil {
          if inline != nil { throw UsageError("--\(name) takes no value", command: command) }
          try parsed.add(spec, value: nil)
        } else {
          let value: String
          if let inline { value = inline } else { value = try needValue(spec, shown: "--\(name)") }
          try parsed.add(spec, value: value)
        }
      } else if word.hasPrefix("-"), word.count > 1 {
        var letters = Array(word.dropFirst())
        while !letters.isEmpty {
          let letter = letters.removeFirst()
          guard let spec = options.first(where: { $0.short == letter }) else {
            throw UsageError("unknown option '-\(letter)' for '\(command)'", command: command)
          }
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
            letters = []
          }
        }
      } else {
        parsed.addOperand(word)
      }
      i += 1
    }
    return parsed
  }
}
