/// A boosted cascade of Haar-like features, read from OpenCV's XML format.
///
/// The cascade is the one `cv::CascadeClassifier` reads from the format that `opencv_traincascade`
/// writes (`<cascade>` with `<stageType>BOOST</stageType>` and `<featureType>HAAR</featureType>`):
/// weak classifiers may be stumps or trees, and features may be upright or tilted by 45°.
/// Numbers are kept at the precision OpenCV keeps them: feature weights, node thresholds, leaf
/// values and stage thresholds as `Float`.
///
///     let xml = try readFile("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
///     let cascade = try HaarCascade(xml: xml)
///     let faces = HaarDetector.detect(in: image, cascade: cascade, options: DetectionOptions())
public final class HaarCascade: Sendable {
  /// One weighted rectangle of a feature, in pixels of the training window.
  struct Rect: Sendable, Equatable {
    var x: Int, y: Int, width: Int, height: Int
    var weight: Float
  }

  /// A Haar-like feature: two or three weighted rectangles, upright or tilted by 45°.
  struct Feature: Sendable, Equatable {
    var rects: [Rect]
    var tilted: Bool
  }

  /// A node of a weak classifier's tree. A child index above 0 is a node of the same tree; 0 or
  /// below is a leaf, `leaves[leafStart - child]`.
  struct Node: Sendable, Equatable {
    var left: Int, right: Int
    var featureIndex: Int
    var threshold: Float
  }

  /// A weak classifier: `nodeCount` nodes from `nodeStart`, `nodeCount + 1` leaves from `leafStart`.
  struct Tree: Sendable, Equatable {
    var nodeStart: Int, nodeCount: Int, leafStart: Int
  }

  /// A stage: `count` weak classifiers from `start`; it passes when their sum is at least
  /// `threshold` (the file's threshold less OpenCV's 1e-5).
  struct Stage: Sendable, Equatable {
    var start: Int, count: Int
    var threshold: Float
  }

  /// Where Debian's opencv-data package installs the default frontal face cascade.
  public static let defaultPath =
    "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"

  /// The training window's width and height in pixels (24 × 24 for the frontal face cascades).
  public let windowWidth: Int, windowHeight: Int
  let features: [Feature]
  /// Each feature's corners merged, when they take one of the kernels' shapes (see
  /// `CascadeEvaluator`), worked out once rather than for every band.
  let mergedFeatures: [MergedFeature?]
  /// What the kernels' lane tables are whatever table they read, or nil when the cascade cannot
  /// use them (see `CascadeEvaluator.laneTemplate`).
  let laneTemplate: CascadeEvaluator.LaneTemplate?
  let stages: [Stage]
  let trees: [Tree]
  let nodes: [Node]
  let leaves: [Float]

  /// The number of stages a window must pass.
  public var stageCount: Int { stages.count }

  /// True when every weak classifier is a single node (a stump), as in the frontal face cascades.
  public var isStumpBased: Bool { Self.areStumps(trees) }

  /// True when every one of `trees` is a single node.
  static func areStumps(_ trees: [Tree]) -> Bool { trees.allSatisfy { $0.nodeCount == 1 } }

  /// True when some feature is tilted by 45° and needs the rotated integral image.
  public var hasTiltedFeatures: Bool { features.contains { $0.tilted } }

  /// OpenCV subtracts this from every stage threshold as it reads the cascade.
  static let stageThresholdEpsilon: Float = 1e-5

  /// Bounds on a cascade's structure, each about ten times what the largest cascade OpenCV
  /// ships has (frontalface_alt_tree: 47 stages, 406 weak classifiers in a stage, 8468 weak
  /// classifiers, nodes and features in all; eye_tree_eyeglasses: 3 nodes in a tree; windows
  /// of 14x28 to 64x16 pixels). The XML itself is bounded by `XMLReader`.
  static let maxWindowSide = 1000
  /// The smallest window side: OpenCV normalises each window by the variance of the window less
  /// a one-pixel border, which has no pixel below 3 (a window 1 pixel high trapped, and one 2
  /// pixels wide or high found nothing, silently).
  static let minWindowSide = 3
  /// The window sides this reader accepts.
  static let windowSides = minWindowSide...maxWindowSide
  static let maxStages = 1000
  static let maxWeakClassifiersPerStage = 10_000
  static let maxWeakClassifiers = 100_000
  static let maxNodesPerTree = 1024
  static let maxNodes = 100_000
  static let maxFeatures = 100_000

