/// A face detector: the one service that finds faces for every caller (listing them, hiding
/// them, reviewing them), so that every caller numbers them the same way.
///
/// Implementations differ in how they search (a Haar cascade, a neural network); all return
/// faces in reading order (see `Face.inReadingOrder`), so face #K is the same face for every
/// caller.
public protocol FaceDetector: Sendable {
  /// What found the faces: stored with them, so a result can be traced to its detector.
  var identity: DetectorIdentity { get }
  /// The faces in `image` (upright, alpha ignored), in reading order, in pixels of `image`.
  ///
  /// - Complexity: O(width × height × scales).
  func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face]

  /// The faces in `image` mirrored (left and right swapped), in pixels of the mirror: what
  /// ``faces(in:options:)`` gives for `image.flipped(horizontally: true)`. The default flips the
  /// image; a detector may mirror something smaller of its own instead.
  func facesInMirror(of image: Image, options: DetectionOptions) throws(DetectionError) -> [Face]

  /// What a search of a crop of an image of `imageSize` needs around a face of `side` pixels to
  /// find it as ``faces(in:options:)`` finds it in the whole image: the margin of context in
  /// pixels (at its coarsest scale that sees such a face), and the grid the crop's corner should
  /// sit on (so that the crop is cut into strides and resampled as the image is). faceblur's check asks. The
  /// default: no margin, grid 1.
  func cropContext(faceSide side: Double, imageSize: ImageSize, options: DetectionOptions) -> (
    margin: Int, grid: Int
  )

  /// The faces ``faces(in:options:)`` finds in `image` that can belong to something in `focus`
  /// (pixels of `image`): a detector that searches at several scales may search at each only
  /// `focus` grown by the context that scale reads around a face (its tiles' margin), and by at
  /// least `margin` pixels, its corner on that scale's grid. faceblur's check asks, `focus` being
  /// a hidden face's circle and box, `image` the face's crop of the photo with its rendered
  /// pixels over it. The default makes the image and searches all of it.
  func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
    throws(DetectionError) -> [Face]
}

extension FaceDetector {
  public func cropContext(faceSide side: Double, imageSize: ImageSize, options: DetectionOptions) -> (
    margin: Int, grid: Int
  ) { (0, 1) }

  public func faces(in image: PatchedImage, options: DetectionOptions, near focus: PixelRect, margin: Int)
    throws(DetectionError) -> [Face]
  { try faces(in: image.image(), options: options) }

  public func facesInMirror(of image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    try faces(in: image.flipped(horizontally: true), options: options)
  }
}

/// A detector's name and version, and the checksum of the model or cascade it ran with.
public struct DetectorIdentity: Sendable, Hashable {
  public var name: String
  public var version: Int
  /// A checksum of the model or cascade file, as its loader computed it (empty when unknown).
  public var model: String

  /// The detectors a united detector runs (empty for one detector).
  public var parts: [DetectorIdentity] = []

  public init(name: String, version: Int, model: String = "", parts: [DetectorIdentity] = []) {
    (self.name, self.version, self.model, self.parts) = (name, version, model, parts)
  }

  /// The single detectors behind this one: its parts, or itself.
  public var members: [DetectorIdentity] { parts.isEmpty ? [self] : parts.flatMap(\.members) }
}

/// One face found: its box in pixels of the image searched, and what its detector knows besides.
public struct Face: Sendable, Hashable {
  /// Left edge and top row, in pixels; width and height in pixels.
  public var x: Double, y: Double, width: Double, height: Double
  /// The detector's confidence (CenterFace's heatmap score, in (0, 1)); nil for a Haar face.
  public var score: Double?
  /// Five points (CenterFace): the eye on the image's left, the other eye, the nose tip, the
  /// mouth corner on the image's left, the other one; empty for a Haar face.
  public var landmarks: [FacePoint]

  public init(
    x: Double, y: Double, width: Double, height: Double, score: Double? = nil, landmarks: [FacePoint] = []
  ) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
    (self.score, self.landmarks) = (score, landmarks)
  }

  public init(_ box: FaceBox) {
    self.init(x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height))
  }
}

/// A point in pixels of the image searched.
public struct FacePoint: Sendable, Hashable {
  public var x: Double, y: Double
  public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
}

extension Array where Element == Face {
  /// The faces in reading order: by left edge, then top row, then width, then height. The order
  /// every detector returns and every caller numbers faces in (face #0 is the leftmost).
  public var inReadingOrder: [Face] {
    sorted { ($0.x, $0.y, $0.width, $0.height) < ($1.x, $1.y, $1.width, $1.height) }
  }
}

/// OpenCV's Haar cascade search (`HaarDetector`) as a face detector.
public struct HaarFaceDetector: FaceDetector {
  public let cascade: HaarCascade
  public let identity: DetectorIdentity

