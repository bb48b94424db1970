import Foundation
import PhotoCore
import Recipe
import Store
import Testing

@testable import PhotoEditCLI

/// `--filter` words: the command line's syntax for values, and its messages.
@Suite struct FilterWordsTests {
  func parse(_ word: String, file: String? = nil) throws(FilterWordError) -> StepRequest {
    try FilterWords.parse(word) { (path: String) throws(StoreError) -> [UInt8] in
      guard let file else { throw .missing(path: path) }
      return Array(file.utf8)
    }
  }

  func values(_ word: String) throws -> [String: ParameterValue] {
    Dictionary(uniqueKeysWithValues: try parse(word).values.map { ($0.name, $0.value) })
  }

  /// The message a word is refused with, as `photoedit: error: ...` prints it.
  func message(_ word: String, file: String? = nil) -> String? {
    do {
      _ = try parse(word, file: file)
      return nil
    } catch { return ErrorText.message(error) }
  }

  @Test func namesAndValues() throws {
    #expect(try values("sepia") == ["intensity": .number(1)])
    #expect(try values("sepia:intensity=0.8") == ["intensity": .number(0.8)])
    let p = try values("pixelate:shape=circle,center=50%:10,radius=12.5%,block=3")
    #expect(p["center"] == .point(Point(x: .fraction(0.5), y: .pixels(10))))
    #expect(p["radius"] == .length(.fraction(0.125)))
    #expect(p["block"] == .length(.pixels(3)))
    #expect(try values("faceblur:exclude=0/2/5")["exclude"] == .integers([0, 2, 5]))
    #expect(try values("crop:aspect=16:9")["aspect"] == .ratio(Ratio(16, 9)))
    #expect(try values("brush:color=#11223344,points=1:2")["color"] == .color(RGBA(0x11, 0x22, 0x33, 0x44)))
    #expect(try values("brush:color=#aabbcc,points=1:2")["color"] == .color(RGBA(0xAA, 0xBB, 0xCC, 0xFF)))
    #expect(
      try values("brush:points=1:2/3:4/5%:6%")["points"]
        == .points([
          Point(x: .pixels(1), y: .pixels(2)), Point(x: .pixels(3), y: .pixels(4)),
          Point(x: .fraction(0.05), y: .fraction(0.06)),
        ]))
  }

  /// `N%` is stored as the Double nearest N/100 and shown back as it was written, without the
  /// noise of a division or a product (0.7% was stored as 0.006999999999999999, and 3.3% was
  /// shown as 3.3000000000000003%).
  @Test(arguments: ["3.3", "0.7", "57.1", "33.3", "7.1", "12.5", "0.01", "99.99", "100", "0.00001", "0.0001"])
  func percentagesRoundTripAsWritten(percent: String) throws {
    let radius = try values("pixelate:shape=circle,center=1:1,radius=\(percent)%")["radius"]
    guard case .length(.fraction(let f)) = radius else {
      Issue.record("radius=\(percent)% is \(String(describing: radius))")
      return
    }
    #expect(f == Double(percent + "e-2") || percent.contains("e"))
    #expect(ValueText.length(.fraction(f)) == "\(percent)%")
  }

  /// Numbers are shown without an exponent, as people write them (`1e-05` is shown `0.00001`).
  @Test func numbersAreShownWithoutExponents() {
    #expect(ValueText.number(1e-05) == "0.00001")
    #expect(ValueText.number(-2.5e-3) == "-0.0025")
    #expect(ValueText.number(1.25) == "1.25")
    #expect(ValueText.plain("1.5e+16") == "15000000000000000")
    #expect(ValueText.length(.fraction(1e-7)) == "0.00001%")
  }

  @Test func errorsNameTheFilterTheKeyAndTheRange() {
    #expect(message("sepai") == "unknown filter 'sepai' (see 'photoedit filters')")
    #expect(message(":intensity=1") == "unknown filter '' (see 'photoedit filters')")
    #expect(message("sepia:amount=1") == "sepia: unknown parameter 'amount' (known: intensity)")
    #expect(message("sepia:intensity=1.5") == "sepia: intensity=1.5 is out of range (allowed: 0...1)")
    #expect(message("sepia:intensity=lots") == "sepia: intensity='lots' is not a number")
    #expect(message("sepia:intensity=nan") == "sepia: intensity='nan' is not a number")
    #expect(message("sepia:intensity=inf") == "sepia: intensity='inf' is not a number")
    // Swift's Double("0x1") is 1: a hexadecimal number is not a decimal one.
    #expect(message("sepia:intensity=0x1") == "sepia: intensity='0x1' is not a number")
    #expect(message("sepia:") == "sepia: expected key=value, got ''")
    #expect(message("sepia:intensity") == "sepia: expected key=value, got 'intensity'")
    #expect(message("sepia:intensity=1,intensity=0") == "sepia: parameter 'intensity' is given twice")
    #expect(message("rotate:angle=45") == "rotate: angle='45' is not one of 90|180|270")
    #expect(
      message("brush:color=#12345,points=1:1") == "brush: color='#12345' is not a colour #RRGGBB or #RRGGBBAA"
    )
    #expect(
      message("pixelate:shape=circle,center=120%:5,radius=3")
        == "pixelate: center=120%:5 is out of range (allowed: X:Y, pixels or 0%...100%)")
    #expect(message("brush:points=1:2/3") == "brush: points='1:2/3' is not points X:Y/X:Y/...")
    #expect(message("pixelate:shape=circle,center=1:1") == "pixelate: parameter 'radius' is required")
    #expect(
      message("pixelate:shape=circle,center=1:1,radius=2,x=3")
        == "pixelate: parameters 'shape=circle' and 'x' cannot be used together")
    #expect(message("crop:aspect=1:1,x=3") == "crop: parameters 'aspect' and 'x' cannot be used together")
    #expect(
      message("faceblur:minFace=30,maxFace=20")
        == "faceblur: maxFace=20 is out of range (allowed: 30...100000)")
    #expect(
      message("crop")
        == "crop: one of the parameters 'x, y, width and height', 'aspect' or 'shape=circle' is required")
    #expect(message("brush:pen=red") == "brush: one of the parameters 'points' or 'strokes' is required")
    #expect(
      message("crop:x=0,y=0,width=0,height=2")
        == "crop: width=0 is out of range (allowed: > 0 px, or 0%...100% of the width)")
  }

  @Test func decimalsAreStrict() {
    for good in ["0", "1", "-1", "+0.5", ".5", "5.", "1e3", "1E-2", "12.25"] {
      #expect(FilterWords.decimal(Substring(good)) != nil, "\(good)")
    }
    for bad in ["", "-", ".", "e3", "1e", "0x1", "1f", "nan", "inf", "infinity", "1,5", " 1", "1 ", "1e400"] {
      #expect(FilterWords.decimal(Substring(bad)) == nil, "\(bad)")
    }
  }

  /// A strokes file is read when the word is parsed and its strokes go into the request.
  @Test func strokesFileIsRead() throws {
    let file = #"{"strokes": [{"points": [[10, 10], [30, 10]]}, [[5, 30], ["50%", "75%"]]]}"#
    let request = try parse("brush:pen=black,strokes=pen.json", file: file)
    let strokes = try #require(request.values.first { $0.name == "strokes" }?.value)
    #expect(strokes == .strokes(try StrokesFile.parse(Array(file.utf8))))
  }

  @Test func badStrokesFiles() {
    #expect(
      message("brush:strokes=s.json", file: "[]") == "brush: strokes file 's.json': the file holds no strokes"
    )
    #expect(
      message("brush:strokes=s.json", file: "[[[1, 2, 3]]]")
        == "brush: strokes file 's.json': stroke 0: a point is not [x, y]")
    #expect(
      message("brush:strokes=s.json", file: "[[[1 2]]]")
        == "brush: strokes file 's.json': invalid JSON at byte 5: expected ',' or ']'")
    // A point no image has: the file, the stroke and the point, counted from 0 as above.
    #expect(
      message("brush:strokes=s.json", file: "[[[1, 2]], [[3, 4], [-1, 2]]]")
        == "brush: strokes file 's.json': stroke 1, point 1 (-1:2) is outside the image "
        + "(allowed: X:Y, pixels or 0%...100%)")
    #expect(message("brush:strokes=missing.json") == "brush: strokes file 'missing.json': no such file")
  }

  /// A stroke's point beyond the photo is refused for that photo (65, nothing written), by apply
  /// and by edit, naming the strokes file, the stroke and point, and the image's size.
  @Test func strokeOutsideThePhotoNamesTheFileThePointAndTheSize() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")  // 128x128
    let strokes = folder.path("s.json")
    folder.write("s.json", Array(#"[[[10, 10], [20, 20]], [[10, 10], ["50%", "50%"], [500, 20]]]"#.utf8))
    let reason = "strokes file '\(strokes)': stroke 1, point 2 (500:20) is outside the 128x128 image"
    let applied = runCLI(["apply", "-f", "brush:strokes=\(strokes)", photo])
    #expect(applied.status == 65)
    #expect(applied.err == "photoedit: \(photo): brush: \(reason)\n")
    #expect(folder.names() == ["h.jpg", "s.json"])
    #expect(runCLI(["apply", "-f", "brush:points=1:1/2:2", photo]).status == 0)
    let sidecar = folder.read("h.jpg.photoedit.json")
    let edited = runCLI(["edit", photo, "--step", "1", "--set", "strokes=\(strokes)"])
    #expect(edited.status == 65)
    #expect(edited.err == "photoedit: \(photo): step 1: brush: \(reason)\n")
    #expect(folder.read("h.jpg.photoedit.json") == sidecar)
  }

  /// A missing strokes file is an input that is missing (66), not a usage error of the word.
  @Test func missingStrokesFileIs66() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    let run = runCLI(["apply", "-f", "brush:strokes=\(folder.path("none.json"))", photo])
    #expect(run.status == 66, "\(run.err)")
    #expect(run.err == "photoedit: \(folder.path("none.json")): no such file\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["h.jpg"])
  }

  /// A file that is not a strokes file is bad data in an input (65), as a bad recipe is: one
  /// line naming the file, before any photo is touched.
  @Test func badStrokesFileIs65() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanUp() }
    let photo = try folder.copy("faces/hopper.jpg", as: "h.jpg")
    folder.write("s.json", Array("hello".utf8))
    let run = runCLI(["apply", "-f", "brush:strokes=\(folder.path("s.json"))", photo])
    #expect(run.status == 65, "\(run.err)")
    let prefix = "photoedit: \(folder.path("s.json")): brush: not a strokes file: invalid JSON at byte 0"
    #expect(run.err.hasPrefix(prefix) && run.err.split(separator: "\n").count == 1, "\(run.err)")
    // `edit --set strokes=FILE` reports the file the same way, before any photo.
    let edit = runCLI(["edit", photo, "--step", "1", "--set", "strokes=\(folder.path("s.json"))"])
    #expect(edit.status == 65, "\(edit.err)")
    #expect(edit.err.hasPrefix("photoedit: \(folder.path("s.json")): not a strokes file: "), "\(edit.err)")
    let missing = runCLI(["edit", photo, "--step", "1", "--set", "strokes=\(folder.path("none.json"))"])
    #expect(missing.status == 66, "\(missing.err)")
    #expect(missing.err == "photoedit: \(folder.path("none.json")): no such file\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["h.jpg", "s.json"])
  }

  /// Every `--filter WORD` in the README and the docs parses (strokes files are stubbed).
  @Test func documentedFilterWordsParse() throws {
    var words: [String] = []
    for doc in ["README.md", "docs/filters.md"] {
      let url = fixtures.deletingLastPathComponent().appendingPathComponent(doc)
      guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
      for line in text.split(separator: "\n") where !line.contains("swift test") {
        var rest = Substring(line)
        while let r = rest.range(of: "--filter ") {
          let after = rest[r.upperBound...]
          let word = String(after.prefix { !" `|)".contains($0) })
          // Synopses such as `--filter NAME[:key=value,...]` or `pixelate:...` are placeholders.
          if !word.hasPrefix("NAME") && !word.hasSuffix("...") { words.append(word) }
          rest = after
        }
      }
    }
    #expect(words.count >= 15)
    for word in words {
      #expect(message(word, file: "[[[1, 1], [5, 5]]]") == nil, "--filter \(word)")
    }
  }

  @Test func catalogueTextAndJSONComeFromTheDeclarations() {
    let text = FilterCatalog.text()
    let json = FilterCatalog.json()
    #expect(json.count == Filters.all.count)
    // The text is laid out in 100 columns: a summary may go on over two lines.
    let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for (entry, filter) in zip(json, Filters.catalog()) {
      #expect(words.contains("\(filter.name) (version \(filter.version)): \(filter.summary)"))
      let o = entry.object ?? [:]
      #expect(o["name"] == .string(filter.name))
      let parameters = o["parameters"]?.array ?? []
      #expect(parameters.count == filter.parameters.count)
      for (p, declared) in zip(parameters, filter.parameters) {
        #expect(text.contains("  \(declared.name) "))
        #expect(p.object?["range"] == .string(ValueText.range(declared.kind)))
        #expect(p.object?["help"] == .string(declared.help))
      }
    }
    #expect(text.contains("intensity  number  0...1"))
  }
}

/// The filter table of docs/filters.md is the catalogue's, as `photoedit filters --markdown` prints it.
@Suite struct ReadmeFilterTableTests {
  @Test func readmeTableIsCurrent() throws {
    let readme = try String(
      contentsOf: fixtures.deletingLastPathComponent().appendingPathComponent("docs/filters.md"),
      encoding: .utf8)
    let start = try #require(readme.range(of: "<!-- filters: photoedit filters --markdown -->\n"))
    let end = try #require(readme.range(of: "<!-- /filters -->"))
    let table = String(readme[start.upperBound..<end.lowerBound])
    #expect(table == FilterCatalog.markdown(), "update docs/filters.md with: photoedit filters --markdown")
  }
}
