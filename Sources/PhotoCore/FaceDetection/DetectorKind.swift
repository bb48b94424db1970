/// One kind of face detector, declared once (the twin of a filter's declaration): its name on
/// every surface, the search settings only it reads (typed fields of `DetectionOptions`, which
/// faceblur's parameters and detect's options are made of), the smallest face it finds, which
/// kind it runs beside, and the field of a faceblur step that records the SHA-256 of its file.
/// `Detectors.all` lists the kinds; `DetectorChoice` is a list of them, parsed from
/// `centerface+haar`. The store loads each kind by its name (`DetectorLoader`).
public struct DetectorKind: Sendable, Hashable {
  /// Its word in `--detector`, `detector=`, `filters --json` and `FaceDetector.identity`.
  public let name: String
  /// What it is, for help.
  public let summary: String
  /// The search settings only it reads, declared: faceblur's parameters (`threshold`) and
  /// detect's options (`--threshold`) are made of them.
  public var fields: [ParameterField<DetectionOptions>] { declaredFields() }
  /// Made when asked for, not with the kind: a field's default is read from a new
  /// `DetectionOptions`, whose default detector is made of the kinds.
  private let declaredFields: @Sendable () -> [ParameterField<DetectionOptions>]
  /// The names of `fields`.
  public var settings: [String] { fields.map(\.name) }
  /// The smallest face side it finds, in pixels of the image searched.
  public let smallestFace: Int
  /// The kind it runs beside, never alone (the profile cascade finds only turned faces).
  public let requires: String?
  /// The faceblur derived field recording the SHA-256 of its cascade or model.
  public let digestField: String
  /// Whether its faces carry a score (CenterFace's heatmap value; a cascade gives none).
  public let scores: Bool

  init(
    name: String, summary: String, fields: @escaping @Sendable () -> [ParameterField<DetectionOptions>],
    smallestFace: Int, requires: String?, digestField: String, scores: Bool
  ) {
    (self.name, self.summary, declaredFields, self.smallestFace) = (name, summary, fields, smallestFace)
    (self.requires, self.digestField, self.scores) = (requires, digestField, scores)
  }

  public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }

  /// CenterFace, a small neural network: frontal, turned, tilted and profile faces.
  public static let centerface = DetectorKind(
    name: "centerface", summary: "CenterFace, a small neural network (frontal, turned, tilted, profile)",
    fields: {
      [
        .number(
          "threshold", \.threshold, DetectionOptions.thresholdRange,
          help: "CenterFace: the score a face needs (lower finds more, with more false faces)")
      ]
    }, smallestFace: 20, requires: nil, digestField: "model", scores: true)
  /// OpenCV's frontal face cascade (`haarcascade_frontalface_default.xml`), its 24-pixel window.
  public static let haar = DetectorKind(
    name: "haar", summary: "OpenCV's frontal face cascade, with its detectMultiScale rules and boxes",
    fields: {
      [
        .number("scaleFactor", \.scaleFactor, DetectionOptions.scaleFactorRange, help: "Haar: pyramid step"),
        .integer(
          "minNeighbors", \.minNeighbors, DetectionOptions.minNeighborsRange,
          help: "Haar: overlapping hits a face needs"),
      ]
    }, smallestFace: 24, requires: nil, digestField: "cascade",
    scores: false)
  /// OpenCV's profile face cascade (`haarcascade_profileface.xml`, a 20-pixel window), run on the
  /// image and on its mirror; it runs beside the frontal cascade, with its settings.
  public static let profile = DetectorKind(
    name: "profile", summary: "OpenCV's profile face cascade, on the image and its mirror",
    fields: { [] }, smallestFace: 20, requires: "haar",
    digestField: "profileCascade", scores: false)
}

/// The detector kinds photoedit has, in the order a union groups their faces (`FaceGrouping`):
/// the first kind's box wins when two find one face.
public enum Detectors {
  public static let all: [DetectorKind] = [.centerface, .haar, .profile]

  /// The kind called `name`.
  public static func named(_ name: String) -> DetectorKind? { all.first { $0.name == name } }

  /// Every detector setting: each kind's, in the registry's order, once.
  public static var settings: [String] {
    var seen: [String] = []
    for kind in all { for s in kind.settings where !seen.contains(s) { seen.append(s) } }
    return seen
  }
}

/// The detectors a search runs: one kind, or several united (one box per face). Written as the
/// kinds' names joined by `+`, in the registry's order (`centerface+haar+profile`).
public struct DetectorChoice: Sendable, Hashable, CaseIterable, RawRepresentable {
  /// The kinds it runs, in the registry's order.
  public let kinds: [DetectorKind]

  public var rawValue: String { kinds.map(\.name).joined(separator: "+") }

  /// The choice `+`-joined names write: known kinds, each once, in the registry's order, each
  /// beside the kind it requires; nil for anything else.
  public init?(rawValue: String) {
    let words = rawValue.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
    var kinds: [DetectorKind] = []
    for word in words {
      guard let kind = Detectors.named(word), !kinds.contains(kind) else { return nil }
      kinds.append(kind)
    }
    self.init(kinds: kinds)
  }

  /// The choice of `kinds`, which must be in the registry's order with each requirement met.
  init?(kinds: [DetectorKind]) {
    guard !kinds.isEmpty else { return nil }
    let order = kinds.map { k in Detectors.all.firstIndex(of: k)! }
    guard order == order.sorted(),
      kinds.allSatisfy({ k in k.requires.map { r in kinds.contains { $0.name == r } } ?? true })
    else { return nil }
    self.kinds = kinds
  }

  /// Every choice: each allowed set of kinds. Listed as help has always listed them: choices
  /// without the registry's first kind (the cascades) first, then with it; fewer kinds first.
  public static var allCases: [DetectorChoice] {
    let n = Detectors.all.count
    let choices = (1..<(1 << n)).compactMap { mask in
      DetectorChoice(kinds: Detectors.all.indices.filter { mask & (1 << $0) != 0 }.map { Detectors.all[$0] })
    }
    return choices.sorted { a, b in
      let (fa, fb) = (a.kinds[0] == Detectors.all[0], b.kinds[0] == Detectors.all[0])
      return fa != fb ? !fa : a.kinds.count < b.kinds.count
    }
  }

  /// Whether it runs `kind`.
  public func runs(_ kind: DetectorKind) -> Bool { kinds.contains(kind) }

  /// The settings of the kinds it does not run, which a search with it would ignore.
  public var unusedSettings: [String] {
    let used = Set(kinds.flatMap(\.settings))
    return Detectors.settings.filter { !used.contains($0) }
  }

  /// The smallest face side it finds, in pixels: its kinds' smallest.
  public var smallestFace: Int { kinds.map(\.smallestFace).min()! }

  /// The frontal cascade: OpenCV's boxes, exactly.
  public static let haar = DetectorChoice(rawValue: "haar")!
  /// The frontal and profile cascades.
  public static let haarProfile = DetectorChoice(rawValue: "haar+profile")!
  /// CenterFace alone: the default.
  public static let centerface = DetectorChoice(rawValue: "centerface")!
  /// CenterFace and the frontal cascade.
  public static let centerfaceHaar = DetectorChoice(rawValue: "centerface+haar")!
  /// All three.
  public static let all = DetectorChoice(rawValue: "centerface+haar+profile")!
}
