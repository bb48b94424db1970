import Testing

@testable import PhotoCore

/// A tiny cascade written by hand: a 6 × 6 window, one stage, one stump whose feature is
/// −1 × (whole window) + 2 × (bottom half).
private let handCascadeXML = """
  <?xml version="1.0"?>
  <!-- hand-made test cascade -->
  <opencv_storage>
  <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
    <featureType>HAAR</featureType>
    <height>6</height>
    <width>6</width>
    <stageParams><maxWeakCount>1</maxWeakCount></stageParams>
    <featureParams><maxCatCount>0</maxCatCount></featureParams>
    <stageNum>1</stageNum>
    <stages>
      <_>
        <maxWeakCount>1</maxWeakCount>
        <stageThreshold>0.</stageThreshold>
        <weakClassifiers>
          <_>
            <internalNodes>0 -1 0 1.</internalNodes>
            <leafValues>-1. 1.</leafValues></_></weakClassifiers></_></stages>
    <features>
      <_>
        <rects>
          <_>0 0 6 6 -1.</_>
          <_>0 3 6 3 2.</_></rects></_></features></cascade>
  </opencv_storage>
  """

/// The same cascade with a two-node tree: node 0 as above; when its value is at least 1, node 1
/// looks at the left half (weight 1) and picks leaf 1 (+2) below 100 or leaf 2 (−3) otherwise.
private let treeCascadeXML = """
  <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
  <height>6</height><width>6</width>
  <stages><_><stageThreshold>0.5</stageThreshold><weakClassifiers>
    <_><internalNodes>0 1 0 1. -1 -2 1 100.</internalNodes>
       <leafValues>-1. 2. -3.</leafValues></_></weakClassifiers></_></stages>
  <features>
    <_><rects><_>0 0 6 6 -1.</_><_>0 3 6 3 2.</_></rects></_>
    <_><rects><_>0 0 3 6 1.</_></rects></_></features></cascade></opencv_storage>
  """