  /// Parses the text of an OpenCV cascade XML file.
  ///
  /// - Parameter xml: the file's bytes, UTF-8.
  /// - Throws: ``CascadeError`` saying what is wrong: not XML, not a boosted Haar cascade, a
  ///   missing or malformed field, or a feature or node that points outside the cascade.
  public init(xml: [UInt8]) throws(CascadeError) {
    let root = try XMLReader.parse(xml)
    // OpenCV's files wrap the cascade in <opencv_storage>; some old ones are the cascade itself.
    let top = root.name == "opencv_storage" ? root.children.first : root
    guard let cascade = top else {
      throw CascadeError("the XML file holds no cascade (the <\(root.name)> element is empty)")
    }
    let parsed =
      cascade.child("stageType") == nil && cascade.child("size") != nil
      ? try Self.parseOldStyle(cascade) : try Self.parse(cascade)
    (windowWidth, windowHeight) = (parsed.width, parsed.height)
    (features, stages, trees, nodes, leaves) =
      (parsed.features, parsed.stages, parsed.trees, parsed.nodes, parsed.leaves)
    mergedFeatures = features.map(Self.merged)
    laneTemplate = CascadeEvaluator.laneTemplate(
      features: features, merged: mergedFeatures, stages: stages, trees: trees, nodes: nodes, leaves: leaves)
  }

  private struct Parsed {
    var width = 0, height = 0
    var features: [Feature] = []
    var stages: [Stage] = []
    var trees: [Tree] = []
    var nodes: [Node] = []
    var leaves: [Float] = []
  }

  private static func field(_ name: String, in element: XMLReader.Element) throws(CascadeError)
    -> XMLReader.Element
  {
    guard let child = element.child(name) else {
      throw CascadeError("cascade has no <\(name)> in <\(element.name)> at line \(element.line)")
    }
    return child
  }

  private static func number(_ name: String, in element: XMLReader.Element) throws(CascadeError)
    -> Double
  {
    guard let tokens = try field(name, in: element).tokens(atMost: 1), tokens.count == 1,
      let value = tokens[0].double
    else {
      throw CascadeError("cascade's <\(name)> at line \(element.line) is not a number")
    }
    return value
  }

  /// A threshold, leaf value or weight: a number that is finite as a `Float` (`nan`, `inf` and
  /// `1e300` are not), as the evaluator computes with it.
  private static func float(_ name: String, in element: XMLReader.Element) throws(CascadeError) -> Float {
    guard let value = finiteFloat(try number(name, in: element)) else {
      throw CascadeError("cascade's <\(name)> at line \(element.line) is not a finite number")
    }
    return value
  }

  /// `value` as a finite `Float`, or nil.
  private static func finiteFloat(_ value: Double) -> Float? {
    let single = Float(value)
    return single.isFinite ? single : nil
  }

  /// Reads a feature's `<rects>` and `<tilted>`, checking it lies inside the window.
  private static func feature(
    _ element: XMLReader.Element, width: Int, height: Int
  ) throws(CascadeError) -> Feature {
    let rectList = try field("rects", in: element).children
    guard (1...3).contains(rectList.count) else {
      throw CascadeError(
        "feature at line \(element.line) has \(rectList.count) rectangles (1 to 3 expected)")
    }
    var tilted = false
    if let flag = element.child("tilted") {
      guard let t = flag.tokens(atMost: 1), t.count == 1, let value = t[0].int else {
        throw CascadeError("feature at line \(element.line) has a malformed <tilted>")
      }
      tilted = value != 0
    }
    var rects: [Rect] = []
    for r in rectList {
      guard let t = r.tokens(atMost: 5), t.count == 5, let x = t[0].int, let y = t[1].int,
        let w = t[2].int, let h = t[3].int, let weightValue = t[4].double
      else {
        throw CascadeError(
          "feature rectangle at line \(r.line) should be \"x y width height weight\"")
      }
      guard let weight = finiteFloat(weightValue) else {
        throw CascadeError("feature rectangle at line \(r.line) has weight \"\(t[4])\", not a finite number")
      }
      // Each number within the window first, so that the sums below cannot overflow.
      let side = max(width, height)
      let inside =
        [x, y, w, h].allSatisfy { (0...side).contains($0) }
        && (tilted
          ? x - h >= 0 && x + w <= width && y + w + h <= height
          : x + w <= width && y + h <= height)
      guard inside else {
        throw CascadeError(
          "feature rectangle at line \(r.line) lies outside the \(width)x\(height) window")
      }
      rects.append(Rect(x: x, y: y, width: w, height: h, weight: weight))
    }
    return Feature(rects: rects, tilted: tilted)
  }

