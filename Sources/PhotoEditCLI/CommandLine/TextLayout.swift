/// Help text laid out for a terminal: every line at most ``width`` columns.
enum TextLayout {
  /// The widest line of any help text (`--help`, `photoedit help`, the filter catalogue).
  static let width = 100

  /// `text` filled into lines of at most `width` columns, broken at spaces: the first line
  /// starts with `first`, the others with `indent` spaces. A word longer than a line is left
  /// whole on a line of its own.
  static func wrap(_ text: String, first: String = "", indent: Int = 0, width: Int = TextLayout.width)
    -> [String]
  {
    let pad = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = first
    var empty = true
    for word in text.split(separator: " ") {
      if !empty, line.count + 1 + word.count > width {
        lines.append(line)
        line = pad
        empty = true
      }
      line += (empty ? "" : " ") + word
      empty = false
    }
    lines.append(line)
    return lines
  }

  /// Rows of a term and its description: the descriptions start in one column, after the widest
  /// term up to `maxTerm` columns, and wrap under it; a longer term puts its description on the
  /// next line.
  static func table(_ rows: [(term: String, text: String)], indent: Int = 2, maxTerm: Int = 30) -> [String] {
    let termWidth = min(maxTerm, rows.map(\.term.count).filter { $0 <= maxTerm }.max() ?? 0)
    let column = indent + termWidth + 2
    let margin = String(repeating: " ", count: indent)
    var lines: [String] = []
    for (term, text) in rows {
      if term.count > termWidth {
        lines.append(margin + term)
        lines += wrap(text, first: String(repeating: " ", count: column), indent: column)
      } else {
        let first = margin + term + String(repeating: " ", count: column - indent - term.count)
        lines += wrap(text, first: first, indent: column)
      }
    }
    return lines
  }
}
