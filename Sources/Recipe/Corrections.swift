import PhotoCore

/// Face corrections made on a review page (`photoedit review`), exported by the page as JSON and
/// applied by `photoedit apply --corrections FILE DIR`.
///
/// Each entry names one photo by its path relative to the reviewed folder, its faceblur step,
/// the faces the detector had found when the page was made (so a photo whose faces changed since
/// is refused rather than corrected by the wrong numbers), and the step's new `exclude` and `add`
/// parameters, whole: applying the same file twice gives the same recipe.
///
///     {"formatIdentifier": "org.photoedit.review-corrections", "formatVersion": 1,
///      "folder": "events",
///      "photos": [{"photo": "day1/a.jpg", "step": 1,
///                  "found": [[0.1, 0.2, 0.05, 0.07]],
///                  "exclude": [0], "add": [[0.5, 0.5, 0.04, 0.06]]}]}
///
/// Boxes are `[x, y, width, height]`, fractions of the image entering the step (faceblur's own
/// stored form).
public struct Corrections: Sendable, Equatable {
  public static let identifier = "org.photoedit.review-corrections"
  public static let currentVersion = 1
  /// The most boxes one entry may add, and the most entries a file may hold.
  public static let maxAddedFaces = 1000
  public static let maxPhotos = 100_000

  /// The reviewed folder as the page was given it (shown to the user; never used to find files).
  public var folder: String?
  public var photos: [Entry]
  /// The photos a person approved or flagged on the page, or returned to unreviewed after the
  /// page started them approved or flagged (`reviewed`): `apply --corrections` records each in
  /// its photo's sidecar (`AdjustmentData.review`), or takes the record away.
  public var reviewed: [Review] = []

  /// A photo's review state on the page.
  public struct Review: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable { case approved, flagged, unreviewed }
    /// The photo's path relative to the reviewed folder.
    public var photo: String
    public var state: State
    /// The SHA-256 of the render the page showed (the sidecar's `render.sha256` when the page
    /// was made); nil for an unedited photo, and in files of pages made before it was exported.
    public var render: SHA256Digest?

    public init(photo: String, state: State, render: SHA256Digest? = nil) {
      (self.photo, self.state, self.render) = (photo, state, render)
    }

    /// The state as the sidecar records it; nil for `unreviewed` (no record).
    public var recorded: ReviewRecord.State? { ReviewRecord.State(rawValue: state.rawValue) }
  }

  /// One photo's corrections.
  public struct Entry: Sendable, Equatable {
    /// The photo's path relative to the reviewed folder.
    public var photo: String
    /// The faceblur step, from 1 as `show` numbers steps.
    public var step: Int
    /// The faces the detector had found when the page was made, as fractions.
    public var found: [Box]
    /// The step's new `exclude` (face numbers, sorted, each once).
    public var exclude: [Int]
    /// The step's new `add` boxes, as fractions.
    public var add: [Box]

    public init(photo: String, step: Int, found: [Box], exclude: [Int], add: [Box]) {
      (self.photo, self.step, self.found, self.exclude, self.add) = (photo, step, found, exclude, add)
    }
  }

  public init(folder: String? = nil, photos: [Entry], reviewed: [Review] = []) {
    (self.folder, self.photos, self.reviewed) = (folder, photos, reviewed)
  }
}

/// Why a corrections file is refused. Nothing has been changed when one is thrown.
public enum CorrectionsError: Error, Equatable, Sendable {
  /// The file itself could not be read (missing, too large, not a regular file).
  case unreadable(StoreError)
  /// The file is not JSON.
  case invalidJSON(detail: String)
  /// The file is JSON, but not corrections (`formatIdentifier` missing or another).
  case foreignFormat(identifier: String?)
  /// The file was written by a newer photoedit.
  case newerFormat(found: Int, supported: Int)
  /// A field is missing, of the wrong type, or holds a value it may not (`photos[2].step`).
  case badField(field: String, problem: FieldProblem)
  /// Two entries name the same photo.
  case duplicatePhoto(photo: String)
  /// A photo name that is not a path below the reviewed folder (absolute, `..`, hidden, not a
  /// photo's name, a store file).
  case notUnderFolder(photo: String, folder: String)
  /// No photo of that name is under the reviewed folder; `recorded` is the folder the file says
  /// was reviewed.
  case notFound(photo: String, folder: String, recorded: String?)
  /// The photo cannot be read or is not one that can be corrected (damaged, modified).
  case photo(photo: String, StoreError)
  /// The photo's recipe has no step `step`, or that step is not faceblur.
  case noFaceblurStep(photo: String, step: Int, filter: String?, count: Int)
  /// The step's faces are not those reviewed: the photo was edited since the page was made.
  case facesChanged(photo: String, step: Int, reviewed: Int, now: Int)
  /// `exclude` names a face the step does not have (faces count from 0; `count` faces).
  case noSuchFace(photo: String, step: Int, face: Int, count: Int)
  /// A `reviewed` entry that cannot be recorded in its photo's sidecar.
  case reviewNotRecorded(photo: String, state: Corrections.Review.State, why: ReviewRefusal)

