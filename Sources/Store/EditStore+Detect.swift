import Codecs
import PhotoCore
import Recipe

extension EditStore {
  /// The faces in a photo, found by the settings' detector, in its reading order (face #K is
  /// faceblur's `exclude=K`). An edited photo is searched in its original, not in its render
  /// (whose faces may be hidden already).
  public func detect(_ photo: String, options: DetectionOptions) throws(StoreError) -> DetectOutcome {
    var source: [UInt8] = []
    let searchedOriginal = try opened(photo, for: .reading) { opened throws(StoreError) -> String? in
      // A photo without a sidecar is searched as it is (a stray preserved original beside it
      // does not stop a search).
      guard opened.sidecar != nil, let edited = try opened.edited() else {
        source = try opened.photoBytes()
        return nil
      }
      source = edited.originalBytes
      return edited.originalPath
    }
    settings.detectors.prefetch(options.detector)
    let decoded: DecodedImage
    do {
      decoded = try settings.timed("decode") { () throws(CodecError) in
        try engine.decode(source, maxPixels: settings.maxPixels, minimumLongestSide: nil)
      }
    } catch {
      throw .codec(error)
    }
    source = []
    let faces: [Face]
    let detector = try detector(options.detector)
    do { faces = try detector.faces(in: decoded.image, options: options) } catch { throw .detection(error) }
    return DetectOutcome(
      width: decoded.image.width, height: decoded.image.height, faces: faces,
      searchedOriginal: searchedOriginal, detector: detector.identity.name, warnings: decoded.warnings)
  }
}
