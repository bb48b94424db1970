/// The one edit photoedit makes to an XMP packet: its `tiff:Orientation`, if any, becomes 1, so
/// that no viewer that prefers XMP turns the upright pixels again. The packet keeps its length
/// and every other byte.
enum XMP {
  /// The packet with each `tiff:Orientation` value (attribute or element form) set to 1.
  static func withOrientationOne(_ packet: [UInt8]) -> [UInt8] {
    let name = "tiff:Orientation".asciiBytes
    var out = packet
    var i = 0
    while i + name.count + 2 < out.count {
      guard out[i] == name[0], out.hasBytes(name, at: i) else {
        i += 1
        continue
      }
      var j = i + name.count
      // Attribute: tiff:Orientation="6" (or '6', with optional spaces around '=').
      // Element: <tiff:Orientation>6</tiff:Orientation>.
      while j < out.count, out[j] == 0x20 { j += 1 }
      if j < out.count, out[j] == UInt8(ascii: "=") {
        j += 1
        while j < out.count, out[j] == 0x20 { j += 1 }
        if j < out.count, out[j] == UInt8(ascii: "\"") || out[j] == UInt8(ascii: "'") { j += 1 }
      } else if j < out.count, out[j] == UInt8(ascii: ">") {
        j += 1
      } else {
        i = j
        continue
      }
      if j + 1 < out.count, (UInt8(ascii: "2")...UInt8(ascii: "8")).contains(out[j]),
        !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(out[j + 1])
      {
        out[j] = UInt8(ascii: "1")
      }
      i = j
    }
    return out
  }
}