  /// Why a review state is not recorded.
  public enum ReviewRefusal: Error, Equatable, Sendable {
    /// The photo has no sidecar (never edited): there is nowhere to record it.
    case unedited
    /// The photo's render is not the one the page showed: it was edited since.
    case changedSince
    /// The entry does not say which render the page showed (a page made by an older photoedit).
    case renderNotNamed
    /// The sidecar is in an older format, or a step in an older version: its render is made
    /// again first (`photoedit render`).
    case olderFormat
  }

  public enum FieldProblem: Equatable, Sendable {
    case missing, wrongType
    /// Out of its range (the range in words).
    case outOfRange(allowed: String)
    /// A list longer than its limit.
    case tooMany(limit: Int)
  }
}

extension Corrections {
  /// Reads and checks a corrections file's bytes (the shape and ranges of every field; the
  /// photos themselves are checked by `EditStore.check(_:in:)`).
  public static func read(_ bytes: [UInt8]) throws(CorrectionsError) -> Corrections {
    let json: JSONValue
    do { json = try JSONParser.parse(bytes) } catch {
      throw .invalidJSON(detail: "not valid JSON: \(error.located(in: bytes))")
    }
    guard let top = json.object else { throw .invalidJSON(detail: "the top level is not an object") }
    guard let identifier = top["formatIdentifier"]?.string, identifier == Self.identifier else {
      throw .foreignFormat(identifier: top["formatIdentifier"]?.string)
    }
    let version = try integer(top["formatVersion"], "formatVersion", in: 1...Int(Int32.max))
    if version > currentVersion { throw .newerFormat(found: version, supported: currentVersion) }
    var folder: String? = nil
    if let f = top["folder"] {
      guard let s = f.string else { throw .badField(field: "folder", problem: .wrongType) }
      folder = s
    }
    guard let list = top["photos"] else { throw .badField(field: "photos", problem: .missing) }
    guard let items = list.array else { throw .badField(field: "photos", problem: .wrongType) }
    if items.count > maxPhotos { throw .badField(field: "photos", problem: .tooMany(limit: maxPhotos)) }
    var entries: [Entry] = []
    var seen: Set<String> = []
    for (i, item) in items.enumerated() {
      let field = "photos[\(i)]"
      guard let o = item.object else { throw .badField(field: field, problem: .wrongType) }
      guard let photoValue = o["photo"] else { throw .badField(field: "\(field).photo", problem: .missing) }
      guard let photo = photoValue.string, !photo.isEmpty else {
        throw .badField(field: "\(field).photo", problem: .wrongType)
      }
      let step = try integer(o["step"], "\(field).step", in: 1...1_000_000)
      let found = try boxes(o["found"], "\(field).found", limit: 100_000, inside: false)
      let add = try boxes(o["add"], "\(field).add", limit: maxAddedFaces, inside: true)
      guard let excludeValue = o["exclude"] else {
        throw .badField(field: "\(field).exclude", problem: .missing)
      }
      guard let excludeList = excludeValue.array else {
        throw .badField(field: "\(field).exclude", problem: .wrongType)
      }
      var exclude: [Int] = []
      for (j, e) in excludeList.enumerated() {
        exclude.append(try integer(e, "\(field).exclude[\(j)]", in: 0...100_000))
      }
      // Keyed by bytes: names that differ only in Unicode normalisation are two files.
      let key = PathName.bytes(photo).map { String($0, radix: 16) }.joined(separator: ",")
      guard seen.insert(key).inserted else { throw .duplicatePhoto(photo: photo) }
      entries.append(
        Entry(photo: photo, step: step, found: found, exclude: Array(Set(exclude)).sorted(), add: add))
    }
    var reviewed: [Review] = []
    if let value = top["reviewed"] {
      guard let list = value.array else { throw .badField(field: "reviewed", problem: .wrongType) }
      if list.count > maxPhotos { throw .badField(field: "reviewed", problem: .tooMany(limit: maxPhotos)) }
      var named: Set<String> = []
      for (i, item) in list.enumerated() {
        let field = "reviewed[\(i)]"
        guard let o = item.object else { throw .badField(field: field, problem: .wrongType) }
        guard let photoValue = o["photo"] else { throw .badField(field: "\(field).photo", problem: .missing) }
        guard let photo = photoValue.string, !photo.isEmpty else {
          throw .badField(field: "\(field).photo", problem: .wrongType)
        }
        guard let stateValue = o["state"] else { throw .badField(field: "\(field).state", problem: .missing) }
        guard let word = stateValue.string else {
          throw .badField(field: "\(field).state", problem: .wrongType)
        }
        guard let state = Review.State(rawValue: word) else {
          throw .badField(
            field: "\(field).state", problem: .outOfRange(allowed: "approved, flagged or unreviewed"))
        }
        var render: SHA256Digest? = nil
        if let value = o["render"] {
          guard let sha = SHA256Digest(value) else {
            throw .badField(
              field: "\(field).render", problem: .outOfRange(allowed: "64 lowercase hex digits"))
          }
          render = sha
        }
        let key = PathName.bytes(photo).map { String($0, radix: 16) }.joined(separator: ",")
        guard named.insert(key).inserted else { throw .duplicatePhoto(photo: photo) }
        reviewed.append(Review(photo: photo, state: state, render: render))
      }
    }
    return Corrections(folder: folder, photos: entries, reviewed: reviewed)
  }