/// A 6 × 6 grey image: rows 0–2 at `top`, rows 3–5 at `bottom`.
private func halves(top: UInt8, bottom: UInt8) -> GreyImage {
  GreyImage(width: 6, height: 6, pixels: (0..<36).map { $0 < 18 ? top : bottom })
}

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct HaarCascadeTests {
  @Test func readsTheHandMadeCascade() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    #expect((cascade.windowWidth, cascade.windowHeight) == (6, 6))
    #expect(cascade.stageCount == 1)
    #expect(cascade.isStumpBased)
    #expect(!cascade.hasTiltedFeatures)
    #expect(cascade.features[0].rects.map(\.weight) == [-1, 2])
    #expect(cascade.stages[0].threshold == 0 - 1e-5 as Float)
    #expect(cascade.leaves == [-1, 1])
  }

  /// Worked by hand for top 10, bottom 50. The variance rectangle (1, 1, 4, 4) holds eight 10s and
  /// eight 50s: Σx = 480, Σx² = 20 800, area 16, so nf = 16 × 20 800 − 480² = 102 400 and the
  /// factor is 1/320. The feature is −1 × 1080 + 2 × 900 = 720, normalised 2.25 ≥ 1: right leaf
  /// +1 ≥ the stage threshold 0, so the window is a face.
  @Test func evaluatorResponsesMatchTheHandComputation() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    let integral = IntegralImage(halves(top: 10, bottom: 50), tilted: false)
    let evaluator = CascadeEvaluator(cascade, stride: integral.stride, tiltedOffset: 0)
    let p = UnsafePointer(integral.values)
    let q = UnsafePointer(integral.squares)
    #expect(evaluator.varianceFactor(p, q) == Float(1.0 / 320))
    #expect(CascadeEvaluator.value(evaluator.stumps[0].feature, p) == 720)
    #expect(evaluator.evaluate(p, q) == 1)

    // Upside down: −1080 + 2 × 180 = −720, normalised −2.25 < 1: left leaf −1 fails stage 0.
    let flipped = IntegralImage(halves(top: 50, bottom: 10), tilted: false)
    let (fp, fq) = (UnsafePointer(flipped.values), UnsafePointer(flipped.squares))
    #expect(CascadeEvaluator.value(evaluator.stumps[0].feature, fp) == -720)
    #expect(evaluator.evaluate(fp, fq) == 0)

    // A flat window has no variance and is rejected before stage 0.
    let flat = IntegralImage(halves(top: 30, bottom: 30), tilted: false)
    #expect(evaluator.evaluate(UnsafePointer(flat.values), UnsafePointer(flat.squares)) == -1)
  }

  @Test func detectorReportsTheHandComputedWindow() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    let raw = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    #expect(
      try HaarDetector.detect(in: halves(top: 10, bottom: 50), cascade: cascade, options: raw)
        == [FaceBox(x: 0, y: 0, width: 6, height: 6)])
    #expect(try HaarDetector.detect(in: halves(top: 50, bottom: 10), cascade: cascade, options: raw).isEmpty)
    // One raw window is not enough for a group with minNeighbors 1.
    let grouped = DetectionOptions(scaleFactor: 1.1, minNeighbors: 1)
    #expect(
      try HaarDetector.detect(in: halves(top: 10, bottom: 50), cascade: cascade, options: grouped).isEmpty)
  }

  /// Node 0 gives 2.25 ≥ 1 → node 1: the left half sums 3 × 10 × 3 + 3 × 50 × 3 = 540, times 1/320
  /// is 1.6875 < 100 → leaf 1 (+2) ≥ 0.5: a face. With bottom 250: Σx = 2080, Σx² = 500 800,
  /// nf = 16 × 500 800 − 2080² = 3 686 400, factor 1/1920; node 0: (−4680 + 9000) / 1920 = 2.25;
  /// node 1: 2340 / 1920 ≈ 1.22 < 100 → +2 again. Threshold 100 → 1 flips it to leaf 2 (−3).
  @Test func treesFollowTheirNodes() throws {
    let cascade = try HaarCascade(xml: bytes(treeCascadeXML))
    #expect(!cascade.isStumpBased)
    let raw = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    let box = [FaceBox(x: 0, y: 0, width: 6, height: 6)]
    #expect(try HaarDetector.detect(in: halves(top: 10, bottom: 50), cascade: cascade, options: raw) == box)
    #expect(try HaarDetector.detect(in: halves(top: 10, bottom: 250), cascade: cascade, options: raw) == box)
    let strict = try HaarCascade(xml: bytes(treeCascadeXML.replacingFirst("1 100.", with: "1 1.")))
    #expect(try HaarDetector.detect(in: halves(top: 10, bottom: 50), cascade: strict, options: raw).isEmpty)
    // Node 0 below its threshold goes to leaf 0 (−1).
    #expect(try HaarDetector.detect(in: halves(top: 50, bottom: 10), cascade: cascade, options: raw).isEmpty)
  }

  @Test func tiltedTableMatchesItsDefinition() {
    let (w, h) = (9, 7)
    let pixels = (0..<(w * h)).map { UInt8(($0 * 37 + 11) % 251) }
    let integral = IntegralImage(GreyImage(width: w, height: h, pixels: pixels), tilted: true)
    for y in 0...h {
      for x in 0...w {
        // OpenCV: the sum of pixels (px, py) with py < y and |px − x + 1| ≤ y − py − 1.
        var expected = 0
        for py in 0..<y {
          for px in 0..<w where abs(px - x + 1) <= y - py - 1 { expected += Int(pixels[py * w + px]) }
        }
        #expect(Int(integral.values[integral.tiltedOffset + y * integral.stride + x]) == expected)
        var upright = 0
        var squares = 0
        for py in 0..<y {
          for px in 0..<x {
            upright += Int(pixels[py * w + px])
            squares += Int(pixels[py * w + px]) * Int(pixels[py * w + px])
          }
        }
        #expect(Int(integral.values[y * integral.stride + x]) == upright)
        #expect(Int(integral.squares[y * integral.stride + x]) == squares)
      }
    }
  }

  /// A tilted rectangle (x 3, y 0, width 2, height 2) covers the diamond of pixels it rotates
  /// over; its four-corner sum equals the brute-force sum of those pixels.
  @Test func tiltedFeatureSumsItsDiamond() throws {
    let xml = """
      <opencv_storage><cascade><stageType>BOOST</stageType><featureType>HAAR</featureType>
      <height>6</height><width>6</width>
      <stages><_><stageThreshold>0</stageThreshold><weakClassifiers>
        <_><internalNodes>0 -1 0 0.</internalNodes><leafValues>-1. 1.</leafValues></_>
      </weakClassifiers></_></stages>
      <features><_><rects><_>3 0 2 2 1.</_></rects><tilted>1</tilted></_></features>
      </cascade></opencv_storage>
      """
    let cascade = try HaarCascade(xml: bytes(xml))
    #expect(cascade.hasTiltedFeatures)
    let pixels = (0..<36).map { UInt8($0 + 1) }
    let integral = IntegralImage(GreyImage(width: 6, height: 6, pixels: pixels), tilted: true)
    let evaluator = CascadeEvaluator(
      cascade, stride: integral.stride, tiltedOffset: integral.tiltedOffset)
    // The 8 pixels (2 × width × height) of the rotated rectangle whose top corner is grid point
    // (3, 0): T(3, 0) − T(1, 2) − T(5, 2) + T(3, 4) leaves (2, 0); (1…3, 1); (1…3, 2); (2, 3).
    let cells = [(2, 0), (1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2), (2, 3)]
    let expected = cells.reduce(0) { $0 + Int(pixels[$1.1 * 6 + $1.0]) }
    #expect(
      CascadeEvaluator.value(evaluator.stumps[0].feature, UnsafePointer(integral.values)) == Float(expected))
  }

  /// The hand-made cascade in OpenCV's old format (its own root element, CRLF line ends, nodes
  /// with `left_val`/`right_val`) reads to the same cascade and finds the same window.
  @Test func readsTheOldFormat() throws {
    let old = """
      <?xml version="1.0"?>\r
      <hand type_id="opencv-haar-classifier">\r
        <size>\r
          6 6</size>\r
        <stages>\r
          <_>\r
            <trees>\r
              <_>\r
                <_>\r
                  <feature>\r
                    <rects>\r
                      <_>0 0 6 6 -1.</_>\r
                      <_>0 3 6 3 2.</_></rects>\r
                    <tilted>0</tilted></feature>\r
                  <threshold>1.</threshold>\r
                  <left_val>-1.</left_val>\r
                  <right_val>1.</right_val></_></_></trees>\r
            <stage_threshold>0.</stage_threshold>\r
            <parent>-1</parent>\r
            <next>-1</next></_></stages></hand>\r
      """
    let cascade = try HaarCascade(xml: bytes(old))
    let reference = try HaarCascade(xml: bytes(handCascadeXML))
    #expect(cascade.features == reference.features)
    #expect(cascade.stages == reference.stages)
    #expect(cascade.nodes == reference.nodes)
    #expect(cascade.leaves == reference.leaves)
    let raw = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    #expect(
      try HaarDetector.detect(in: halves(top: 10, bottom: 50), cascade: cascade, options: raw)
        == [FaceBox(x: 0, y: 0, width: 6, height: 6)])
  }

  /// OpenCV's stripes: 62 stripes over 869 rows in steps of 2 get 7 steps (14 rows) each, 868
  /// rows in all, so row 868 is never searched; with 870 rows they get 8 steps and cover all.
  @Test func stripesCanEndBeforeTheLastRow() {
    #expect(HaarDetector.searchedRows(869, step: 2, stripes: 62) == 868)
    #expect(HaarDetector.searchedRows(870, step: 2, stripes: 62) == 870)
    #expect(HaarDetector.searchedRows(5, step: 1, stripes: 62) == 5)
    #expect(HaarDetector.searchedRows(5, step: 2, stripes: 0) == 0)
  }

  /// On a 10 × 9 image of 3-row bands (10, 10, 10, 50, 50, 50, 10, …) OpenCV 4.14 finds these
  /// raw windows with the hand-made cascade; the last, 8 × 8 at x = 3 (scale 1.331), is clipped
  /// to the image's right edge.
  @Test func rawWindowsMatchOpenCVAndStayInsideTheImage() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    let (w, h) = (10, 9)
    let image = GreyImage(
      width: w, height: h, pixels: (0..<(w * h)).map { ($0 / w) % 6 < 3 ? 10 : 50 })
    let raw = try HaarDetector.detect(
      in: image, cascade: cascade, options: DetectionOptions(scaleFactor: 1.1, minNeighbors: 0))
    let opencv = [
      [0, 0, 6, 6], [2, 0, 6, 6], [4, 0, 6, 6], [0, 0, 7, 7], [2, 0, 7, 7], [0, 0, 7, 7],
      [2, 0, 7, 7], [0, 0, 8, 8], [3, 0, 7, 8],
    ]
    #expect(raw.map { [$0.x, $0.y, $0.width, $0.height] } == opencv)
  }

  /// Nothing to search: an image smaller than the window, a minimum face larger than the image,
  /// a maximum face smaller than the window.
  @Test func noScaleMeansNoFaces() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    let tiny = GreyImage(width: 5, height: 9, pixels: (0..<45).map { $0 / 5 < 4 ? 10 : 50 })
    #expect(try HaarDetector.detect(in: tiny, cascade: cascade, options: DetectionOptions()).isEmpty)
    let image = halves(top: 10, bottom: 50)
    var options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 0)
    options.minFace = 7
    #expect(try HaarDetector.detect(in: image, cascade: cascade, options: options).isEmpty)
    options.minFace = nil
    options.maxFace = 5
    #expect(try HaarDetector.detect(in: image, cascade: cascade, options: options).isEmpty)
    options.maxFace = 6
    #expect(try HaarDetector.detect(in: image, cascade: cascade, options: options).count == 1)
  }

  // MARK: Errors

  @Test(arguments: [
    ("", "the cascade file is empty"),
    ("hello", "malformed cascade XML at line 1: not an XML file: no root element"),
    (
      "<opencv_storage><cascade>\n<stageType>BOOST</stageType>",
      "malformed cascade XML at line 1: element <cascade> is not closed"
    ),
    ("<a></b>", "malformed cascade XML at line 1: </b> closes <a> (opened at line 1)"),
    (
      "<opencv_storage></opencv_storage>",
      "the XML file holds no cascade (the <opencv_storage> element is empty)"
    ),
    (
      "<opencv_storage><cascade><stageType>BOOST</stageType><featureType>LBP</featureType></cascade></opencv_storage>",
      "unsupported cascade featureType LBP (only HAAR is supported)"
    ),
    (
      "<opencv_storage><cascade><featureType>HAAR</featureType></cascade></opencv_storage>",
      "cascade has no <stageType> in <cascade> at line 1"
    ),
    (
      "<opencv_storage><x type_id=\"opencv-haar-classifier\"><size>20 20</size></x></opencv_storage>",
      "cascade has no <stages> in <x> at line 1"
    ),
  ])
  func garbageGetsAClearError(text: String, message: String) {
    #expect(throws: CascadeError(message)) { try HaarCascade(xml: bytes(text)) }
  }

  /// The reader's tokens read numbers exactly as Swift reads the same text (`Int(_:)`,
  /// `Double(_:)`), edge cases and random digits alike.
  @Test func tokensReadAsSwiftReadsTheirText() throws {
    var texts = [
      "0", "-0", "+7", "007", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
      "-9223372036854775809", "99999999999999999999", "1e400", "-1e400", "1e-400", "0x1p3", "snan",
      "-nan", "inf", "1_0", "+", "-", "+-1", "12a", "1.", ".5", "e5", "\u{661}", "3.1511999666690826e-02",
    ]
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      let digits = String(
        (0..<Int.random(in: 1...22, using: &rng)).map { _ in "0123456789".randomElement()! })
      texts.append(["", "-", "+"].randomElement()! + digits + ["", "e-3", ".25", "e+400"].randomElement()!)
    }
    let root = try XMLReader.parse(bytes("<a>" + texts.joined(separator: " \n\t") + "</a>"))
    let tokens = try #require(root.tokens(atMost: texts.count))
    #expect(tokens.map(\.description) == texts)
    for (token, text) in zip(tokens, texts) {
      #expect(token.int == Int(text), "\(text)")
      let (mine, swift) = (token.double, Double(text))
      #expect(
        mine?.bitPattern == swift?.bitPattern || (mine?.isNaN == true && swift?.isNaN == true), "\(text)")
    }
    #expect(root.tokens(atMost: texts.count - 1) == nil)
  }

  /// An element's text is all its character data, joined: pieces around comments and children,
  /// entities and CDATA, then split at whitespace.
  @Test func textJoinsItsPieces() throws {
    let root = try XMLReader.parse(bytes("<a>1<!-- c -->2 &amp;<![CDATA[3 4]]>5<b>6 7</b> 8</a>"))
    #expect(try #require(root.tokens(atMost: 10)).map(\.description) == ["12", "&3", "45", "8"])
    #expect(root.children.map(\.name) == ["b"])
    #expect(try #require(root.child("b")?.tokens(atMost: 10)).map(\.description) == ["6", "7"])
  }

  @Test func badReferencesAreRefused() {
    let outOfRange = handCascadeXML.replacingFirst("0 -1 0 1.", with: "0 -1 7 1.")
    #expect(throws: CascadeError("weak classifier at line 16 uses feature 7, but the cascade has 1 features"))
    {
      try HaarCascade(xml: bytes(outOfRange))
    }
    let outside = handCascadeXML.replacingFirst("0 3 6 3 2.", with: "0 3 6 4 2.")
    #expect(throws: CascadeError("feature rectangle at line 23 lies outside the 6x6 window")) {
      try HaarCascade(xml: bytes(outside))
    }
    let loop = treeCascadeXML.replacingFirst("-1 -2 1 100.", with: "1 -2 1 100.")
    #expect(throws: CascadeError("weak classifier at line 4 has node 1 pointing to 1, outside its tree")) {
      try HaarCascade(xml: bytes(loop))
    }
    let leaves = handCascadeXML.replacingFirst("-1. 1.", with: "-1.")
    #expect(throws: CascadeError("weak classifier at line 16 has 1 leaves for 1 nodes (2 expected)")) {
      try HaarCascade(xml: bytes(leaves))
    }
  }

  // MARK: Grey pixels as OpenCV makes them

  /// `cv2.cvtColor(COLOR_BGR2GRAY)` of these pixels, measured with OpenCV 4.14.
  @Test func greyUsesOpenCVsWeights() {
    let rgb: [(UInt8, UInt8, UInt8)] = [
      (255, 0, 0), (0, 255, 0), (0, 0, 255), (12, 200, 77), (101, 102, 103), (1, 2, 3),
      (250, 128, 3), (37, 255, 219),
    ]
    let image = Image(width: 8, height: 1, bytes: rgb.flatMap { [$0.0, $0.1, $0.2, 255] })
    #expect(GreyImage(image).pixels == [76, 150, 29, 130, 102, 2, 150, 186])
    // Grey stays grey at every level.
    let levels = Image(
      width: 256, height: 1, bytes: (0..<256).flatMap { [UInt8($0), UInt8($0), UInt8($0), 9] })
    #expect(GreyImage(levels).pixels == (0..<256).map { UInt8($0) })
  }

  /// The 37 × 23 pattern (7x + 13y + 3xy) mod 256, resized by
  /// `cv2.resize(..., interpolation=cv2.INTER_LINEAR_EXACT)` with OpenCV 4.14.
  @Test func resizeIsBitExactWithOpenCV() {
    let (w, h) = (37, 23)
    let source = GreyImage(
      width: w, height: h,
      pixels: (0..<(w * h)).map { i in UInt8((i % w * 7 + i / w * 13 + (i % w) * (i / w) * 3) % 256) })
    let expected20x12: [UInt8] = [
      10, 25, 40, 56, 71, 87, 102, 118, 133, 149, 164, 180, 195, 155, 109, 125, 140, 156, 171, 187, 37, 63,
      89, 115, 141,
      168, 194, 184, 150, 164, 42, 68, 94, 121, 147, 173, 103, 129, 155, 181, 64, 101, 138, 175, 211, 173, 29,
      66, 102,
      139, 176, 155, 175, 125, 67, 104, 141, 112, 139, 176, 92, 139, 186, 182, 61, 73, 120, 167, 203, 194, 54,
      101, 148,
      171, 190, 35, 82, 129, 138, 171, 119, 177, 203, 37, 95, 153, 194, 153, 71, 129, 187, 213, 47, 106, 153,
      190, 24, 82,
      140, 166, 146, 212, 28, 96, 165, 226, 46, 115, 181, 223, 65, 134, 196, 144, 84, 151, 210, 65, 103, 160,
      174, 183,
      76, 156, 235, 62, 137, 217, 49, 119, 199, 89, 106, 181, 181, 92, 163, 242, 76, 145, 201, 35, 125, 215,
      54, 139, 111,
      83, 153, 226, 79, 166, 117, 107, 180, 46, 104, 194, 60, 132, 142, 73, 174, 76, 119, 219, 89, 165, 50,
      110, 210, 67,
      156, 160, 101, 166, 98, 147, 100, 114, 147, 111, 200, 79, 189, 68, 155, 57, 122, 219, 94, 199, 83, 166,
      96, 132, 62,
      108, 78, 97, 82, 149, 99, 137, 127, 125, 162, 112, 198, 100, 222, 109, 110, 126, 145, 142, 181, 147,
      173, 135, 55,
      187, 64, 196, 93, 205, 81, 162, 91, 213, 108, 125, 109, 175, 118, 111, 127, 138, 136, 129,
    ]
    let expected9x7: [UInt8] = [
      31, 74, 117, 160, 166, 209, 32, 75, 118, 89, 173, 146, 83, 167, 140, 78, 161, 134, 147, 39, 139, 100,
      131, 72, 123,
      64, 115, 205, 114, 79, 187, 95, 231, 168, 76, 127, 121, 212, 161, 110, 59, 171, 140, 138, 111, 65, 91,
      69, 46, 133,
      111, 112, 102, 91, 123, 153, 183, 213, 243, 50, 76, 102, 128,
    ]
    #expect(source.resized(width: 20, height: 12).pixels == expected20x12)
    #expect(source.resized(width: 9, height: 7).pixels == expected9x7)
    #expect(source.resized(width: 1, height: 1).pixels == [95])
    #expect(source.resized(width: w, height: h) == source)
  }

  // MARK: Grouping

  @Test func groupingAveragesSimilarBoxesAndDropsLoners() {
    let boxes = [
      FaceBox(x: 100, y: 100, width: 50, height: 50), FaceBox(x: 103, y: 98, width: 50, height: 50),
      FaceBox(x: 98, y: 101, width: 55, height: 55), FaceBox(x: 101, y: 102, width: 50, height: 50),
      FaceBox(x: 400, y: 10, width: 30, height: 30),
    ]
    // x: (100 + 103 + 98 + 101) / 4 = 100.5 → 100 (ties to even, as OpenCV's cvRound);
    // y: 401 / 4 = 100.25 → 100; size 205 / 4 = 51.25 → 51.
    #expect(
      RectangleGrouping.group(boxes, minNeighbors: 3) == [FaceBox(x: 100, y: 100, width: 51, height: 51)])
    #expect(RectangleGrouping.group(boxes, minNeighbors: 4).isEmpty)
    #expect(RectangleGrouping.group(boxes, minNeighbors: 0) == boxes)
  }

  @Test func groupingDropsASmallGroupInsideABigOne() {
    let big = Array(repeating: FaceBox(x: 0, y: 0, width: 100, height: 100), count: 6)
    let small = Array(repeating: FaceBox(x: 20, y: 20, width: 40, height: 40), count: 4)
    #expect(
      RectangleGrouping.group(big + small, minNeighbors: 2) == [FaceBox(x: 0, y: 0, width: 100, height: 100)])
    // With as many members as the big group (and at least 3), the inner group survives.
    let inner = Array(repeating: FaceBox(x: 20, y: 20, width: 40, height: 40), count: 6)
    #expect(RectangleGrouping.group(big + inner, minNeighbors: 2).count == 2)
  }

  @Test func scalesFollowOpenCVsLoop() throws {
    let cascade = try HaarCascade(xml: bytes(handCascadeXML))
    var options = DetectionOptions(scaleFactor: 1.5, minNeighbors: 3)
    // Windows 6, 9, 13.5 → 14 (ties to even), 20.25 → 20; 30.375 → 30 exceeds 25.
    #expect(
      HaarDetector.scales(width: 25, height: 40, cascade: cascade, options: options) == [1, 1.5, 2.25, 3.375])
    options.minFace = 10
    options.maxFace = 14
    #expect(HaarDetector.scales(width: 25, height: 40, cascade: cascade, options: options) == [2.25])
  }
}

extension String {
  fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
    replacing(target, with: replacement, maxReplacements: 1)
  }
}
