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

  /// Every filter with its parameters, in aligned columns.
  static func text(_ catalog: [Filters.Description] = Filters.catalog()) -> String {
    var lines: [String] = []
    for filter in catalog {
      lines.append("\(filter.name) (version \(filter.version)): \(filter.summary)")
      let rows = rows(filter)
      let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
      for row in rows {
        var line = "  "
        for c in 0..<4 { line += row[c] + String(repeating: " ", count: widths[c] - row[c].count + 2) }
        lines.append(line + row[4])
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
