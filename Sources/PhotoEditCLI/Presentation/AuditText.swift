import Codecs
import PhotoCore
import Recipe
import Store

extension FileResult {
  /// `audit`'s result: a `findings` array in JSON (empty for a clean file), each finding with
  /// its `kind` (`face`, `embedded-image`, `metadata`, `store-file`) and details; one line in
  /// text for a file with findings, none for a clean one.
  init(_ o: AuditOutcome) {
    self.init(warnings: o.warnings)
    if let width = o.width, let height = o.height {
      fields["width"] = .number(Double(width))
      fields["height"] = .number(Double(height))
    }
    var findings: [JSONValue] = []
    var parts: [String] = []
    if let store = o.storeFile {
      findings.append(
        .object([
          "kind": .string("store-file"), "role": .string(store.role.rawValue), "photo": .string(store.photo),
        ]))
      parts.append("store file: \(Self.describe(store)); it would be published with the folder")
    }
    for f in o.faces {
      let box: [String: JSONValue] = [
        "x": .number(f.x), "y": .number(f.y), "width": .number(f.width), "height": .number(f.height),
      ]
      findings.append(
        .object(["kind": .string("face"), "box": .object(box), "score": .number(f.score ?? 1)]))
    }
    if !o.faces.isEmpty {
      parts.append(
        "\(Self.count(o.faces.count, "face")) visible ("
          + o.faces.map { f in
            "x=\(Self.tenth(f.x)) y=\(Self.tenth(f.y)) width=\(Self.tenth(f.width)) height=\(Self.tenth(f.height))"
              + (f.score.map { " score=\(ValueText.number(($0 * 1000).rounded() / 1000))" } ?? "")
          }.joined(separator: "; ") + ")")
    }
    for kind in [MetadataFinding.Kind.embeddedImage, .metadata] {
      let of = o.metadata.filter { $0.kind == kind }
      guard !of.isEmpty else { continue }
      for m in of {
        findings.append(
          .object([
            "kind": .string(kind.rawValue), "in": .string(m.container),
            (kind == .metadata ? "tag" : "what"): .string(m.name),
          ]))
      }
      let label = kind == .metadata ? "identifying metadata" : "embedded image"
      // Names read from the file (a PNG keyword, an XMP namespace) are shown escaped.
      parts.append(
        "\(label): " + of.map { TextEscaping.controls("\($0.container) \($0.name)") }.joined(separator: ", "))
    }
    fields["findings"] = .array(findings)
    flagged = !o.isClean
    if !parts.isEmpty { lines = [parts.joined(separator: "; ")] }
  }

  /// `the original of photos/a.jpg`, `the sidecar of public/a.jpg`.
  static func describe(_ store: StoreFile) -> String {
    let of = TextEscaping.controls(store.photo)
    switch store.role {
    case .original: return "the unedited original of \(of), kept by an in-place edit"
    case .sidecar: return "the sidecar of \(of) (it names the original and the hidden faces' boxes)"
    case .journal: return "the journal of an interrupted edit of \(of)"
    case .lock: return "the lock of \(of)"
    case .temporary: return "a temporary file of \(of)"
    }
  }
}
