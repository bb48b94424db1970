import Testing

@testable import PhotoCore

/// A cascade in OpenCV's current format, built from parts: `stages` stages of `weak` weak
/// classifiers each (every one `node` with `leaves`), and `features` copies of a feature with
/// `rect` (and `tilted`).
private func newCascade(
  width: String = "6", height: String = "6", stages: Int = 1, weak: Int = 1, features: Int = 1,
  node: String = "0 -1 0 1.", leaves: String = "-1. 1.", rect: String = "0 0 6 6 -1.",
  tilted: String? = nil, stageThreshold: String = "0."
) -> [UInt8] {
  var xml = "<opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>"
  xml += "<height>\(height)</height><width>\(width)</width><stages>"
  let weakXML = "<_><internalNodes>\(node)</internalNodes><leafValues>\(leaves)</leafValues></_>"
  let stage =
    "<_><stageThreshold>\(stageThreshold)</stageThreshold><weakClassifiers>"
    + String(repeating: weakXML, count: weak) + "</weakClassifiers></_>"
  xml += String(repeating: stage, count: stages) + "</stages><features>"
  let tiltedXML = tilted.map { "<tilted>\($0)</tilted>" } ?? ""
  xml += String(repeating: "<_><rects><_>\(rect)</_></rects>\(tiltedXML)</_>", count: features)
  xml += "</features></cascade></opencv_storage>"
  return Array(xml.utf8)
}

/// A cascade in the old `opencv-haar-classifier` format: one stage, one tree of two nodes whose
/// first node's left child is `leftNode` (a node index), and whose numbers can be replaced.
private func oldCascade(
  leftNode: String = "1", threshold: String = "1.", leftValue: String = "-1.",
  stageThreshold: String = "0."
) -> [UInt8] {
  let feature = "<feature><rects><_>0 0 6 6 -1.</_></rects><tilted>0</tilted></feature>"
  let xml = """
    <hand type_id="opencv-haar-classifier"><size>6 6</size><stages><_><trees><_>
    <_>\(feature)<threshold>\(threshold)</threshold><left_node>\(leftNode)</left_node><right_val>1.</right_val></_>
    <_>\(feature)<threshold>1.</threshold><left_val>\(leftValue)</left_val><right_val>1.</right_val></_>
    </_></trees><stage_threshold>\(stageThreshold)</stage_threshold></_></stages></hand>
    """
  return Array(xml.utf8)
}

/// Expects `xml` to be refused with a message containing `words`.
private func expectRefused(
  _ xml: [UInt8], _ words: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  do {
    _ = try HaarCascade(xml: xml)
    Issue.record("accepted; expected \"\(words)\"", sourceLocation: sourceLocation)
  } catch {
    #expect(error.description.contains(words), "\(error.description)", sourceLocation: sourceLocation)
    #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
  }
}

/// Cascade files written by an attacker: every one is refused with a `CascadeError` naming what
/// is wrong, and none traps or exhausts the stack.
@Suite struct HostileCascadeTests {
  @Test func theBuildersMakeValidCascades() throws {
    #expect(try HaarCascade(xml: newCascade()).stageCount == 1)
    #expect(try HaarCascade(xml: newCascade(rect: "3 0 2 2 1.", tilted: "1")).hasTiltedFeatures)
    #expect(try HaarCascade(xml: oldCascade()).stageCount == 1)
  }