  /// - Parameter name: what the cascade finds, for the identity (`haar`, `profile`).
  public init(cascade: HaarCascade, model: String = "", name: String = "haar") {
    self.cascade = cascade
    identity = DetectorIdentity(name: name, version: 1, model: model)
  }

  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    try HaarDetector.detect(in: image, cascade: cascade, options: options).map(Face.init).inReadingOrder
  }

  /// The grey image mirrored in place (grey levels are per pixel, so they are the mirror's):
  /// 1 byte a pixel rather than a mirrored copy of the image's 4.
  public func facesInMirror(of image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    var grey = GreyImage(image)
    grey.mirror()
    return try HaarDetector.detect(in: grey, cascade: cascade, options: options).map(Face.init).inReadingOrder
  }
}

/// A detector run on the image and on its mirror (left and right swapped), its faces grouped: for
/// OpenCV's profile cascade, which finds faces turned one way only.
///
/// - Complexity: twice the base detector's, and what its mirror takes (a Haar detector mirrors its
///   grey image, 1 byte a pixel; others a copy of the image, 4).
public struct MirroredDetector: FaceDetector {
  public let base: any FaceDetector
  public init(_ base: any FaceDetector) { self.base = base }

  public var identity: DetectorIdentity { base.identity }

  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    let direct = try base.faces(in: image, options: options)
    let w = Double(image.width)
    let mirrored = try base.facesInMirror(of: image, options: options).map { f in
      var face = f
      face.x = w - f.x - f.width
      face.landmarks = f.landmarks.map { FacePoint(x: w - $0.x, y: $0.y) }
      return face
    }
    return FaceGrouping.merge([direct, mirrored])
  }
}

/// Several detectors run on the same image, their faces grouped so that one face gets one box.
public struct UnitedDetector: FaceDetector {
  public let members: [any FaceDetector]
  public init(_ members: [any FaceDetector]) {
    precondition(!members.isEmpty, "a united detector needs a member")
    self.members = members
  }

  /// The members' names joined by `+`, their checksums by `,`, and each member's own.
  public var identity: DetectorIdentity {
    DetectorIdentity(
      name: members.map(\.identity.name).joined(separator: "+"), version: 1,
      model: members.map(\.identity.model).joined(separator: ","), parts: members.map(\.identity))
  }

  public func faces(in image: Image, options: DetectionOptions) throws(DetectionError) -> [Face] {
    var lists: [[Face]] = []
    for member in members { lists.append(try member.faces(in: image, options: options)) }
    return FaceGrouping.merge(lists)
  }
}

/// Groups the faces of several searches so that one face gets one box.
///
/// Two boxes are the same face when their intersection over union is at least `sameFaceIoU`, or
/// when the smaller lies at least `containedFraction` inside the larger and the larger is at most
/// `containedScale` times as wide: a frontal and a profile box of one face, a face found at two
/// scales. Grouping is transitive (a chain of such pairs is one group). A group becomes the box
/// that encloses all of its boxes, so the circle hiding it covers what each detector saw; it
/// keeps the score and landmarks of its first box that has them (lists earlier in `lists` first).
public enum FaceGrouping {
  public static let sameFaceIoU = 0.3
  public static let containedFraction = 0.7
  public static let containedScale = 2.0

  /// The grouped faces of `lists`, in reading order.
  ///
  /// - Complexity: O(n²) in the number of faces.
  public static func merge(_ lists: [[Face]]) -> [Face] {
    let faces = lists.flatMap { $0 }
    guard faces.count > 1 else { return faces.inReadingOrder }
    var parent = Array(faces.indices)
    func root(_ i: Int) -> Int {
      var i = i
      while parent[i] != i {
        parent[i] = parent[parent[i]]
        i = parent[i]
      }
      return i
    }
    for i in faces.indices {
      for j in faces.indices where j > i && sameFace(faces[i], faces[j]) {
        let (a, b) = (root(i), root(j))
        if a != b { parent[max(a, b)] = min(a, b) }
      }
    }
    var groups: [Int: [Int]] = [:]
    for i in faces.indices { groups[root(i), default: []].append(i) }
    return groups.values.map { members in
      let boxes = members.map { faces[$0] }
      let x0 = boxes.map(\.x).min()!
      let y0 = boxes.map(\.y).min()!
      let x1 = boxes.map { $0.x + $0.width }.max()!
      let y1 = boxes.map { $0.y + $0.height }.max()!
      let described = boxes.first { $0.score != nil || !$0.landmarks.isEmpty }
      return Face(
        x: x0, y: y0, width: x1 - x0, height: y1 - y0, score: described?.score,
        landmarks: described?.landmarks ?? [])
    }.inReadingOrder
  }

  /// Whether two boxes are one face (see the type's rule).
  public static func sameFace(_ a: Face, _ b: Face) -> Bool {
    let w = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
    let h = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
    guard w > 0, h > 0 else { return false }
    let overlap = w * h
    let (areaA, areaB) = (a.width * a.height, b.width * b.height)
    if overlap / (areaA + areaB - overlap) >= sameFaceIoU { return true }
    let (small, large) = areaA <= areaB ? (a, b) : (b, a)
    return overlap >= containedFraction * small.width * small.height
      && large.width <= containedScale * small.width
  }
}