  /// Reads the old `opencv-haar-classifier` format the way OpenCV 4 converts it: every tree node
  /// brings its own feature; `left_val`/`right_val` become leaves, `left_node`/`right_node` nodes.
  private static func parseOldStyle(_ cascade: XMLReader.Element) throws(CascadeError) -> Parsed {
    var parsed = Parsed()
    guard let size = try field("size", in: cascade).tokens(atMost: 2), size.count == 2,
      let width = size[0].int, let height = size[1].int,
      windowSides.contains(width), windowSides.contains(height)
    else {
      throw CascadeError(
        "cascade's <size> should be a usable \"width height\" (\(windowSizeRule))")
    }
    (parsed.width, parsed.height) = (width, height)
    let stageList = try field("stages", in: cascade).children
    if stageList.isEmpty { throw CascadeError("cascade has no stages") }
    try checkStageCount(stageList.count)
    for (index, stage) in stageList.enumerated() {
      let treeList = try field("trees", in: stage).children
      if treeList.isEmpty { throw CascadeError("stage \(index) has no weak classifiers") }
      try checkWeakCount(stage: index, count: treeList.count, before: parsed.trees.count)
      let threshold = try float("stage_threshold", in: stage)
      parsed.stages.append(
        Stage(
          start: parsed.trees.count, count: treeList.count,
          threshold: threshold - stageThresholdEpsilon))
      for tree in treeList {
        let nodeList = tree.children
        if nodeList.isEmpty { throw CascadeError("tree at line \(tree.line) has no nodes") }
        guard nodeList.count <= maxNodesPerTree else {
          throw CascadeError("tree at line \(tree.line) has more than \(maxNodesPerTree) nodes (the limit)")
        }
        try checkNodeCount(nodeList.count, before: parsed.nodes.count)
        // Every old-format node brings its own feature.
        guard parsed.features.count + nodeList.count <= maxFeatures else {
          throw CascadeError("cascade has more than \(maxFeatures) features (the limit)")
        }
        let start = (nodes: parsed.nodes.count, leaves: parsed.leaves.count)
        var leafCount = 0
        for (n, element) in nodeList.enumerated() {
          parsed.features.append(
            try feature(try field("feature", in: element), width: width, height: height))
          var children: [Int] = []
          for side in ["left", "right"] {
            if element.child(side + "_val") != nil {
              children.append(-leafCount)
              parsed.leaves.append(try float(side + "_val", in: element))
              leafCount += 1
            } else {
              let value = try number(side + "_node", in: element)
              guard value == value.rounded(), abs(value) <= Double(maxNodesPerTree),
                let child = Int(exactly: value)
              else {
                throw CascadeError(
                  "tree node at line \(element.line) has <\(side)_node> \(value), which is not a node index")
              }
              guard child > n && child < nodeList.count else {
                throw CascadeError(
                  "tree node at line \(element.line) points to node \(child), outside its tree")
              }
              children.append(child)
            }
          }
          parsed.nodes.append(
            Node(
              left: children[0], right: children[1], featureIndex: parsed.features.count - 1,
              threshold: try float("threshold", in: element)))
        }
        guard leafCount == nodeList.count + 1 else {
          throw CascadeError(
            "tree at line \(tree.line) has \(leafCount) leaves for \(nodeList.count) nodes")
        }
        parsed.trees.append(
          Tree(nodeStart: start.nodes, nodeCount: nodeList.count, leafStart: start.leaves))
      }
    }
    return parsed
  }

