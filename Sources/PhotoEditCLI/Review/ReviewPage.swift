import PhotoCore
import Recipe
import Store

/// Writes the review page: one self-contained HTML file (its style and script inline, nothing
/// fetched) whose previews are in a folder beside it.
///
/// The page's structure is a contract that tests and scripts rely on:
/// - exactly one element per photo carries `data-photo="NAME"` (the name corrections use);
/// - inside it, exactly one element per face of the reviewed faceblur step carries
///   `data-face="K"` (detect's and `exclude=`'s number) and `data-state` (`hidden`, `excluded`
///   or `added`), although the face's box may be drawn on two previews (those boxes carry
///   `data-box="K"`);
/// - `html[data-ready]` is set once the script has sorted the page.
struct ReviewPage {
  var items: [ReviewItem]
  /// The page's previews folder as a relative URL (`review_files`).
  var previewsURL: String
  /// The folder name shown in the notice (`review_files/`).
  var previewsName: String
  /// The folder the names are relative to (what `apply --corrections` takes).
  var folder: String
  var originals: Bool
  var title: String

  /// The marker that tells photoedit's own page from any other file (kept in the first bytes).
  static let generator = "photoedit review"
  /// Above this many photos the page opens as a grid of thumbnails.
  static let gridAbove = 50

  func html() -> String {
    var out = ""
    out.reserveCapacity(4096 + items.count * 2048)
    let faces = items.reduce(0) { $0 + $1.faces.count }
    out += """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="generator" content="\(Self.generator) \(PhotoEditCLI.version)">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' blob: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
      <title>\(Self.escape(title))</title>
      <style>\(ReviewAssets.css)</style>
      </head>
      <body class="layout-both\(items.count > Self.gridAbove ? " view-grid" : "")">
      <header class="top">
      <h1>\(Self.escape(title)): \(FileResult.count(items.count, "photo")), \(FileResult.count(faces, "face"))</h1>

      """
    if originals {
      out += """
        <p class="notice unredacted" id="notice"><strong>Unredacted previews.</strong> The folder \
        <code>\(Self.escape(previewsName))</code> beside this page holds previews of the originals, with every face \
        visible. Keep the page and its folder private, never publish them, and delete them when the \
        review is done (<code>photoedit review --no-originals</code> leaves the originals out).</p>

        """
    } else {
      out += """
        <p class="notice" id="notice">Renders only (<code>--no-originals</code>): the folder \
        <code>\(Self.escape(previewsName))</code> holds previews of the renders, so faces that faceblur \
        hides are hidden here too.</p>

        """
    }
    out += """
      <div class="controls">
      <label>Show <select id="filter">
      <option value="all">all photos</option>
      <option value="look">what needs a look</option>
      <option value="problem">problems (damaged, stale, modified)</option>
      <option value="unedited">unedited or no faceblur</option>
      <option value="face-visible">a face may show in the render (second look)</option>
      <option value="no-faces">no faces found</option>
      <option value="small-faces">faces near the smallest searched size</option>
      <option value="many-faces">many faces (\(ReviewItem.manyFaces) or more)</option>
      <option value="strengthened">faces the check found again, hidden more strongly</option>
      <option value="weak-hiding">steps hidden more weakly than now allowed</option>
      <option value="corrected">corrected on this page</option>
      <option value="unreviewed">not yet approved or flagged</option>
      <option value="approved">approved</option>
      <option value="flagged">flagged</option>
      </select></label>
      <label>Order <select id="sort">
      <option value="look">what needs a look first</option>
      <option value="name">name</option>
      <option value="faces">most faces first</option>
      <option value="smallest">smallest face first</option>
      </select></label>
      <label>View <select id="view">
      <option value="list"\(items.count > Self.gridAbove ? "" : " selected")>one photo per row</option>
      <option value="grid"\(items.count > Self.gridAbove ? " selected" : "")>grid</option>
      </select></label>
      <label>Previews <select id="layout">
      <option value="both">render and original side by side</option>
      <option value="render">render only</option>
      <option value="original">original only</option>
      </select></label>
      <span id="shown"></span>
      <button type="button" id="show-keys">Keys (?)</button>
      </div>
      <p class="help">Click a face, on a preview or in its list, to switch it between hidden and \
      excluded. Drag on a preview to add a face the detector missed. Approve each photo you have \
      checked, or flag it. Keys: <kbd>j</kbd>/<kbd>k</kbd> next and previous photo, <kbd>n</kbd>/<kbd>p</kbd> \
      face, <kbd>x</kbd> hide or exclude it, <kbd>z</kbd> loupe, <kbd>a</kbd> approve, <kbd>f</kbd> flag, \
      <kbd>u</kbd> undo, <kbd>?</kbd> all keys. Your work is kept in this browser until you export it, but nothing is \
      changed until you apply the exported file with photoedit (the page writes no file).</p>
      <div id="keys" role="dialog" aria-label="Keys" hidden>
      <h2>Keys</h2>
      <table>
      <tr><td><kbd>j</kbd> or <kbd>→</kbd></td><td>next photo</td></tr>
      <tr><td><kbd>k</kbd> or <kbd>←</kbd></td><td>previous photo</td></tr>
      <tr><td><kbd>n</kbd></td><td>next face of the photo</td></tr>
      <tr><td><kbd>p</kbd></td><td>previous face of the photo</td></tr>
      <tr><td><kbd>x</kbd></td><td>switch the face between hidden and excluded</td></tr>
      <tr><td><kbd>a</kbd></td><td>approve the photo, then go to the next</td></tr>
      <tr><td><kbd>f</kbd></td><td>flag the photo, then go to the next</td></tr>
      <tr><td><kbd>u</kbd> or <kbd>Ctrl</kbd>+<kbd>z</kbd></td><td>undo the last change</td></tr>
      <tr><td><kbd>Enter</kbd> or <kbd>o</kbd></td><td>open the photo side by side, or close it</td></tr>
      <tr><td><kbd>z</kbd></td><td>the loupe: the current face, or the preview under the pointer, at 4 times \
      its size; on a face, its region at up to the photo's full size, filling the loupe; click in it to switch \
      a face, drag to draw a box (<kbd>Esc</kbd> closes it)</td></tr>
      <tr><td><kbd>g</kbd></td><td>switch between the grid and one photo per row</td></tr>
      <tr><td><kbd>t</kbd></td><td>switch the previews between the render and the original</td></tr>
      <tr><td><kbd>?</kbd></td><td>show or hide this list (<kbd>Esc</kbd> hides it)</td></tr>
      </table>
      </div>
      </header>
      <aside id="corrections" aria-live="polite">
      <h2>Corrections: <span id="correction-count">0</span> photos</h2>
      <p id="review-counts"></p>
      <p><button type="button" id="export" disabled>Export corrections (JSON)</button> \
      <button type="button" id="reset" disabled>Undo all</button></p>
      <p id="saved"></p>
      <p class="help">Apply the exported file from the folder where you ran <code>photoedit review</code>:</p>
      <pre id="apply-command">photoedit apply --corrections corrections.json \(Self.escape(Self.shellQuoted(folder)))</pre>
      <p class="help">or the same, photo by photo:</p>
      <pre id="commands"></pre>
      </aside>
      <div id="loupe" hidden></div>
      <main id="photos">

      """
    for item in items { write(item, into: &out) }
    let config: JSONValue = .object([
      "folder": .string(folder), "formatIdentifier": .string(Corrections.identifier),
      "formatVersion": .number(Double(Corrections.currentVersion)),
    ])
    out += """
      </main>
      <script type="application/json" id="review-config">\(Self.scriptSafe(JSONLine.encode(config)))</script>
      <script>\(ReviewAssets.script)</script>
      </body>
      </html>

      """
    return out
  }