  /// Finding: deep nesting overflowed the stack in the XML reader (SIGSEGV).
  @Test func deepNestingIsRefused() {
    let depth = 200_000
    let xml = Array((String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)).utf8)
    expectRefused(xml, "malformed cascade XML at line 1: elements nested more than 64 deep")
    let unclosed = Array(String(repeating: "<_>", count: depth).utf8)
    expectRefused(unclosed, "nested more than 64 deep")
  }

  @Test func nestingUpToTheLimitIsXML() {
    // 64 levels parse as XML; the cascade reader then finds no cascade in them.
    let xml = Array((String(repeating: "<a>", count: 64) + String(repeating: "</a>", count: 64)).utf8)
    expectRefused(xml, "cascade")
    do { _ = try HaarCascade(xml: xml) } catch { #expect(!error.description.contains("nested")) }
  }

  /// Finding: integers near Int.max and Int.min in rectangles trapped on overflow (`x + w`).
  @Test(
    arguments: [
      ("9223372036854775807 0 1 1 -1.", nil),
      ("0 9223372036854775807 1 1 -1.", nil),
      ("1 0 9223372036854775807 1 -1.", nil),
      ("0 1 1 9223372036854775807 -1.", nil),
      ("-9223372036854775808 0 1 1 -1.", nil),
      ("0 0 -9223372036854775808 1 -1.", nil),
      ("-9223372036854775808 0 1 1 -1.", "1"),
      ("0 0 9223372036854775807 1 -1.", "1"),
      ("3 0 1 9223372036854775807 -1.", "1"),
      ("3 -9223372036854775808 1 1 -1.", "1"),
      ("3 0 1 -9223372036854775808 -1.", "1"),
    ] as [(String, String?)])
  func hugeRectangleNumbersAreRefused(rect: String, tilted: String?) {
    expectRefused(newCascade(rect: rect, tilted: tilted), "lies outside the 6x6 window")
  }

  /// Finding: `-child` trapped for a child index of Int.min; Int.max must not slip through.
  @Test(arguments: [
    "-9223372036854775808 -1 0 1.", "0 -9223372036854775808 0 1.", "9223372036854775807 -1 0 1.",
    "0 -9223372036854775807 0 1.",
  ])
  func hugeNodeIndicesAreRefused(node: String) {
    expectRefused(newCascade(node: node), "outside its tree")
  }

  @Test func hugeFeatureIndexIsRefused() {
    expectRefused(newCascade(node: "0 -1 9223372036854775807 1."), "uses feature 9223372036854775807")
    expectRefused(newCascade(node: "0 -1 -9223372036854775808 1."), "uses feature -9223372036854775808")
  }

  /// Finding: `1e300`, `nan` and `inf` as an old-format node index trapped in `Int(Double)`.
  @Test(arguments: ["1e300", "nan", "inf", "-inf", "1.5", "9.3e18", "-9.3e18"])
  func nonIntegerOldFormatNodesAreRefused(value: String) {
    expectRefused(oldCascade(leftNode: value), "is not a node index")
  }

  /// Thresholds, leaves and weights must be finite Floats: `nan`, `inf` and `1e300` (infinite
  /// as a Float) are refused in both formats.
  @Test(arguments: ["nan", "inf", "-inf", "1e300", "-1e39"])
  func nonFiniteNumbersAreRefused(value: String) {
    expectRefused(newCascade(stageThreshold: value), "not a finite number")
    expectRefused(newCascade(node: "0 -1 0 \(value)"), "not a finite number")
    expectRefused(newCascade(leaves: "-1. \(value)"), "not a finite number")
    expectRefused(newCascade(rect: "0 0 6 6 \(value)"), "not a finite number")
    expectRefused(oldCascade(threshold: value), "not a finite number")
    expectRefused(oldCascade(leftValue: value), "not a finite number")
    expectRefused(oldCascade(stageThreshold: value), "not a finite number")
  }

  // MARK: Bounds on the structure

  @Test func windowSize() {
    expectRefused(
      newCascade(width: "1001"),
      "cascade window 1001x6 is not a usable size (3 to 1000 pixels a side: each window is normalised"
        + " over itself less a one-pixel border)")
    expectRefused(newCascade(height: "0"), "cascade window 6x0 is not a usable size")
    expectRefused(newCascade(width: "99999999999999999999"), "not an integer")
  }

  /// Finding (issue 35): a window 1 pixel high trapped in the detector (its table rows), and one
  /// 2 pixels wide or high found nothing, silently (the variance window inside it is empty).
  /// Such cascades are refused when read, in both formats.
  @Test(arguments: [
    ("1", "1"), ("2", "2"), ("1", "24"), ("24", "1"), ("2", "24"), ("24", "2"), ("0", "6"), ("-5", "6"),
    ("6", "-9223372036854775808"),
  ])
  func degenerateWindowsAreRefused(width: String, height: String) {
    let rect = "0 0 \(max(0, Int(width) ?? 0)) \(max(0, Int(height) ?? 0)) -1."
    expectRefused(
      newCascade(width: width, height: height, rect: rect),
      "cascade window \(width)x\(height) is not a usable size (3 to 1000 pixels a side")
    let old = String(decoding: oldCascade(), as: UTF8.self)
      .replacingOccurrences(of: "<size>6 6</size>", with: "<size>\(width) \(height)</size>")
    expectRefused(Array(old.utf8), "cascade's <size> should be a usable \"width height\" (3 to 1000 pixels a side")
  }

  /// The smallest windows allowed, with upright and tilted features of every size that fits
  /// (empty ones too) and a stage that accepts everything, detect on a photo-sized image without
  /// trapping: they find windows or are refused for accepting nearly all of them.
  @Test func theSmallestWindowsDetectWithoutTrapping() throws {
    let image = noiseImage(width: 97, height: 61, seed: 7)
    var options = DetectionOptions()
    options.minNeighbors = 0
    for (w, h) in [(3, 3), (3, 4), (4, 3), (3, 7), (7, 3), (5, 5)] {
      var rects: [(String, String?)] = [("0 0 \(w) \(h) -1.", nil), ("1 1 0 0 2.", nil), ("0 0 1 1 1.", "0")]
      for x in 0...w {
        for rw in 0...w where x + rw <= w {
          for rh in 0...x where rw + rh <= h { rects.append(("\(x) 0 \(rw) \(rh) 1.", "1")) }
        }
      }
      for (rect, tilted) in rects {
        let xml = newCascade(
          width: "\(w)", height: "\(h)", leaves: "1. 1.", rect: rect, tilted: tilted, stageThreshold: "-1.")
        let cascade = try HaarCascade(xml: xml)
        do {
          _ = try HaarDetector.detect(in: image, cascade: cascade, options: options)
        } catch {
          #expect(error == .tooManyCandidates(limit: HaarDetector.minimumCandidateLimit), "\(w)x\(h) \(rect)")
        }
      }
    }
  }

  @Test func stageCount() {
    expectRefused(newCascade(stages: 1001), "cascade has 1001 stages, more than the limit of 1000")
  }

  @Test func weakClassifiersPerStage() {
    expectRefused(
      newCascade(weak: 10_001), "stage 0 has 10001 weak classifiers, more than the limit of 10000")
  }

  @Test func weakClassifiersInAll() {
    expectRefused(
      newCascade(stages: 11, weak: 9_100), "cascade has more than 100000 weak classifiers (the limit)")
  }

  @Test func nodesPerTree() {
    // 1025 nodes, each pointing to the next; the text is not split past the limit.
    var node = ""
    for n in 0..<1025 { node += n < 1024 ? "\(n + 1) -\(n) 0 1. " : "0 -1024 0 1." }
    expectRefused(
      newCascade(node: node, leaves: String(repeating: "1. ", count: 1026)),
      "has more than 1024 nodes (the limit)")
    let endless = String(repeating: "0 -1 0 1. ", count: 1_000_000)
    expectRefused(newCascade(node: endless), "has more than 1024 nodes (the limit)")
  }

  @Test func nodesInAll() {
    var node = ""
    for n in 0..<1000 { node += n < 999 ? "\(n + 1) -\(n) 0 1. " : "0 -999 0 1." }
    expectRefused(
      newCascade(weak: 101, node: node, leaves: String(repeating: "1. ", count: 1001)),
      "cascade has more than 100000 nodes (the limit)")
  }

  @Test func featureCount() {
    expectRefused(newCascade(features: 100_001), "cascade has more than 100000 features (the limit)")
  }

  @Test func elementCount() {
    let xml = Array(
      ("<opencv_storage>" + String(repeating: "<a/>", count: 1_000_000) + "</opencv_storage>").utf8)
    expectRefused(xml, "the cascade XML has more than 1000000 elements (the limit)")
  }

  @Test func fileSize() {
    expectRefused(
      [UInt8](repeating: 0x20, count: 64 << 20 + 1),
      "the cascade file is 67108865 bytes, more than the limit of 67108864")
  }
}
