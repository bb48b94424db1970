import PhotoCore
import Recipe
import Store

/// A `--filter` word that cannot be made into a request.
enum FilterWordError: Error, Equatable {
  /// The word after the name's `:` is not a `key=value` pair.
  case malformed(filter: String, text: String)
  /// A key given twice.
  case duplicate(filter: String, key: String)
  /// A value that is not of the parameter's kind.
  case badValue(filter: String, key: String, text: String, expected: ParameterKind)
  /// A file a value names (a brush's strokes) could not be read.
  case unreadableFile(filter: String, key: String, path: String, StoreError)
  /// A file a value names is not a strokes file.
  case badFile(filter: String, key: String, path: String, reason: String)
  /// The request itself was refused (unknown filter or parameter, a value out of range, ...).
  case request(FilterError)
}

/// Parses `--filter NAME[:key=value,...]` words into filter requests.
///
/// The first `:` ends the name; pairs are separated by `,`; values hold no commas. A value is
/// written by its kind: a number (`0.8`, decimal only), a length (`12`, `12.5`, `40%`), a point
/// `X:Y`, a list separated by `/`, a ratio `W:H`, a colour `#RRGGBB` or `#RRGGBBAA`, a box
/// `X:Y:W:H`; a strokes parameter names a JSON file, read here.
enum FilterWords {
  static func parse(
    _ word: String,
    readFile: (String) throws(StoreError) -> [UInt8] = { (path: String) throws(StoreError) in
      try EditStore.readFile(path)
    }
  )
    throws(FilterWordError) -> StepRequest
  {
    let name: String
    let rest: Substring?
    if let colon = word.firstIndex(of: ":") {
      name = String(word[..<colon])
      rest = word[word.index(after: colon)...]
    } else {
      (name, rest) = (word, nil)
    }
    let description: Filters.Description
    do { description = Filters.describe(try Filters.named(name)) } catch { throw .request(error) }
    var values: [String: ParameterValue] = [:]
    // The files values were read from, for refusals to name.
    var files: [String: String] = [:]
    for pair in rest.map({ $0.split(separator: ",", omittingEmptySubsequences: false) }) ?? [] {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw .malformed(filter: name, text: String(pair))
      }
      let key = String(pair[..<eq])
      let text = String(pair[pair.index(after: eq)...])
      guard let parameter = description.parameters.first(where: { $0.name == key }) else {
        throw .request(.unknownParameter(filter: name, key: key, known: description.parameters.map(\.name)))
      }
      guard values[key] == nil else { throw .duplicate(filter: name, key: key) }
      values[key] = try value(text, kind: parameter.kind, filter: name, key: key, readFile: readFile)
      if parameter.kind == .strokes { files[key] = text }
    }
    do {
      var request = try Filters.request(name, values: values)
      request.files = files
      return request
    } catch { throw .request(error.naming(files: files)) }
  }

  /// A file a value names (a brush's strokes) is an input like any other: when `error` is about
  /// that file, prints its one line and returns its status (66 missing or unreadable, 65 not a
  /// strokes file), before any photo is touched; nil for any other error (a usage error).
  static func reportFileProblem(_ error: FilterWordError, console: Console) -> Int32? {
    switch error {
    case .unreadableFile(_, _, let path, let problem):
      console.printError("photoedit: \(TextEscaping.controls(path)): \(ErrorText.message(problem))")
      return ExitStatus.of(problem)
    case .badFile(let filter, _, let path, let reason):
      let name = filter.isEmpty ? "" : "\(filter): "
      console.printError("photoedit: \(TextEscaping.controls(path)): \(name)not a strokes file: \(reason)")
      return ExitStatus.dataError
    default: return nil
    }
  }

  /// One value's text, read by its parameter's kind. Ranges are the request's to check.
  static func value(
    _ text: String, kind: ParameterKind, filter: String, key: String,
    readFile: (String) throws(StoreError) -> [UInt8]
  ) throws(FilterWordError) -> ParameterValue {
    let bad = FilterWordError.badValue(filter: filter, key: key, text: text, expected: kind)
    func list<T>(_ item: (Substring) -> T?) throws(FilterWordError) -> [T] {
      var out: [T] = []
      for part in text.split(separator: "/", omittingEmptySubsequences: false) {
        guard let v = item(part) else { throw bad }
        out.append(v)
      }
      return out
    }
    switch kind {
    case .number:
      guard let v = decimal(Substring(text)) else { throw bad }
      return .number(v)
    case .integer:
      guard let v = Int(text) else { throw bad }
      return .integer(v)
    case .choice:
      guard case .choice(let words) = kind, words.contains(text) else { throw bad }
      return .choice(text)
    case .length:
      guard let l = length(Substring(text)) else { throw bad }
      return .length(l)
    case .point:
      guard let p = point(Substring(text)) else { throw bad }
      return .point(p)
    case .points: return .points(try list(point))
    case .strokes:
      let bytes: [UInt8]
      do { bytes = try readFile(text) } catch {
        throw .unreadableFile(filter: filter, key: key, path: text, error)
      }
      do { return .strokes(try StrokesFile.parse(bytes)) } catch {
        throw .badFile(filter: filter, key: key, path: text, reason: error.description)
      }
    case .ratio:
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count == 2, let w = decimal(parts[0]), let h = decimal(parts[1]) else { throw bad }
      return .ratio(Ratio(w, h))
    case .color, .opaqueColor:
      guard let c = RGBA(hex: text) else { throw bad }
      return .color(c)
    // An empty list clears it (`exclude=`: no face left alone).
    case .integers: return .integers(text.isEmpty ? [] : try list { Int($0) })
    case .boxes:
      if text.isEmpty { return .boxes([]) }
      return .boxes(
        try list { part in
          let l = part.split(separator: ":", omittingEmptySubsequences: false).compactMap(length)
          return l.count == 4 ? Box(x: l[0], y: l[1], width: l[2], height: l[3]) : nil
        })
    case .digest: return .digest(text.lowercased())
    }
  }

  /// A decimal number, `12`, `-0.5`, `1e3`: never hexadecimal (`0x1`), `inf` or `nan`, which
  /// Swift's `Double(_:)` would take.
  static func decimal(_ text: Substring) -> Double? {
    var digits = false
    var i = text.utf8.startIndex
    let u = text.utf8
    if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
    var seenDot = false
    while i < u.endIndex {
      let c = u[i]
      if (0x30...0x39).contains(c) {
        digits = true
      } else if c == UInt8(ascii: "."), !seenDot {
        seenDot = true
      } else {
        break
      }
      i = u.index(after: i)
    }
    guard digits else { return nil }
    if i < u.endIndex, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
      i = u.index(after: i)
      if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
      var exponent = false
      while i < u.endIndex, (0x30...0x39).contains(u[i]) {
        exponent = true
        i = u.index(after: i)
      }
      guard exponent else { return nil }
    }
    guard i == u.endIndex, let v = Double(text), v.isFinite else { return nil }
    return v
  }

  /// `12`, `12.5` (pixels) or `40%` (a fraction, 0.4).
  static func length(_ text: Substring) -> Length? {
    if text.hasSuffix("%") {
      guard decimal(text.dropLast()) != nil else { return nil }
      return Length.fraction(percent: text.dropLast()).map(Length.fraction)
    }
    return decimal(text).map(Length.pixels)
  }

  /// `X:Y`, each a length.
  static func point(_ text: Substring) -> Point? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let x = length(parts[0]), let y = length(parts[1]) else { return nil }
    return Point(x: x, y: y)
  }
}