  private func write(_ item: ReviewItem, into out: inout String) {
    let flags = item.flags.map(\.rawValue).joined(separator: " ")
    out += "<section class=\"photo\" id=\"photo-\(item.index)\""
    out += attribute("data-photo", item.name)
    out += attribute("data-index", "\(item.index)")
    out += attribute("data-status", item.state)
    out += attribute("data-flags", flags)
    out += attribute("data-urgency", "\(item.urgency)")
    if let visible = item.visible, !visible.isEmpty {
      out += attribute("data-visible", Self.score(item.visibleScore))
    }
    out += attribute("data-count", "\(item.faces.count)")
    if let side = item.smallestSide { out += attribute("data-smallest", Self.number(side.rounded())) }
    if let step = item.step { out += attribute("data-step", "\(step)") }
    if let detector = item.detector { out += attribute("data-detector", detector) }
    out += attribute("data-correctable", item.correctable ? "true" : "false")
    out += attribute("data-review", item.startingReview)
    if let render = item.render { out += attribute("data-render", render) }
    if let recorded = item.recorded {
      out += attribute("data-recorded", recorded.state.rawValue)
      out += attribute("data-recorded-time", recorded.time.iso8601)
      if item.changedSinceReview { out += attribute("data-changed-since-review", "true") }
    }
    out += attribute("data-command-path", Self.shellQuoted(item.path))
    out += ">\n<header><h2>\(Self.escape(PathName.display(item.name)))</h2>"
    out += " <span class=\"badge status-\(item.state)\">\(item.state)</span>"
    for flag in item.flags where flag != .problem {
      let score = flag == .faceVisible ? " (\(Self.score(item.visibleScore)))" : ""
      out += " <span class=\"badge flag-\(flag.rawValue)\">\(Self.words(flag))\(score)</span>"
    }
    out += " <span class=\"badge corrected-badge\">corrected</span>"
    out += " <span class=\"review-state\">\(item.startingReview)</span>"
    if let recorded = item.recorded {
      let words = "\(recorded.state.rawValue) \(recorded.time.display)"
      out +=
        item.changedSinceReview
        ? " <span class=\"badge recorded changed\">changed since \(words)</span>"
        : " <span class=\"badge recorded\">recorded: \(words)</span>"
    }
    out += " <button type=\"button\" data-review-to=\"approved\">Approve</button>"
    out += "<button type=\"button\" data-review-to=\"flagged\">Flag</button>"
    out += "<button type=\"button\" class=\"open-photo\">Open</button></header>\n"
    if let problem = item.problem {
      out += "<p class=\"problem\">\(Self.escape(PathName.display(problem)))</p>\n"
    }
    out += "<p class=\"summary\">\(Self.escape(summary(item)))</p>\n"
    if !item.views.isEmpty {
      out += "<div class=\"views\">\n"
      for view in item.views { write(view, of: item, into: &out) }
      out += "</div>\n"
    }
    if item.step != nil {
      out += "<ol class=\"faces\" start=\"0\">\n"
      for face in item.faces {
        out += "<li"
        out += attribute("data-face", "\(face.number)")
        out += attribute("data-state", face.state.rawValue)
        out += attribute("data-found", face.found ? "true" : "false")
        out += attribute("data-box", Self.boxText(face.box))
        if let score = face.score { out += attribute("data-score", Self.number(score)) }
        if face.level > 0 { out += attribute("data-level", "\(face.level)") }
        out +=
          "><button type=\"button\">#\(face.number)\(face.found ? "" : "+")</button> <span class=\"what\">"
        out += Self.words(face.state)
        out += "</span>"
        if let side = face.side { out += " <span class=\"size\">\(Self.number(side.rounded())) px</span>" }
        if face.level > 0 {
          out +=
            " <span class=\"stronger\">hidden more strongly (level \(face.level)): the check found it</span>"
        }
        if let score = face.score {
          out += " <span class=\"score\">score \(Self.score(score))</span>"
        }
        out += "</li>\n"
      }
      out += "</ol>\n"
    }
    if !item.otherSteps.isEmpty {
      out += "<div class=\"steps\"><h3>Other edits</h3><pre>"
      out += Self.escape(PathName.display(item.otherSteps.joined(separator: "\n")))
      out += "</pre></div>\n"
    }
    out += "</section>\n"
  }

