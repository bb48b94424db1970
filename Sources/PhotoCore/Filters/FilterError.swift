/// Why a filter request or a stored step was refused, with the facts: the filter, the key, the
/// value and what is allowed. The words are the caller's to choose.
public enum FilterError: Error, Equatable, Sendable {
  /// No filter has this name.
  case unknownFilter(String)
  /// The filter has no parameter `key`; `known` lists the ones it has.
  case unknownParameter(filter: String, key: String, known: [String])
  /// A stored value whose JSON does not have the parameter's shape.
  case badStoredValue(filter: String, key: String, value: JSONValue, expected: ParameterKind)
  /// A value of the right type outside what the parameter allows; `image` is the size of the
  /// image the value was measured against, when the value only fails on that image.
  case outOfRange(
    filter: String, key: String, value: ParameterValue, allowed: ParameterKind, image: ImageSize?)
  /// A parameter the filter needs was not given; `keys` lists what would do (any one of them).
  case missingParameter(filter: String, keys: [String])
  /// Two parameters that cannot be used together, each as `key` or `key=value`.
  case conflictingParameters(filter: String, keys: [String])
  /// A stored step of a newer version than this program knows.
  case newerVersion(filter: String, found: Int, supported: Int)
  /// A stored step of a version this program cannot read (below 1, or an older one it no longer
  /// migrates).
  case unsupportedVersion(filter: String, found: Int)
  /// A stored step's derived state is missing or malformed.
  case badDerivedState(filter: String, key: String)
  /// A rectangle (in pixels of the image entering the step, or fractions) that leaves the image.
  case regionOutsideImage(filter: String, region: Box, image: ImageSize)
  /// The face detector failed.
  case detection(filter: String, DetectionError)
  /// A point of a list of strokes (`key`: a brush's `strokes`) outside the image entering the
  /// step (`image`), or outside any image (a negative pixel, a fraction beyond 1: `image` nil):
  /// point `point` of stroke `stroke`, both counted from 0, as given. `file` is the strokes file
  /// they were read from, when the caller knows it (``naming(files:)``).
  case strokeOutsideImage(
    filter: String, key: String, file: String?, stroke: Int, point: Int, value: Point, image: ImageSize?)
  /// `exclude` names face `face`, and the step has no such face: it has `found` faces found and
  /// `added` added (numbered from 0, the found ones first).
  case noSuchFace(filter: String, face: Int, found: Int, added: Int)
  /// A new request's `key` hides faces more weakly than `safe` allows (faceblur's `blocks`).
  case weakerThanSafe(filter: String, key: String, value: ParameterValue, safe: ParameterValue)
  /// Face `face` (counted from 0) failed faceblur's check (`finding`) at strength `level`: the
  /// strongest, or the parameters' own when `canStrengthen` is false (`onFound=fail`).
  case faceStillFound(
    filter: String, face: Int, finding: FaceblurFilter.CheckFinding, level: Int, canStrengthen: Bool)
}

extension FilterError {
  /// The error with the file that a refused value was read from, when it is about such a value
  /// (`files`: a parameter's name to the file its value came from, such as a brush's strokes).
  public func naming(files: [String: String]) -> FilterError {
    guard
      case .strokeOutsideImage(let filter, let key, nil, let stroke, let point, let value, let image) = self,
      let file = files[key]
    else { return self }
    return .strokeOutsideImage(
      filter: filter, key: key, file: file, stroke: stroke, point: point, value: value, image: image)
  }
}