  private static func integer(_ value: JSONValue?, _ field: String, in range: ClosedRange<Int>)
    throws(CorrectionsError) -> Int
  {
    guard let value else { throw .badField(field: field, problem: .missing) }
    guard let n = value.integer else { throw .badField(field: field, problem: .wrongType) }
    guard range.contains(n) else {
      throw .badField(
        field: field, problem: .outOfRange(allowed: "\(range.lowerBound)...\(range.upperBound)"))
    }
    return n
  }

  /// A list of `[x, y, width, height]` fractions; with `inside`, each box lies within the image
  /// (a drawn box), else only finite with a positive size (a detector's box, which OpenCV clips).
  private static func boxes(_ value: JSONValue?, _ field: String, limit: Int, inside: Bool)
    throws(CorrectionsError) -> [Box]
  {
    guard let value else { throw .badField(field: field, problem: .missing) }
    guard let list = value.array else { throw .badField(field: field, problem: .wrongType) }
    if list.count > limit { throw .badField(field: field, problem: .tooMany(limit: limit)) }
    var out: [Box] = []
    let slack = 1e-9
    for (i, item) in list.enumerated() {
      let numbers = item.array?.compactMap(\.number) ?? []
      guard numbers.count == 4, item.array?.count == 4, numbers.allSatisfy(\.isFinite) else {
        throw .badField(field: "\(field)[\(i)]", problem: .wrongType)
      }
      let (x, y, w, h) = (numbers[0], numbers[1], numbers[2], numbers[3])
      let ok =
        inside
        ? x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 1 + slack && y + h <= 1 + slack
        : w > 0 && h > 0 && (-1...2).contains(x) && (-1...2).contains(y) && w <= 2 && h <= 2
      guard ok else {
        throw .badField(
          field: "\(field)[\(i)]",
          problem: .outOfRange(
            allowed: inside
              ? "a box inside the image: x, y >= 0, width, height > 0, x + width <= 1, y + height <= 1"
              : "a box of fractions with width, height > 0"))
      }
      out.append(Box(fractionX: x, y: y, width: w, height: h))
    }
    return out
  }

  /// The file's JSON: sorted keys, one photo a line, as the page exports it.
  public func encoded() -> [UInt8] {
    func box(_ b: Box) -> JSONValue {
      .array([b.x, b.y, b.width, b.height].map { .number($0.fraction(of: 1)) })
    }
    var top: [String: JSONValue] = [
      "formatIdentifier": .string(Self.identifier), "formatVersion": .number(Double(Self.currentVersion)),
      "photos": .array(
        photos.map { e in
          .object([
            "photo": .string(e.photo), "step": .number(Double(e.step)), "found": .array(e.found.map(box)),
            "exclude": .array(e.exclude.map { .number(Double($0)) }), "add": .array(e.add.map(box)),
          ])
        }),
    ]
    if let folder { top["folder"] = .string(folder) }
    if !reviewed.isEmpty {
      top["reviewed"] = .array(
        reviewed.map { r in
          var o: [String: JSONValue] = ["photo": .string(r.photo), "state": .string(r.state.rawValue)]
          if let render = r.render { o["render"] = render.json }
          return .object(o)
        })
    }
    return JSONCoding.encode(JSONValue.object(top))
  }
}