  private func write(_ view: ReviewItem.View, of item: ReviewItem, into out: inout String) {
    out += "<figure class=\"view\"" + attribute("data-kind", view.kind.rawValue)
    if let t = view.transform, item.correctable {
      out += attribute(
        "data-transform", [t.a, t.b, t.c, t.d, t.e, t.f].map(Self.number).joined(separator: " "))
    }
    out += ">\n<div class=\"stage\">"
    out += "<img" + attribute("src", previewsURL + "/" + view.file) + attribute("width", "\(view.width)")
    out += attribute("height", "\(view.height)") + " loading=\"lazy\" decoding=\"async\" draggable=\"false\""
    out += attribute("alt", "\(view.kind.rawValue) of \(PathName.display(item.name))") + ">"
    if let t = view.transform, item.step != nil {
      for face in item.faces {
        let (x, y, w, h) = t.map(face.box)
        out += "<div class=\"box\"" + attribute("data-box", "\(face.number)")
        out += attribute("data-look", face.state.rawValue)
        out += attribute("style", Self.position(x, y, w, h))
        out += detailAttributes(view.details[.face(face.number)])
        out += "><span>\(face.number)\(face.found ? "" : "+")</span></div>"
      }
    }
    // The second look's finds, dotted, on the render (where they were found); clicks go through.
    if view.kind == .render {
      for (k, v) in (item.visible ?? []).enumerated() {
        out +=
          "<div class=\"seen\""
          + attribute("title", "second look: score \(Self.score(v.score))")
        out += attribute("style", Self.position(v.x, v.y, v.width, v.height))
        out += detailAttributes(view.details[.seen(k)])
        out += "></div>"
      }
    }
    out += "</div>\n<figcaption>\(Self.escape(caption(view, of: item)))</figcaption>\n</figure>\n"
  }

