import Codecs
import PhotoCore

extension EditStore {
  /// The faces in a photo, found by the settings' detector, in its reading order (face #K is
  /// faceblur's `exclude=K`). An edited photo is searched in its original, not in its render
  /// (whose faces may be hidden already).
  public func detect(_ photo: String, options: DetectionOptions) throws(StoreError) -> DetectOutcome {
    try Self.refuseStoreFile(photo)
    let paths = PhotoPaths(photo)
    var source: [UInt8]
    var searchedOriginal: String? = nil
    if let read = try loadSidecar(paths) {
      let edited = try loadEdited(paths, read)
      source = edited.originalBytes
      searchedOriginal = edited.originalPath
    } else {
      source = try Self.readBytes(photo)
    }
    let start = ContinuousClock.now
    let decoded: DecodedImage
    do { decoded = try engine.decode(source, maxPixels: settings.maxPixels, minimumLongestSide: nil) } catch {
      throw .codec(error)
    }
    source = []
    let elapsed = start.duration(to: .now)
    settings.recordTiming(
      "decode", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    let faces: [Face]
    let detector = try detector(options.detector)
    do { faces = try detector.faces(in: decoded.image, options: options) } catch { throw .detection(error) }
    return DetectOutcome(
      width: decoded.image.width, height: decoded.image.height, faces: faces,
      searchedOriginal: searchedOriginal, detector: detector.identity.name, warnings: decoded.warnings)
  }
}