  private static func parse(_ cascade: XMLReader.Element) throws(CascadeError) -> Parsed {
    func field(_ name: String, in element: XMLReader.Element) throws(CascadeError)
      -> XMLReader.Element
    {
      guard let child = element.child(name) else {
        throw CascadeError("cascade has no <\(name)> in <\(element.name)> at line \(element.line)")
      }
      return child
    }
    func word(_ name: String, in element: XMLReader.Element) throws(CascadeError) -> String {
      guard let tokens = try field(name, in: element).tokens(atMost: 1), tokens.count == 1 else {
        throw CascadeError("cascade's <\(name)> at line \(element.line) should hold one value")
      }
      return tokens[0].description
    }
    func integer(_ name: String, in element: XMLReader.Element) throws(CascadeError) -> Int {
      let text = try word(name, in: element)
      guard let value = Int(text) else {
        throw CascadeError("cascade's <\(name)> is \"\(text)\", not an integer")
      }
      return value
    }

    var parsed = Parsed()
    let stageType = try word("stageType", in: cascade)
    guard stageType == "BOOST" else {
      throw CascadeError("unsupported cascade stageType \(stageType) (only BOOST is supported)")
    }
    let featureType = try word("featureType", in: cascade)
    guard featureType == "HAAR" else {
      throw CascadeError(
        "unsupported cascade featureType \(featureType) (only HAAR is supported)")
    }
    parsed.width = try integer("width", in: cascade)
    parsed.height = try integer("height", in: cascade)
    guard windowSides.contains(parsed.width), windowSides.contains(parsed.height) else {
      throw CascadeError(
        "cascade window \(parsed.width)x\(parsed.height) is not a usable size (\(windowSizeRule))")
    }
    if let params = cascade.child("featureParams"), params.child("maxCatCount") != nil {
      let categories = try integer("maxCatCount", in: params)
      guard categories == 0 else {
        throw CascadeError("categorical cascade features (maxCatCount \(categories)) are not HAAR")
      }
    }

    // Features.
    let featureList = try field("features", in: cascade).children
    guard featureList.count <= maxFeatures else {
      throw CascadeError("cascade has more than \(maxFeatures) features (the limit)")
    }
    for element in featureList {
      parsed.features.append(try feature(element, width: parsed.width, height: parsed.height))
    }
    if parsed.features.isEmpty { throw CascadeError("cascade has no features") }

    // Stages.
    let stageList = try field("stages", in: cascade).children
    if stageList.isEmpty { throw CascadeError("cascade has no stages") }
    try checkStageCount(stageList.count)
    for (index, element) in stageList.enumerated() {
      let thresholdText = try word("stageThreshold", in: element)
      guard let thresholdValue = Double(thresholdText) else {
        throw CascadeError("stage \(index) threshold \"\(thresholdText)\" is not a number")
      }
      guard let threshold = finiteFloat(thresholdValue) else {
        throw CascadeError("stage \(index) threshold \"\(thresholdText)\" is not a finite number")
      }
      let weakList = try field("weakClassifiers", in: element).children
      if weakList.isEmpty { throw CascadeError("stage \(index) has no weak classifiers") }
      try checkWeakCount(stage: index, count: weakList.count, before: parsed.trees.count)
      if element.child("maxWeakCount") != nil {
        let count = try integer("maxWeakCount", in: element)
        guard count == weakList.count else {
          throw CascadeError(
            "stage \(index) says maxWeakCount \(count) but has \(weakList.count) weak classifiers")
        }
      }
      parsed.stages.append(
        Stage(
          start: parsed.trees.count, count: weakList.count,
          threshold: threshold - stageThresholdEpsilon))
      for weak in weakList {
        guard let nodeTokens = try field("internalNodes", in: weak).tokens(atMost: 4 * maxNodesPerTree),
          let leafTokens = try field("leafValues", in: weak).tokens(atMost: maxNodesPerTree + 1)
        else {
          throw CascadeError(
            "weak classifier at line \(weak.line) has more than \(maxNodesPerTree) nodes (the limit)")
        }
        guard !nodeTokens.isEmpty, nodeTokens.count % 4 == 0 else {
          throw CascadeError(
            "weak classifier at line \(weak.line) has \(nodeTokens.count) internalNodes values"
              + " (4 per node expected)")
        }
        let nodeCount = nodeTokens.count / 4
        try checkNodeCount(nodeCount, before: parsed.nodes.count)
        guard leafTokens.count == nodeCount + 1 else {
          throw CascadeError(
            "weak classifier at line \(weak.line) has \(leafTokens.count) leaves for"
              + " \(nodeCount) nodes (\(nodeCount + 1) expected)")
        }
        let tree = Tree(
          nodeStart: parsed.nodes.count, nodeCount: nodeCount, leafStart: parsed.leaves.count)
        for n in 0..<nodeCount {
          let t = nodeTokens[(n * 4)..<(n * 4 + 4)]
          guard let left = t[t.startIndex].int, let right = t[t.startIndex + 1].int,
            let featureIndex = t[t.startIndex + 2].int, let thresholdValue = t[t.startIndex + 3].double
          else {
            throw CascadeError(
              "weak classifier at line \(weak.line) has a malformed node"
                + " \"\(t.map(\.description).joined(separator: " "))\"")
          }
          guard let threshold = finiteFloat(thresholdValue) else {
            throw CascadeError(
              "weak classifier at line \(weak.line) has node threshold \"\(t[t.startIndex + 3])\", not a"
                + " finite number")
          }
          guard parsed.features.indices.contains(featureIndex) else {
            throw CascadeError(
              "weak classifier at line \(weak.line) uses feature \(featureIndex), but the cascade"
                + " has \(parsed.features.count) features")
          }
          // Children: a later node of this tree (so evaluation always ends) or a leaf.
          for child in [left, right] {
            // `child >= -nodeCount`, not `-child <= nodeCount`: -Int.min overflows.
            let valid = child > 0 ? (child > n && child < nodeCount) : child >= -nodeCount
            guard valid else {
              throw CascadeError(
                "weak classifier at line \(weak.line) has node \(n) pointing to \(child),"
                  + " outside its tree")
            }
          }
          parsed.nodes.append(
            Node(left: left, right: right, featureIndex: featureIndex, threshold: threshold))
        }
        for text in leafTokens {
          guard let leaf = text.double else {
            throw CascadeError("weak classifier at line \(weak.line) has leaf value \"\(text)\"")
          }
          guard let value = finiteFloat(leaf) else {
            throw CascadeError(
              "weak classifier at line \(weak.line) has leaf value \"\(text)\", not a finite number")
          }
          parsed.leaves.append(value)
        }
        parsed.trees.append(tree)
      }
    }
    return parsed
  }

  /// The rule on window sides, as messages state it.
  private static let windowSizeRule =
    "\(minWindowSide) to \(maxWindowSide) pixels a side: each window is normalised over itself less a"
    + " one-pixel border"

  private static func checkStageCount(_ count: Int) throws(CascadeError) {
    guard count <= maxStages else {
      throw CascadeError("cascade has \(count) stages, more than the limit of \(maxStages)")
    }
  }

  /// Checks stage `stage`'s `count` weak classifiers, `before` of them in earlier stages.
  private static func checkWeakCount(stage: Int, count: Int, before: Int) throws(CascadeError) {
    guard count <= maxWeakClassifiersPerStage else {
      throw CascadeError(
        "stage \(stage) has \(count) weak classifiers, more than the limit of \(maxWeakClassifiersPerStage)")
    }
    guard before + count <= maxWeakClassifiers else {
      throw CascadeError("cascade has more than \(maxWeakClassifiers) weak classifiers (the limit)")
    }
  }

  private static func checkNodeCount(_ count: Int, before: Int) throws(CascadeError) {
    guard before + count <= maxNodes else {
      throw CascadeError("cascade has more than \(maxNodes) nodes (the limit)")
    }
  }
}