  /// A region's loupe detail, as the loupe reads it (the file is loaded only when the loupe
  /// shows it): `data-detail` its URL, `data-detail-rect` the fractions of the view it covers
  /// (`x y width height`), `data-detail-size` its pixels.
  private func detailAttributes(_ detail: ReviewItem.Detail?) -> String {
    guard let detail else { return "" }
    return attribute("data-detail", previewsURL + "/" + detail.file)
      + attribute(
        "data-detail-rect", [detail.x, detail.y, detail.w, detail.h].map(Self.number).joined(separator: " "))
      + attribute("data-detail-size", "\(detail.width) \(detail.height)")
  }

  private func caption(_ view: ReviewItem.View, of item: ReviewItem) -> String {
    switch view.kind {
    case .render:
      if item.state == PhotoState.unedited.rawValue && item.step == nil { return "the photo (unedited)" }
      return view.transform == nil && item.step != nil
        ? "render (boxes not drawn: a later step moves the pixels)" : "render: what others see"
    case .original: return "original (unredacted)"
    case .before:
      return "before faceblur: the original with steps 1–\((item.step ?? 2) - 1) (unredacted)"
    }
  }

  private func summary(_ item: ReviewItem) -> String {
    guard let step = item.step else {
      if item.state == PhotoState.damaged.rawValue { return "Cannot be reviewed until it is repaired." }
      return "No faceblur step: no face is hidden (photoedit apply --filter faceblur hides them)."
    }
    let count = { (s: ReviewItem.Face.State) in item.faces.filter { $0.state == s }.count }
    let found = item.faces.filter(\.found).count
    var text = "Step \(step) faceblur (\(item.detector ?? "haar")): \(FileResult.count(found, "face")) found"
    if item.faces.count > found { text += ", \(item.faces.count - found) added" }
    text += "; \(count(.hidden) + count(.added)) hidden, \(count(.excluded)) excluded."
    if let smallest = item.smallest { text += " Smallest face searched: \(smallest) px." }
    if let note = item.scoresNote { text += " (\(note).)" }
    if let visible = item.visible, !visible.isEmpty {
      text +=
        " Second look: CenterFace finds \(FileResult.count(visible.count, "face-like region")) in the render's preview"
        + " (best score \(Self.score(item.visibleScore))), dotted on it: hidden? Drag a box over any face left visible."
    }
    if let note = item.secondLookNote { text += " (\(note).)" }
    return text
  }

  static func words(_ flag: ReviewItem.Flag) -> String {
    switch flag {
    case .problem: "problem"
    case .unedited: "faces not hidden"
    case .faceVisible: "a face may show"
    case .noFaces: "no faces found"
    case .smallFaces: "small faces"
    case .manyFaces: "many faces"
    case .strengthened: "hidden more strongly"
    case .weakHiding: "weak hiding (older step)"
    }
  }

  static func words(_ state: ReviewItem.Face.State) -> String {
    switch state {
    case .hidden: "hidden"
    case .excluded: "excluded (left visible)"
    case .added: "added, hidden"
    }
  }

  // MARK: Text

  private func attribute(_ name: String, _ value: String) -> String { " \(name)=\"\(Self.escape(value))\"" }

  /// Text for HTML content and double-quoted attributes.
  static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t":
        out += "&#\(scalar.value);"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// JSON inside a `<script>` element: `<` written as `\u003c`, so no `</script>` ends it early.
  static func scriptSafe(_ json: String) -> String { json.replacing("<", with: "\\u003c") }

  /// A word for a POSIX shell: single-quoted unless it is plain.
  static func shellQuoted(_ word: String) -> String {
    let plain = word.unicodeScalars.allSatisfy { s in
      s.isASCII
        && (s.properties.isAlphabetic || ("0"..."9").contains(s) || "/._-+,:@%".unicodeScalars.contains(s))
    }
    if plain && !word.isEmpty && !word.hasPrefix("-") { return word }
    return "'" + word.replacing("'", with: "'\\''") + "'"
  }

  static func number(_ v: Double) -> String { ValueText.number(v) }

  /// A fraction as a CSS percentage, to a thousandth of a percent.
  static func percent(_ f: Double) -> String { "\(number((f * 100_000).rounded() / 1000))%" }

  /// A box of fractions of a preview as the CSS that places it on the preview.
  static func position(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> String {
    "left:\(percent(x));top:\(percent(y));width:\(percent(width));height:\(percent(height))"
  }

  /// A detector score as the page shows it, to two decimals.
  static func score(_ s: Double) -> String { number((s * 100).rounded() / 100) }

  /// A box of fractions as the page's script reads it: `x y width height`, exactly.
  static func boxText(_ b: Box) -> String {
    [b.x, b.y, b.width, b.height].map { "\($0.fraction(of: 1))" }.joined(separator: " ")
  }
}
