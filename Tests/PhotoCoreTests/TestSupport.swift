@_exported import TestSupport

@testable import PhotoCore

/// The largest difference between two images' bytes.
func maxDifference(_ a: Image, _ b: Image) -> Int {
  precondition(a.width == b.width && a.height == b.height)
  var m = 0
  for i in a.bytes.indices { m = max(m, abs(Int(a.bytes[i]) - Int(b.bytes[i]))) }
  return m
}

/// A length in pixels.
func px(_ v: Double) -> ParameterValue { .length(.pixels(v)) }
/// A length as a percentage of its axis.
func pc(_ v: Double) -> ParameterValue { .length(.fraction(v / 100)) }
/// A point in pixels.
func pt(_ x: Double, _ y: Double) -> ParameterValue { .point(Point(x: .pixels(x), y: .pixels(y))) }
/// A list of points in pixels.
func pts(_ xy: (Double, Double)...) -> ParameterValue {
  .points(xy.map { Point(x: .pixels($0.0), y: .pixels($0.1)) })
}

/// The step a request for `filter` with `values` makes for `image`.
func step(
  _ filter: String, _ values: [String: ParameterValue] = [:], for image: Image,
  detector: (any FaceDetector)? = nil
) throws -> Step {
  try Filters.request(filter, values: values).resolve(
    in: ResolveContext(image: image, detector: detector, checker: FindsNothing()))
}

/// Makes the step for `image` and renders it.
func apply(
  _ filter: String, _ values: [String: ParameterValue] = [:], to image: Image,
  detector: (any FaceDetector)? = nil
) throws -> Image {
  let s = try step(filter, values, for: image, detector: detector)
  var out = image
  try s.render(on: &out)
  return out
}

func roundHalfUp(_ v: Double) -> UInt8 { UInt8(min(max((v + 0.5).rounded(.down), 0), 255)) }
