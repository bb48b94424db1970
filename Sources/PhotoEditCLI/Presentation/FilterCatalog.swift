import PhotoCore

/// The filter catalogue for `photoedit filters` and `photoedit help apply`, laid out from the
/// filters' own declarations.
enum FilterCatalog {
  /// One row per parameter: name, type, range, default, help.
  static func rows(_ filter: Filters.Description) -> [[String]] {
    filter.parameters.map { p in
      [
        p.name, ValueText.typeName(p.kind), ValueText.range(p.kind),
        p.defaultValue.map(ValueText.value) ?? "-", p.help,
      ]
    }
  }

  /// Every filter with its parameters, every line at most `TextLayout.width` columns: in aligned
  /// columns (name, type, range, default, help) when they fit, else each parameter on two lines
  /// or more (name, type and range, then its default and help below, indented).
  static func text(_ catalog: [Filters.Description] = Filters.catalog()) -> String {
    func padded(_ row: [String], _ widths: [Int]) -> String {
      zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
    }
    var lines: [String] = []
    for filter in catalog {
      lines += TextLayout.wrap("\(filter.name) (version \(filter.version)): \(filter.summary)", indent: 2)
      let rows = rows(filter)
      let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
      let table = rows.map { "  " + padded(Array($0[0..<4]), widths) + "  " + $0[4] }
      if table.allSatisfy({ $0.count <= TextLayout.width }) {
        lines += table
        continue
      }
      let below = 2 + widths[0] + 2
      for row in rows {
        lines.append("  " + padded(Array(row[0..<2]), Array(widths[0..<2])) + "  " + row[2])
        let value = row[3] == "-" ? "none" : row[3]
        lines += TextLayout.wrap(
          "default \(value); \(row[4])", first: String(repeating: " ", count: below), indent: below)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Every filter as JSON: `{name, summary, version, parameters: [{name, type, range, default,
  /// help}]}`; `default` is the command-line text of the default, or null.
  static func json(_ catalog: [Filters.Description] = Filters.catalog()) -> [JSONValue] {
    catalog.map { filter in
      .object([
        "name": .string(filter.name), "summary": .string(filter.summary),
        "version": .number(Double(filter.version)),
        "parameters": .array(
          filter.parameters.map { p in
            .object([
              "name": .string(p.name), "type": .string(ValueText.typeName(p.kind)),
              "range": .string(ValueText.range(p.kind)),
              "default": p.defaultValue.map { .string(ValueText.value($0)) } ?? .null,
              "help": .string(p.help),
            ])
          }),
      ])
    }
  }

  /// Every filter as a Markdown table, for the README (a test keeps the README's copy current).
  static func markdown(_ catalog: [Filters.Description] = Filters.catalog()) -> String {
    var lines = ["| filter | what it does | parameters: default (allowed) |", "| --- | --- | --- |"]
    for filter in catalog {
      let parameters = filter.parameters.map { p in
        let value = p.defaultValue.map(ValueText.value) ?? "none"
        return "`\(p.name)` \(value) (\(ValueText.range(p.kind)))".split(
          separator: "|", omittingEmptySubsequences: false
        )
        .joined(separator: "\\|")
      }
      lines.append("| `\(filter.name)` | \(filter.summary) | \(parameters.joined(separator: "; ")) |")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
